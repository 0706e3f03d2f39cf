-- A registered provider may require its ID tokens to vouch for a second factor (contract 3b):
-- an `amr` naming one, or an `acr` among acr_values. Existing providers require nothing.
ALTER TABLE sso_providers ADD COLUMN require_mfa boolean NOT NULL DEFAULT false;
ALTER TABLE sso_providers ADD COLUMN acr_values text[] NOT NULL DEFAULT '{}'
  CHECK (cardinality(acr_values) <= 10);
