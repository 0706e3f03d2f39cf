-- The provider account (issuer, sub) a user is bound to (issue 11, finding 6): recorded at the
-- user's first SSO login; a later login for that user with another sub is refused, and one
-- provider account cannot be bound to two users. `gatehouse user reset-sso` clears it.
ALTER TABLE users
  ADD COLUMN sso_issuer text CHECK (length(sso_issuer) BETWEEN 1 AND 2048),
  ADD COLUMN sso_subject text CHECK (length(sso_subject) BETWEEN 1 AND 255),
  ADD CONSTRAINT users_sso_identity_whole CHECK ((sso_issuer IS NULL) = (sso_subject IS NULL));
CREATE UNIQUE INDEX users_sso_identity ON users (sso_issuer, sso_subject) WHERE sso_issuer IS NOT NULL;
