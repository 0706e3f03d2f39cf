-- Back-channel logout tokens already honoured (issue 11, finding 10): a replay is refused. A row
-- lives until its token could no longer be accepted (at most LOGOUT_TOKEN_MAX_AGE after its iat).
CREATE TABLE seen_logout_tokens (
  issuer     text        NOT NULL,
  jti        text        NOT NULL CHECK (length(jti) BETWEEN 1 AND 255),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (issuer, jti)
);
CREATE INDEX seen_logout_tokens_expires_at ON seen_logout_tokens (expires_at);
