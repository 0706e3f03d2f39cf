-- Customers' OpenID providers (contract 6a), managed with `gatehouse provider ...`. Secrets (client
-- secret, private key, interpreter settings) are one sealed value, encrypted with
-- TOKEN_ENCRYPTION_KEY and bound to the provider's id, so a row copied under another id opens to
-- nothing. A redirect URI belongs to one provider: the primary key of its own table says so.
CREATE TABLE sso_providers (
  id              text        PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,62}$' AND id <> 'default'),
  issuer          text        NOT NULL CHECK (length(issuer) BETWEEN 1 AND 2048),
  client_id       text        NOT NULL CHECK (length(client_id) BETWEEN 1 AND 255),
  client_auth     text        NOT NULL CHECK (client_auth IN ('client_secret_basic', 'client_secret_post', 'private_key_jwt')),
  interpreter     text        NOT NULL CHECK (length(interpreter) BETWEEN 1 AND 63),
  username_claim  text        CHECK (length(username_claim) BETWEEN 1 AND 255),
  group_claim     text        CHECK (length(group_claim) BETWEEN 1 AND 255),
  levels          smallint[]  NOT NULL CHECK (cardinality(levels) > 0 AND levels <@ ARRAY[0, 4, 8, 12]::smallint[]),
  require_pkce    boolean     NOT NULL,
  id_token_alg    text        NOT NULL CHECK (id_token_alg IN ('RS256', 'PS256', 'ES256', 'EdDSA')),
  enabled         boolean     NOT NULL DEFAULT true,
  sealed_secrets  text        NOT NULL,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);

CREATE TABLE sso_provider_redirect_uris (
  uri          text PRIMARY KEY CHECK (length(uri) BETWEEN 1 AND 2048),
  provider_id  text NOT NULL REFERENCES sso_providers (id) ON DELETE CASCADE,
  position     smallint NOT NULL
);
CREATE INDEX sso_provider_redirect_uris_provider ON sso_provider_redirect_uris (provider_id);

CREATE TABLE sso_provider_tenants (
  provider_id  text NOT NULL REFERENCES sso_providers (id) ON DELETE CASCADE,
  tenant_id    text NOT NULL REFERENCES tenants (id),
  PRIMARY KEY (provider_id, tenant_id)
);

-- Moved on by every registry write, in the same transaction: instances poll this one row to learn
-- of a change (a cheap primary-key read), then reload the registry.
CREATE TABLE sso_provider_registry_version (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version    bigint  NOT NULL
);
INSERT INTO sso_provider_registry_version (singleton, version) VALUES (true, 0);

-- Registry changes are audited with the provider they concern (`gatehouse audit --since` shows them);
-- later, SSO events name the provider that made them.
ALTER TABLE audit_events ADD COLUMN provider_id text CHECK (length(provider_id) BETWEEN 1 AND 63);
