import type { UserFactors, WebAuthnCredential } from '../../domain/mfa/mfa-factor.js';
import type {
  MfaFactorRepository,
  NewTotpEnrolment,
  RemovedFactors,
} from '../../domain/mfa/mfa-factor-repository.port.js';
import type { WebAuthnCeremony, WebAuthnChallenge } from '../../domain/mfa/webauthn-challenge.js';
import type { SqlExecutor } from './sql-client.js';

interface ChallengeRow {
  ceremony: WebAuthnCeremony;
  bound_to: string;
  value: string;
  issued_at: Date;
  expires_at: Date;
}

/**
 * A user's factors in one statement: a row per factor, each table's columns in the shared ones
 * that fit them (typed, so no JSON round trip), WebAuthn credentials in the order they were added.
 */
const FACTORS_OF = `
  SELECT 'totp' AS kind, factor_id AS id, secret_sealed AS text, created_at, confirmed_at,
         last_step AS n, NULL::bytea AS public_key, NULL::text[] AS transports,
         NULL::timestamptz AS last_used_at
    FROM mfa_totp_factors WHERE user_id = $1
  UNION ALL
  SELECT 'webauthn', credential_id, name, created_at, NULL, sign_count, public_key, transports,
         last_used_at
    FROM mfa_webauthn_credentials WHERE user_id = $1
  UNION ALL
  SELECT 'codes', NULL, NULL, NULL, NULL, cardinality(code_hashes)::bigint, NULL, NULL, NULL
    FROM mfa_recovery_codes WHERE user_id = $1
  ORDER BY kind, created_at, id`;

interface FactorRow {
  kind: 'totp' | 'webauthn' | 'codes';
  id: string | null;
  /** The TOTP factor's sealed secret, or the credential's name. */
  text: string | null;
  created_at: Date | null;
  confirmed_at: Date | null;
  /** bigint: the TOTP's last step, the credential's counter, the codes left. */
  n: string | number | bigint | null;
  public_key: Uint8Array | null;
  transports: string[] | null;
  last_used_at: Date | null;
}

interface WebAuthnRow {
  credential_id: string;
  user_id: string;
  name: string;
  public_key: Uint8Array;
  sign_count: string | number | bigint;
  transports: string[];
  created_at: Date;
  last_used_at: Date | null;
}

/**
 * `mfa_totp_factors`, `mfa_webauthn_credentials`, `mfa_recovery_codes` (migration 0012) and
 * `webauthn_challenges` (migration 0014). Each
 * method is one statement, so it is atomic alone and joins a caller's transaction when given one.
 * The decisions that must hold under concurrency ("only if newer", "only if still there") are
 * WHERE clauses of one UPDATE: PostgreSQL re-checks them on the row a concurrent writer left
 * (READ COMMITTED's re-evaluation after the row lock), so exactly one racer wins.
 */
export class SqlMfaFactorRepository implements MfaFactorRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async factorsOf(userId: string): Promise<UserFactors> {
    // One statement for the three tables: every password login reads this (while argon2 runs), and
    // each statement costs a round trip plus both sides' CPU; it also holds in a unit of work, whose
    // one connection takes one query at a time.
    const { rows } = await this.sql.query<FactorRow>(FACTORS_OF, [userId], 'mfa_factors_of');
    const factors: UserFactors = { totp: null, webauthn: [], recoveryCodesLeft: 0 };
    for (const row of rows) {
      if (row.kind === 'codes') factors.recoveryCodesLeft = Number(row.n);
      else if (row.kind === 'webauthn') {
        factors.webauthn.push(
          credentialFromRow({
            credential_id: row.id!,
            user_id: userId,
            name: row.text!,
            public_key: row.public_key!,
            sign_count: row.n!,
            transports: row.transports!,
            created_at: row.created_at!,
            last_used_at: row.last_used_at,
          }),
        );
      } else {
        factors.totp = {
          factorId: row.id!,
          userId,
          sealedSecret: row.text!,
          createdAt: row.created_at!,
          confirmedAt: row.confirmed_at,
          lastAcceptedStep: row.n === null ? null : Number(row.n),
        };
      }
    }
    return factors;
  }

  async addPendingTotp(enrolment: NewTotpEnrolment): Promise<'added' | 'confirmed_exists'> {
    // A pending row is replaced (an enrolment started again); a confirmed one is left alone.
    const { rowCount } = await this.sql.query(
      `INSERT INTO mfa_totp_factors AS f (user_id, factor_id, secret_sealed, created_at)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id) DO UPDATE
         SET factor_id = EXCLUDED.factor_id, secret_sealed = EXCLUDED.secret_sealed,
             created_at = EXCLUDED.created_at, last_step = NULL
         WHERE f.confirmed_at IS NULL
       RETURNING 1`,
      [enrolment.userId, enrolment.factorId, enrolment.sealedSecret, enrolment.createdAt],
    );
    return rowCount === 1 ? 'added' : 'confirmed_exists';
  }

  async confirmTotp(userId: string, factorId: string, step: number, now: Date): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      `UPDATE mfa_totp_factors SET confirmed_at = $4, last_step = $3
        WHERE user_id = $1 AND factor_id = $2 AND confirmed_at IS NULL
       RETURNING 1`,
      [userId, factorId, step, now],
    );
    return rowCount === 1;
  }

  async acceptTotpStep(userId: string, factorId: string, step: number): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      `UPDATE mfa_totp_factors SET last_step = $3
        WHERE user_id = $1 AND factor_id = $2 AND confirmed_at IS NOT NULL
          AND (last_step IS NULL OR last_step < $3)
       RETURNING 1`,
      [userId, factorId, step],
      'mfa_accept_totp_step',
    );
    return rowCount === 1;
  }

  async removeTotp(userId: string): Promise<boolean> {
    const { rowCount } = await this.sql.query('DELETE FROM mfa_totp_factors WHERE user_id = $1', [userId]);
    return rowCount > 0;
  }

  async addWebAuthnCredential(credential: WebAuthnCredential): Promise<'added' | 'exists'> {
    const { rowCount } = await this.sql.query(
      `INSERT INTO mfa_webauthn_credentials
         (credential_id, user_id, name, public_key, sign_count, transports, created_at, last_used_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (credential_id) DO NOTHING
       RETURNING 1`,
      [
        credential.credentialId,
        credential.userId,
        credential.name,
        Buffer.from(credential.publicKey),
        credential.signCount,
        [...credential.transports],
        credential.createdAt,
        credential.lastUsedAt,
      ],
    );
    return rowCount === 1 ? 'added' : 'exists';
  }

  async removeWebAuthnCredential(userId: string, credentialId: string): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      'DELETE FROM mfa_webauthn_credentials WHERE user_id = $1 AND credential_id = $2',
      [userId, credentialId],
    );
    return rowCount > 0;
  }

  async findWebAuthnCredential(credentialId: string): Promise<WebAuthnCredential | null> {
    const { rows } = await this.sql.query<WebAuthnRow>(
      `SELECT credential_id, user_id, name, public_key, sign_count, transports, created_at, last_used_at
         FROM mfa_webauthn_credentials WHERE credential_id = $1`,
      [credentialId],
    );
    return rows[0] ? credentialFromRow(rows[0]) : null;
  }

  async recordWebAuthnUse(credentialId: string, presentedSignCount: number, now: Date): Promise<boolean> {
    // signCountAccepted as a WHERE clause, re-checked on the row a concurrent use left.
    const { rowCount } = await this.sql.query(
      `UPDATE mfa_webauthn_credentials SET sign_count = $2, last_used_at = $3
        WHERE credential_id = $1 AND ((sign_count = 0 AND $2 = 0) OR sign_count < $2)
       RETURNING 1`,
      [credentialId, presentedSignCount, now],
      'mfa_record_webauthn_use',
    );
    return rowCount === 1;
  }

  async saveWebAuthnChallenge(challenge: WebAuthnChallenge): Promise<void> {
    await this.sql.query(
      `INSERT INTO webauthn_challenges (ceremony, bound_to, value, issued_at, expires_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (bound_to, ceremony) DO UPDATE
         SET value = EXCLUDED.value, issued_at = EXCLUDED.issued_at, expires_at = EXCLUDED.expires_at`,
      [challenge.ceremony, challenge.boundTo, challenge.value, challenge.issuedAt, challenge.expiresAt],
    );
  }

  async takeWebAuthnChallenge(
    ceremony: WebAuthnCeremony,
    boundTo: string,
  ): Promise<WebAuthnChallenge | null> {
    const { rows } = await this.sql.query<ChallengeRow>(
      `DELETE FROM webauthn_challenges WHERE bound_to = $1 AND ceremony = $2
       RETURNING ceremony, bound_to, value, issued_at, expires_at`,
      [boundTo, ceremony],
    );
    const row = rows[0];
    return row
      ? {
          value: row.value,
          ceremony: row.ceremony,
          boundTo: row.bound_to,
          issuedAt: row.issued_at,
          expiresAt: row.expires_at,
          usedAt: null,
        }
      : null;
  }

  async purgeExpiredWebAuthnChallenges(now: Date, limit: number): Promise<number> {
    const { rowCount } = await this.sql.query(
      `DELETE FROM webauthn_challenges WHERE ctid IN (
         SELECT ctid FROM webauthn_challenges WHERE expires_at <= $1 LIMIT $2)`,
      [now, limit],
    );
    return rowCount;
  }

  async replaceRecoveryCodes(userId: string, codeHashes: readonly string[], now: Date): Promise<void> {
    await this.sql.query(
      `INSERT INTO mfa_recovery_codes (user_id, code_hashes, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET code_hashes = EXCLUDED.code_hashes, created_at = EXCLUDED.created_at`,
      [userId, [...codeHashes], now],
    );
  }

  async consumeRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      `UPDATE mfa_recovery_codes SET code_hashes = array_remove(code_hashes, $2)
        WHERE user_id = $1 AND $2 = ANY (code_hashes)
       RETURNING 1`,
      [userId, codeHash],
      'mfa_consume_recovery_code',
    );
    return rowCount === 1;
  }

  async removeAllFactors(userId: string): Promise<RemovedFactors> {
    // One statement (data-modifying CTEs share one snapshot): all three go together, in the
    // caller's transaction or alone, and no factor added meanwhile survives half a reset.
    const { rows } = await this.sql.query<{ totp: number; webauthn: number; codes: number }>(
      `WITH totp AS (DELETE FROM mfa_totp_factors WHERE user_id = $1 RETURNING 1),
            webauthn AS (DELETE FROM mfa_webauthn_credentials WHERE user_id = $1 RETURNING 1),
            codes AS (DELETE FROM mfa_recovery_codes WHERE user_id = $1 RETURNING cardinality(code_hashes) AS n)
       SELECT (SELECT count(*) FROM totp)::int AS totp,
              (SELECT count(*) FROM webauthn)::int AS webauthn,
              (SELECT coalesce(sum(n), 0) FROM codes)::int AS codes`,
      [userId],
    );
    const row = rows[0];
    return {
      totp: Number(row?.totp ?? 0) > 0,
      webauthn: Number(row?.webauthn ?? 0),
      recoveryCodes: Number(row?.codes ?? 0),
    };
  }
}

function credentialFromRow(row: WebAuthnRow): WebAuthnCredential {
  return {
    credentialId: row.credential_id,
    userId: row.user_id,
    name: row.name,
    publicKey: new Uint8Array(row.public_key),
    signCount: Number(row.sign_count),
    transports: row.transports,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}
