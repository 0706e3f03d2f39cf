-- Secrets the service makes for itself and every instance must share (issue 11, finding 4: the
-- key that signs device proofs). The first instance that needs one stores it; the others read it.
CREATE TABLE service_secrets (
  name       text        PRIMARY KEY,
  secret     bytea       NOT NULL CHECK (length(secret) >= 32),
  created_at timestamptz NOT NULL DEFAULT now()
);
