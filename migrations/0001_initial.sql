-- Gatehouse initial schema. Runs on PostgreSQL 15 and on embedded PGlite (PostgreSQL 18).
-- Times are timestamptz and always passed in by the application's clock.

CREATE TABLE tenants (
  id          text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
  name        text,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE groups (
  id          text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
  tenant_id   text NOT NULL REFERENCES tenants (id),
  name        text,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Main application servers ("backends") hosting users.
CREATE TABLE backends (
  name           text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 200),
  external_name  text,
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  user_id                text PRIMARY KEY CHECK (length(user_id) BETWEEN 1 AND 200),
  username               text NOT NULL CHECK (length(username) BETWEEN 1 AND 200),
  user_level             integer NOT NULL CHECK (user_level IN (0, 4, 8, 12, 16)),
  tenant_id              text REFERENCES tenants (id),
  group_id               text REFERENCES groups (id),
  backend_name           text REFERENCES backends (name),
  platform_type          text,
  first_name             text,
  last_name              text,
  language               text,
  language_code          text,
  email_address          text,
  access_type            integer CHECK (access_type IN (0, 1, 3)),
  read_only              boolean,
  user_type              text,
  phone_number           text,
  role                   text,
  is_enterprise          boolean,
  password_hash          text,
  password_changed_at    timestamptz,
  must_change_password   boolean NOT NULL DEFAULT false,
  credentials_expire_at  timestamptz,
  first_login_at         timestamptz,
  disabled               boolean NOT NULL DEFAULT false,
  created_at             timestamptz NOT NULL
);

-- Usernames are unique case-insensitively.
CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username));
CREATE INDEX users_group_username_idx ON users (group_id, lower(username));

CREATE TABLE sessions (
  token_hash            text PRIMARY KEY,          -- SHA-256 of the cookie value, hex
  handle                text NOT NULL UNIQUE,      -- opaque id for listing; not the cookie
  user_id               text NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  method                text NOT NULL CHECK (method IN ('password', 'sso')),
  created_at            timestamptz NOT NULL,
  last_seen_at          timestamptz NOT NULL,
  expires_at            timestamptz NOT NULL,
  client_address        text,
  user_agent            text,
  sso_issuer            text,
  sso_subject           text,
  sso_sid               text,
  sso_id_token          text,
  sso_access_token      text,                      -- sealed (AES-256-GCM)
  sso_refresh_token     text                       -- sealed (AES-256-GCM)
);

CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);
CREATE INDEX sessions_last_seen_idx ON sessions (last_seen_at);
CREATE INDEX sessions_sso_sid_idx ON sessions (sso_issuer, sso_sid) WHERE sso_sid IS NOT NULL;
CREATE INDEX sessions_sso_subject_idx ON sessions (sso_issuer, sso_subject) WHERE sso_subject IS NOT NULL;

-- Login throttling counters shared by every instance. Keys: "user:<lower username>", "addr:<ip>".
CREATE TABLE login_throttle (
  key            text PRIMARY KEY,
  failures       integer NOT NULL,
  window_start   timestamptz NOT NULL,
  blocked_until  timestamptz,
  updated_at     timestamptz NOT NULL
);

CREATE INDEX login_throttle_updated_idx ON login_throttle (updated_at);
