-- Per-customer providers (contract 6a): a user's provider account binding and an SSO session both
-- name the provider they came through, so identities are namespaced by provider (two providers may
-- share an issuer) and a provider's sessions can be told apart. Existing bindings and sessions came
-- through the environment's provider, `default`.
ALTER TABLE users ADD COLUMN sso_provider text CHECK (length(sso_provider) BETWEEN 1 AND 63);
UPDATE users SET sso_provider = 'default' WHERE sso_issuer IS NOT NULL;
ALTER TABLE users
  DROP CONSTRAINT users_sso_identity_whole,
  ADD CONSTRAINT users_sso_identity_whole
    CHECK ((sso_issuer IS NULL) = (sso_subject IS NULL) AND (sso_issuer IS NULL) = (sso_provider IS NULL));
DROP INDEX users_sso_identity;
CREATE UNIQUE INDEX users_sso_identity ON users (sso_provider, sso_issuer, sso_subject) WHERE sso_issuer IS NOT NULL;

ALTER TABLE sessions ADD COLUMN sso_provider text CHECK (length(sso_provider) BETWEEN 1 AND 63);
UPDATE sessions SET sso_provider = 'default' WHERE sso_issuer IS NOT NULL;
DROP INDEX sessions_sso_sid_idx;
DROP INDEX sessions_sso_subject_idx;
CREATE INDEX sessions_sso_sid_idx ON sessions (sso_provider, sso_issuer, sso_sid) WHERE sso_sid IS NOT NULL;
CREATE INDEX sessions_sso_subject_idx ON sessions (sso_provider, sso_issuer, sso_subject) WHERE sso_subject IS NOT NULL;
