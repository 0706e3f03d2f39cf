-- WebAuthn challenges (contract 3b): one per ceremony and binding (the session's token hash, or
-- the hash of a passkey-login cookie), good for 5 minutes, taken out by the one verification that
-- uses it (DELETE ... RETURNING: a challenge is never used twice, on any instance).
CREATE TABLE webauthn_challenges (
  ceremony   text        NOT NULL CHECK (ceremony IN ('registration', 'second_factor', 'passkey_login')),
  bound_to   text        NOT NULL CHECK (length(bound_to) BETWEEN 1 AND 128),
  value      text        NOT NULL CHECK (length(value) BETWEEN 1 AND 128),
  issued_at  timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (bound_to, ceremony)
);
-- The purge deletes by age.
CREATE INDEX webauthn_challenges_expires_idx ON webauthn_challenges (expires_at);
