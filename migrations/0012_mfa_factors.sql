-- Second factors (issue 28, contract 3b). Nothing here is a secret in clear: the TOTP secret is
-- sealed with TOKEN_ENCRYPTION_KEY, recovery codes are keyed hashes, WebAuthn keeps public keys.

-- One authenticator app per user, pending until a code confirms it. last_step is the last time
-- step a code was accepted for: a code of that step or an earlier one is a replay.
CREATE TABLE mfa_totp_factors (
  user_id       text        PRIMARY KEY REFERENCES users (user_id) ON DELETE CASCADE,
  factor_id     text        NOT NULL UNIQUE CHECK (length(factor_id) BETWEEN 1 AND 64),
  secret_sealed text        NOT NULL,
  created_at    timestamptz NOT NULL,
  confirmed_at  timestamptz,
  last_step     bigint      CHECK (last_step >= 0)
);

-- Passkeys and security keys: the public key and the signature counter.
CREATE TABLE mfa_webauthn_credentials (
  credential_id text        PRIMARY KEY CHECK (length(credential_id) BETWEEN 1 AND 1400),
  user_id       text        NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  name          text        NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  public_key    bytea       NOT NULL,
  sign_count    bigint      NOT NULL DEFAULT 0 CHECK (sign_count >= 0),
  transports    text[]      NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL,
  last_used_at  timestamptz
);
CREATE INDEX mfa_webauthn_credentials_user_idx ON mfa_webauthn_credentials (user_id);

-- A user's recovery codes as one row: replacing the set is one upsert (concurrent replacements
-- leave one whole set, never a mix), using a code is one UPDATE that removes its hash under the
-- row's lock (of concurrent uses of one code, exactly one finds it still there).
CREATE TABLE mfa_recovery_codes (
  user_id     text        PRIMARY KEY REFERENCES users (user_id) ON DELETE CASCADE,
  code_hashes text[]      NOT NULL CHECK (cardinality(code_hashes) <= 20),
  created_at  timestamptz NOT NULL
);
