import type { TotpFactor, UserFactors, WebAuthnCredential } from '../../domain/mfa/mfa-factor.js';
import type {
  MfaFactorRepository,
  NewTotpEnrolment,
  RemovedFactors,
} from '../../domain/mfa/mfa-factor-repository.port.js';
import { sameRecoveryCodeHash } from '../../domain/mfa/recovery-codes.js';
import type { WebAuthnCeremony, WebAuthnChallenge } from '../../domain/mfa/webauthn-challenge.js';
import { signCountAccepted } from '../../domain/mfa/webauthn-rules.js';

/**
 * Second factors in this process's memory: for tests and a single process, beside the in-memory
 * session store. Written against the port only. Each method runs to its end without awaiting, so
 * on one thread every operation is atomic, and "exactly one of concurrent calls wins" holds.
 * Values are copied in and out: a caller holding a returned object cannot change what is stored.
 */
export class MemoryMfaFactorRepository implements MfaFactorRepository {
  private readonly totp = new Map<string, TotpFactor>();
  private readonly credentials = new Map<string, WebAuthnCredential>();
  private readonly recoveryCodes = new Map<string, string[]>();
  /** By ceremony and binding, as the SQL table's key. */
  private readonly challenges = new Map<string, WebAuthnChallenge>();

  async factorsOf(userId: string): Promise<UserFactors> {
    const totp = this.totp.get(userId);
    return {
      totp: totp ? structuredClone(totp) : null,
      webauthn: [...this.credentials.values()]
        .filter((credential) => credential.userId === userId)
        .sort(
          (a, b) =>
            a.createdAt.getTime() - b.createdAt.getTime() ||
            (a.credentialId < b.credentialId ? -1 : a.credentialId > b.credentialId ? 1 : 0),
        )
        .map((credential) => structuredClone(credential)),
      recoveryCodesLeft: this.recoveryCodes.get(userId)?.length ?? 0,
    };
  }

  async addPendingTotp(enrolment: NewTotpEnrolment): Promise<'added' | 'confirmed_exists'> {
    if (this.totp.get(enrolment.userId)?.confirmedAt) return 'confirmed_exists';
    this.totp.set(enrolment.userId, {
      ...structuredClone(enrolment),
      confirmedAt: null,
      lastAcceptedStep: null,
    });
    return 'added';
  }

  async confirmTotp(userId: string, factorId: string, step: number, now: Date): Promise<boolean> {
    const factor = this.totp.get(userId);
    if (!factor || factor.factorId !== factorId || factor.confirmedAt) return false;
    factor.confirmedAt = new Date(now);
    factor.lastAcceptedStep = step;
    return true;
  }

  async acceptTotpStep(userId: string, factorId: string, step: number): Promise<boolean> {
    const factor = this.totp.get(userId);
    if (!factor || factor.factorId !== factorId || !factor.confirmedAt) return false;
    if (factor.lastAcceptedStep !== null && factor.lastAcceptedStep >= step) return false;
    factor.lastAcceptedStep = step;
    return true;
  }

  async removeTotp(userId: string): Promise<boolean> {
    return this.totp.delete(userId);
  }

  async addWebAuthnCredential(credential: WebAuthnCredential): Promise<'added' | 'exists'> {
    if (this.credentials.has(credential.credentialId)) return 'exists';
    this.credentials.set(credential.credentialId, structuredClone(credential));
    return 'added';
  }

  async removeWebAuthnCredential(userId: string, credentialId: string): Promise<boolean> {
    if (this.credentials.get(credentialId)?.userId !== userId) return false;
    return this.credentials.delete(credentialId);
  }

  async findWebAuthnCredential(credentialId: string): Promise<WebAuthnCredential | null> {
    const credential = this.credentials.get(credentialId);
    return credential ? structuredClone(credential) : null;
  }

  async recordWebAuthnUse(credentialId: string, presentedSignCount: number, now: Date): Promise<boolean> {
    const credential = this.credentials.get(credentialId);
    if (!credential || !signCountAccepted(credential.signCount, presentedSignCount)) return false;
    credential.signCount = presentedSignCount;
    credential.lastUsedAt = new Date(now);
    return true;
  }

  async saveWebAuthnChallenge(challenge: WebAuthnChallenge): Promise<void> {
    this.challenges.set(challengeKey(challenge.ceremony, challenge.boundTo), {
      ...structuredClone(challenge),
      usedAt: null,
    });
  }

  async takeWebAuthnChallenge(
    ceremony: WebAuthnCeremony,
    boundTo: string,
  ): Promise<WebAuthnChallenge | null> {
    const key = challengeKey(ceremony, boundTo);
    const challenge = this.challenges.get(key);
    this.challenges.delete(key);
    return challenge ?? null;
  }

  async purgeExpiredWebAuthnChallenges(now: Date, limit: number): Promise<number> {
    let purged = 0;
    for (const [key, challenge] of this.challenges) {
      if (purged >= limit) break;
      if (challenge.expiresAt.getTime() <= now.getTime()) {
        this.challenges.delete(key);
        purged += 1;
      }
    }
    return purged;
  }

  async replaceRecoveryCodes(userId: string, codeHashes: readonly string[]): Promise<void> {
    this.recoveryCodes.set(userId, [...codeHashes]);
  }

  async consumeRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
    const codes = this.recoveryCodes.get(userId) ?? [];
    // Every stored hash is compared, in constant time each: how long this takes says nothing
    // about which code, if any, came close.
    let found = -1;
    codes.forEach((stored, index) => {
      if (sameRecoveryCodeHash(stored, codeHash)) found = index;
    });
    if (found < 0) return false;
    codes.splice(found, 1);
    return true;
  }

  async removeAllFactors(userId: string): Promise<RemovedFactors> {
    let webauthn = 0;
    for (const [id, credential] of this.credentials) {
      if (credential.userId === userId && this.credentials.delete(id)) webauthn += 1;
    }
    const recoveryCodes = this.recoveryCodes.get(userId)?.length ?? 0;
    this.recoveryCodes.delete(userId);
    return { totp: this.totp.delete(userId), webauthn, recoveryCodes };
  }
}

function challengeKey(ceremony: WebAuthnCeremony, boundTo: string): string {
  return JSON.stringify([ceremony, boundTo]);
}
