-- Audit trail (ASVS 16.x, OWASP logging cheat sheet: log session creation, renewal, destruction).
-- Rows are written by the use cases in the same transaction as the change they record, so a
-- committed change always has its row and a rolled-back one never does.
--
-- Never stored here: passwords, cookie values or their hashes, provider tokens. A session is
-- named by its opaque `handle` only (the one users see in GET /api/v1/sessions/).
-- No foreign keys: the trail must outlive the users and sessions it speaks of, and an insert
-- must never wait on a lock of the users table.

CREATE TABLE audit_events (
  id              bigserial PRIMARY KEY,
  occurred_at     timestamptz NOT NULL,
  event           text NOT NULL CHECK (length(event) BETWEEN 1 AND 64),
  outcome         text NOT NULL CHECK (outcome IN ('success', 'failure')),
  -- A reason code (e.g. bad_password, administrator), never free text.
  reason          text CHECK (length(reason) <= 64),
  user_id         text,
  -- The account's own username, only when the event concerns an existing account.
  username        text,
  -- Who caused it: user, administrator, provider (back-channel) or system.
  actor           text NOT NULL CHECK (actor IN ('user', 'administrator', 'provider', 'system')),
  session_handle  text,
  -- Sessions ended by this event (revocations that end several at once).
  session_count   integer CHECK (session_count >= 0),
  client_address  text,
  method          text CHECK (method IN ('password', 'sso'))
);

CREATE INDEX audit_events_user_idx ON audit_events (user_id, occurred_at);
CREATE INDEX audit_events_occurred_idx ON audit_events (occurred_at);
