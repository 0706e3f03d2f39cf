import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { nodeRandom } from '../../src/adapters/crypto/node-random.js';
import type { WebAuthnCredential } from '../../src/domain/mfa/mfa-factor.js';
import type { MfaFactorRepository } from '../../src/domain/mfa/mfa-factor-repository.port.js';
import { newWebAuthnChallenge, type WebAuthnChallenge } from '../../src/domain/mfa/webauthn-challenge.js';
import { at, T0 } from './user-repository.contract.js';

export interface MfaFactorStore {
  factors: MfaFactorRepository;
  /** A user the store keeps factors for (a SQL store needs the user's row). */
  newUserId(): Promise<string>;
}

const RACERS = 20;

function hashes(count: number): string[] {
  return Array.from({ length: count }, () => randomBytes(32).toString('hex'));
}

function factorId(): string {
  return `f-${randomBytes(8).toString('hex')}`;
}

function credential(userId: string, overrides: Partial<WebAuthnCredential> = {}): WebAuthnCredential {
  return {
    credentialId: randomBytes(16).toString('base64url'),
    userId,
    name: 'Security key',
    publicKey: new Uint8Array(randomBytes(77)),
    signCount: 0,
    transports: ['usb', 'nfc'],
    createdAt: T0,
    lastUsedAt: null,
    ...overrides,
  };
}

/** The behaviour every MfaFactorRepository must show. `open` gives an empty store. */
export function mfaFactorRepositoryContract(open: () => Promise<MfaFactorStore>): void {
  describe('MfaFactorRepository contract', () => {
    let factors: MfaFactorRepository;
    let userId: string;
    let newUserId: () => Promise<string>;

    beforeEach(async () => {
      const store = await open();
      factors = store.factors;
      newUserId = () => store.newUserId();
      userId = await newUserId();
    });

    /** A confirmed TOTP factor of `owner`, confirmed with a code of `step`. */
    async function confirmedTotp(owner: string, step: number): Promise<string> {
      const id = factorId();
      await factors.addPendingTotp({ factorId: id, userId: owner, sealedSecret: 'sealed', createdAt: T0 });
      expect(await factors.confirmTotp(owner, id, step, at(10))).toBe(true);
      return id;
    }

    it('knows no factor of a user who has none', async () => {
      expect(await factors.factorsOf(userId)).toEqual({ totp: null, webauthn: [], recoveryCodesLeft: 0 });
    });

    describe('TOTP', () => {
      it('keeps an enrolment pending until confirmed, then remembers the confirming step', async () => {
        const id = factorId();
        expect(
          await factors.addPendingTotp({ factorId: id, userId, sealedSecret: 'sealed-1', createdAt: T0 }),
        ).toBe('added');
        expect((await factors.factorsOf(userId)).totp).toEqual({
          factorId: id,
          userId,
          sealedSecret: 'sealed-1',
          createdAt: T0,
          confirmedAt: null,
          lastAcceptedStep: null,
        });
        expect(await factors.confirmTotp(userId, id, 70_000_000, at(20))).toBe(true);
        expect((await factors.factorsOf(userId)).totp).toMatchObject({
          factorId: id,
          confirmedAt: at(20),
          lastAcceptedStep: 70_000_000,
        });
        // Confirmed once: a second confirmation finds nothing pending.
        expect(await factors.confirmTotp(userId, id, 70_000_001, at(30))).toBe(false);
      });

      it('replaces a pending enrolment started again; the first one can no longer be confirmed', async () => {
        const first = factorId();
        const second = factorId();
        await factors.addPendingTotp({ factorId: first, userId, sealedSecret: 'one', createdAt: T0 });
        expect(
          await factors.addPendingTotp({ factorId: second, userId, sealedSecret: 'two', createdAt: at(5) }),
        ).toBe('added');
        expect(await factors.confirmTotp(userId, first, 1, at(6))).toBe(false);
        expect((await factors.factorsOf(userId)).totp).toMatchObject({
          factorId: second,
          sealedSecret: 'two',
          createdAt: at(5),
        });
        expect(await factors.confirmTotp(userId, second, 1, at(6))).toBe(true);
      });

      it('keeps a confirmed factor when another enrolment is started', async () => {
        const id = await confirmedTotp(userId, 100);
        expect(
          await factors.addPendingTotp({
            factorId: factorId(),
            userId,
            sealedSecret: 'other',
            createdAt: at(60),
          }),
        ).toBe('confirmed_exists');
        expect((await factors.factorsOf(userId)).totp).toMatchObject({
          factorId: id,
          sealedSecret: 'sealed',
        });
      });

      it('confirms only the user’s own pending factor', async () => {
        const other = await newUserId();
        const id = factorId();
        await factors.addPendingTotp({ factorId: id, userId, sealedSecret: 'sealed', createdAt: T0 });
        expect(await factors.confirmTotp(other, id, 1, at(1))).toBe(false);
        expect(await factors.confirmTotp(userId, factorId(), 1, at(1))).toBe(false);
        expect((await factors.factorsOf(userId)).totp?.confirmedAt).toBeNull();
      });

      it('accepts each time step once, and never one older than the last accepted', async () => {
        const id = await confirmedTotp(userId, 100);
        expect(await factors.acceptTotpStep(userId, id, 100)).toBe(false); // the confirming code
        expect(await factors.acceptTotpStep(userId, id, 99)).toBe(false);
        expect(await factors.acceptTotpStep(userId, id, 101)).toBe(true);
        expect(await factors.acceptTotpStep(userId, id, 101)).toBe(false);
        expect(await factors.acceptTotpStep(userId, id, 100)).toBe(false);
        expect(await factors.acceptTotpStep(userId, id, 103)).toBe(true);
        expect((await factors.factorsOf(userId)).totp?.lastAcceptedStep).toBe(103);
      });

      it('accepts no step for a pending, removed, or someone else’s factor', async () => {
        const pending = factorId();
        await factors.addPendingTotp({ factorId: pending, userId, sealedSecret: 'sealed', createdAt: T0 });
        expect(await factors.acceptTotpStep(userId, pending, 5)).toBe(false);

        const other = await newUserId();
        const theirs = await confirmedTotp(other, 100);
        expect(await factors.acceptTotpStep(userId, theirs, 101)).toBe(false);

        expect(await factors.removeTotp(other)).toBe(true);
        expect(await factors.acceptTotpStep(other, theirs, 102)).toBe(false);
        expect(await factors.removeTotp(other)).toBe(false);
        expect((await factors.factorsOf(other)).totp).toBeNull();
      });

      it('accepts a step for exactly one of many concurrent uses of the same code', async () => {
        const id = await confirmedTotp(userId, 100);
        const accepted = await Promise.all(
          Array.from({ length: RACERS }, () => factors.acceptTotpStep(userId, id, 101)),
        );
        expect(accepted.filter(Boolean)).toHaveLength(1);
        expect((await factors.factorsOf(userId)).totp?.lastAcceptedStep).toBe(101);
      });

      it('confirms once among concurrent confirmations', async () => {
        const id = factorId();
        await factors.addPendingTotp({ factorId: id, userId, sealedSecret: 'sealed', createdAt: T0 });
        const confirmed = await Promise.all(
          Array.from({ length: RACERS }, (_, i) => factors.confirmTotp(userId, id, 100 + i, at(10))),
        );
        expect(confirmed.filter(Boolean)).toHaveLength(1);
      });
    });

    describe('recovery codes', () => {
      it('uses each code once, and only the user’s own', async () => {
        const codes = hashes(10);
        await factors.replaceRecoveryCodes(userId, codes, T0);
        expect((await factors.factorsOf(userId)).recoveryCodesLeft).toBe(10);

        expect(await factors.consumeRecoveryCode(userId, codes[3]!)).toBe(true);
        expect(await factors.consumeRecoveryCode(userId, codes[3]!)).toBe(false);
        expect(await factors.consumeRecoveryCode(userId, hashes(1)[0]!)).toBe(false);
        const other = await newUserId();
        expect(await factors.consumeRecoveryCode(other, codes[4]!)).toBe(false);
        expect((await factors.factorsOf(userId)).recoveryCodesLeft).toBe(9);
        expect(await factors.consumeRecoveryCode(userId, codes[4]!)).toBe(true);
      });

      it('kills every earlier code when the set is replaced', async () => {
        const old = hashes(10);
        await factors.replaceRecoveryCodes(userId, old, T0);
        await factors.consumeRecoveryCode(userId, old[0]!);
        const fresh = hashes(10);
        await factors.replaceRecoveryCodes(userId, fresh, at(60));
        expect((await factors.factorsOf(userId)).recoveryCodesLeft).toBe(10);
        for (const code of old) expect(await factors.consumeRecoveryCode(userId, code)).toBe(false);
        expect(await factors.consumeRecoveryCode(userId, fresh[9]!)).toBe(true);
      });

      it('lets exactly one of many concurrent uses of one code through', async () => {
        const codes = hashes(10);
        await factors.replaceRecoveryCodes(userId, codes, T0);
        const used = await Promise.all(
          Array.from({ length: RACERS }, () => factors.consumeRecoveryCode(userId, codes[0]!)),
        );
        expect(used.filter(Boolean)).toHaveLength(1);
        expect((await factors.factorsOf(userId)).recoveryCodesLeft).toBe(9);
      });

      it('loses no use when different codes are used at once', async () => {
        const codes = hashes(10);
        await factors.replaceRecoveryCodes(userId, codes, T0);
        const used = await Promise.all(codes.map((code) => factors.consumeRecoveryCode(userId, code)));
        expect(used).toEqual(codes.map(() => true));
        expect((await factors.factorsOf(userId)).recoveryCodesLeft).toBe(0);
      });

      it('leaves one whole set after concurrent replacements, never a mix', async () => {
        const sets = Array.from({ length: 5 }, () => hashes(10));
        await Promise.all(sets.map((set) => factors.replaceRecoveryCodes(userId, set, T0)));
        expect((await factors.factorsOf(userId)).recoveryCodesLeft).toBe(10);
        const alive = [];
        for (const set of sets) {
          let usable = 0;
          for (const code of set) if (await factors.consumeRecoveryCode(userId, code)) usable += 1;
          alive.push(usable);
        }
        expect(alive.sort()).toEqual([0, 0, 0, 0, 10]);
      });
    });

    describe('WebAuthn credentials', () => {
      it('lists a user’s credentials oldest first, as they were added', async () => {
        const newer = credential(userId, { name: 'Laptop', createdAt: at(60), signCount: 7, transports: [] });
        const older = credential(userId, { lastUsedAt: at(30) });
        expect(await factors.addWebAuthnCredential(newer)).toBe('added');
        expect(await factors.addWebAuthnCredential(older)).toBe('added');
        await factors.addWebAuthnCredential(credential(await newUserId()));
        expect((await factors.factorsOf(userId)).webauthn).toEqual([older, newer]);
      });

      it('refuses a credential id registered already, to anyone', async () => {
        const first = credential(userId);
        await factors.addWebAuthnCredential(first);
        const other = await newUserId();
        expect(
          await factors.addWebAuthnCredential({ ...credential(other), credentialId: first.credentialId }),
        ).toBe('exists');
        expect((await factors.factorsOf(other)).webauthn).toEqual([]);
      });

      it('removes only the user’s own credential', async () => {
        const key = credential(userId);
        await factors.addWebAuthnCredential(key);
        const other = await newUserId();
        expect(await factors.removeWebAuthnCredential(other, key.credentialId)).toBe(false);
        expect((await factors.factorsOf(userId)).webauthn).toHaveLength(1);
        expect(await factors.removeWebAuthnCredential(userId, key.credentialId)).toBe(true);
        expect(await factors.removeWebAuthnCredential(userId, key.credentialId)).toBe(false);
        expect((await factors.factorsOf(userId)).webauthn).toEqual([]);
      });
    });

    describe('WebAuthn uses', () => {
      it('finds a credential by its id, whoever owns it', async () => {
        const key = credential(await newUserId(), { signCount: 3, lastUsedAt: at(5) });
        await factors.addWebAuthnCredential(key);
        expect(await factors.findWebAuthnCredential(key.credentialId)).toEqual(key);
        expect(await factors.findWebAuthnCredential('no-such-credential')).toBeNull();
      });

      it('records a use only while the counter advances (or both counters are zero)', async () => {
        const counting = credential(userId, { signCount: 5 });
        await factors.addWebAuthnCredential(counting);
        expect(await factors.recordWebAuthnUse(counting.credentialId, 5, at(10))).toBe(false);
        expect(await factors.recordWebAuthnUse(counting.credentialId, 4, at(10))).toBe(false);
        expect(await factors.recordWebAuthnUse(counting.credentialId, 0, at(10))).toBe(false);
        expect(await factors.recordWebAuthnUse(counting.credentialId, 6, at(20))).toBe(true);
        expect(await factors.findWebAuthnCredential(counting.credentialId)).toMatchObject({
          signCount: 6,
          lastUsedAt: at(20),
        });
        const counterless = credential(userId);
        await factors.addWebAuthnCredential(counterless);
        expect(await factors.recordWebAuthnUse(counterless.credentialId, 0, at(30))).toBe(true);
        expect(await factors.recordWebAuthnUse(counterless.credentialId, 0, at(40))).toBe(true);
        expect((await factors.findWebAuthnCredential(counterless.credentialId))?.lastUsedAt).toEqual(at(40));
        expect(await factors.recordWebAuthnUse('gone', 1, at(40))).toBe(false);
      });

      it('lets exactly one of many concurrent uses with the same counter through', async () => {
        const key = credential(userId, { signCount: 1 });
        await factors.addWebAuthnCredential(key);
        const results = await Promise.all(
          Array.from({ length: RACERS }, () => factors.recordWebAuthnUse(key.credentialId, 2, at(10))),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('records no use of a removed credential', async () => {
        const key = credential(userId);
        await factors.addWebAuthnCredential(key);
        await factors.removeWebAuthnCredential(userId, key.credentialId);
        expect(await factors.recordWebAuthnUse(key.credentialId, 1, at(10))).toBe(false);
      });
    });

    describe('WebAuthn challenges', () => {
      function challenge(boundTo: string, ceremony: WebAuthnChallenge['ceremony'] = 'registration') {
        return newWebAuthnChallenge(nodeRandom, T0, { ceremony, boundTo });
      }

      it('hands a challenge out once, by ceremony and binding', async () => {
        const given = challenge('session-a');
        await factors.saveWebAuthnChallenge(given);
        expect(await factors.takeWebAuthnChallenge('second_factor', 'session-a')).toBeNull();
        expect(await factors.takeWebAuthnChallenge('registration', 'session-b')).toBeNull();
        expect(await factors.takeWebAuthnChallenge('registration', 'session-a')).toEqual(given);
        expect(await factors.takeWebAuthnChallenge('registration', 'session-a')).toBeNull();
      });

      it('keeps only the latest challenge of a ceremony and binding', async () => {
        await factors.saveWebAuthnChallenge(challenge('attempt', 'passkey_login'));
        const latest = challenge('attempt', 'passkey_login');
        await factors.saveWebAuthnChallenge(latest);
        const other = challenge('attempt', 'second_factor');
        await factors.saveWebAuthnChallenge(other);
        expect((await factors.takeWebAuthnChallenge('passkey_login', 'attempt'))?.value).toBe(latest.value);
        expect((await factors.takeWebAuthnChallenge('second_factor', 'attempt'))?.value).toBe(other.value);
      });

      it('gives a challenge to exactly one of many concurrent takes', async () => {
        await factors.saveWebAuthnChallenge(challenge('raced'));
        const taken = await Promise.all(
          Array.from({ length: RACERS }, () => factors.takeWebAuthnChallenge('registration', 'raced')),
        );
        expect(taken.filter((one) => one !== null)).toHaveLength(1);
      });

      it('purges expired challenges only, at most `limit` at once', async () => {
        for (const owner of ['a', 'b', 'c']) await factors.saveWebAuthnChallenge(challenge(owner));
        const young = newWebAuthnChallenge(nodeRandom, at(600), { ceremony: 'registration', boundTo: 'd' });
        await factors.saveWebAuthnChallenge(young);
        expect(await factors.purgeExpiredWebAuthnChallenges(at(300), 2)).toBe(2);
        expect(await factors.purgeExpiredWebAuthnChallenges(at(300), 10)).toBe(1);
        expect(await factors.purgeExpiredWebAuthnChallenges(at(300), 10)).toBe(0);
        expect(await factors.takeWebAuthnChallenge('registration', 'd')).toEqual(young);
      });
    });

    describe('removing every factor (gatehouse user reset-mfa)', () => {
      it('removes the TOTP factor, every credential and every recovery code of the user, saying what it removed', async () => {
        await confirmedTotp(userId, 100);
        await factors.addWebAuthnCredential(credential(userId));
        await factors.addWebAuthnCredential(credential(userId, { name: 'Laptop' }));
        await factors.replaceRecoveryCodes(userId, hashes(10), T0);
        const other = await newUserId();
        await confirmedTotp(other, 100);
        await factors.addWebAuthnCredential(credential(other));
        await factors.replaceRecoveryCodes(other, hashes(10), T0);

        expect(await factors.removeAllFactors(userId)).toEqual({
          totp: true,
          webauthn: 2,
          recoveryCodes: 10,
        });
        expect(await factors.factorsOf(userId)).toEqual({ totp: null, webauthn: [], recoveryCodesLeft: 0 });
        // Another user's factors stay.
        const kept = await factors.factorsOf(other);
        expect(kept.totp?.confirmedAt).not.toBeNull();
        expect(kept.webauthn).toHaveLength(1);
        expect(kept.recoveryCodesLeft).toBe(10);
      });

      it('removes a pending enrolment too, and says so when there was nothing', async () => {
        await factors.addPendingTotp({ factorId: factorId(), userId, sealedSecret: 'sealed', createdAt: T0 });
        expect(await factors.removeAllFactors(userId)).toEqual({ totp: true, webauthn: 0, recoveryCodes: 0 });
        expect(await factors.removeAllFactors(userId)).toEqual({
          totp: false,
          webauthn: 0,
          recoveryCodes: 0,
        });
        // The user may enrol again afterwards.
        await confirmedTotp(userId, 200);
        expect((await factors.factorsOf(userId)).totp?.lastAcceptedStep).toBe(200);
      });
    });

    it('hands out copies: changing what was read changes nothing stored', async () => {
      const key = credential(userId);
      await factors.addWebAuthnCredential(key);
      await confirmedTotp(userId, 100);
      const read = await factors.factorsOf(userId);
      read.webauthn[0]!.publicKey[0] = (key.publicKey[0]! + 1) % 256;
      read.webauthn[0]!.name = 'changed';
      read.totp!.lastAcceptedStep = 0;
      key.name = 'changed too';
      const again = await factors.factorsOf(userId);
      expect(again.webauthn[0]!.name).toBe('Security key');
      expect(again.webauthn[0]!.publicKey[0]).not.toBe(read.webauthn[0]!.publicKey[0]);
      expect(again.totp!.lastAcceptedStep).toBe(100);
    });
  });
}
