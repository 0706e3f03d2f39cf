/** A command line that cannot be run as given: exit status 2, code USAGE. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = `Usage: gatehouse <command> [options]

Administers a Gatehouse deployment, with the same configuration (environment variables) as the
service: DATABASE_URL, or the embedded database in DATA_DIR; PASSWORD_MIN_LENGTH; ARGON2_*.

Commands:
  serve                                    start the service, as \`npm start\` does
  migrate                                  apply pending database migrations
  tenant add ID [--name NAME]
  group add ID --tenant ID [--name NAME]
  backend add NAME --external-name X
  user add USERNAME --level N [--tenant ID] [--group ID] [--user-id ID]
      [--first-name X] [--last-name X] [--email X] [--phone X] [--language X]
      [--language-code X] [--platform-type X] [--access-type 0|1|3] [--read-only]
      [--user-type X] [--role X] [--enterprise] [--backend NAME]
      (--password-stdin | --no-password)
  user set-password USERNAME --password-stdin
                                           new password; ends the user's sessions
  user expire USERNAME                     the user's credentials expire now
  user disable USERNAME                    refuses logins; ends the user's sessions
  user enable USERNAME
  user reset-sso USERNAME                  forgets the user's provider account (iss, sub);
                                           ends the user's sessions made through that provider
  user reset-mfa USERNAME                  removes every second factor and recovery code;
                                           ends the user's sessions
  user show USERNAME                       the account and its second factors (no secret)
  sessions list --user USERNAME
  sessions revoke --user USERNAME [--handle HANDLE]
  sessions revoke --all                    ends every session of every user
  audit [--user USERNAME] [--since TIME] [--limit N]
                                           audit events (the user's, or all), oldest first; TIME is an
                                           ISO 8601 date or date-time, or an age (30m, 24h, 7d)
  import FILE.jsonl                        tenants, backends, groups, users; all or nothing
  provider add ID --issuer URL --client-id X --redirect-uri URI [--redirect-uri URI ...]
      --tenant ID [--tenant ID ...]
      [--client-auth client_secret_basic|client_secret_post|private_key_jwt]
      (--client-secret-stdin | --private-key-jwk-stdin) [--interpreter NAME]
      [--username-claim C] [--group-claim C] [--setting NAME=VALUE ...]
      [--setting-stdin NAME ...] [--levels 8,12] [--require-pkce]
      [--id-token-alg RS256|PS256|ES256|EdDSA] [--require-mfa] [--acr-values A,B]
                                           registers a customer's OpenID provider; secrets
                                           are kept encrypted with TOKEN_ENCRYPTION_KEY;
                                           --require-mfa refuses an ID token whose amr names
                                           no second factor and whose acr is not listed
  provider update ID [the options of add; --no-require-pkce; --no-require-mfa;
      --acr-values '' clears them]
                                           changes only the options given; fewer tenants or
                                           levels end the sessions of the users left out
  provider list | show ID | test ID        show no secret; test fetches discovery and keys;
                                           list and show say why this configuration
                                           could not load a provider
  provider disable ID | enable ID | remove ID
                                           disable stops its logins and ends its sessions
                                           (enable brings none back); remove takes a
                                           disabled provider only
  help

Levels and the ids they need:
  0 end user, 4 department admin, 8 group admin   --tenant and --group
  12 tenant admin                                 --tenant
  16 system admin                                 neither

Passwords are read from standard input (one line) or asked for on a terminal, never taken from
the command line. Passwords set here must be changed at the user's first login:
  printf '%s\\n' "$PASSWORD" | gatehouse user add ann --level 0 --tenant t1 --group g1 --password-stdin
--no-password creates an account that can only log in with single sign-on.

A provider's secrets are read from standard input, one line each, in this order: the client
secret or private key (--client-secret-stdin, --private-key-jwk-stdin), then the value of each
--setting-stdin NAME in the order given:
  printf '%s\\n%s\\n' "$CLIENT_SECRET" "$API_TOKEN" | gatehouse provider add acme ... \\
      --client-secret-stdin --setting-stdin API_TOKEN

Import file: one JSON object a line, e.g.
  {"kind":"tenant","id":"t1","name":"Acme"}
  {"kind":"backend","name":"be-par-1","external_name":"Paris Main Server"}
  {"kind":"group","id":"g1","tenant_id":"t1","name":"Sales"}
  {"kind":"user","username":"ann","user_level":0,"tenant_id":"t1","group_id":"g1","password":"..."}
A user line has "password" (the user's own, kept as is) or "password_hash" (argon2id,
Django pbkdf2_sha256, bcrypt $2a$/$2b$), or neither (single sign-on only).

With the embedded database, while the service runs (it holds DATA_DIR), the command has the
service run it, through DATA_DIR/gatehouse.sock, with the service's configuration.

Exit status: 0 done; 1 refused (the error line gives a code such as CONFLICT, NOT_FOUND,
INVALID_REQUEST, PASSWORD_POLICY); 2 usage or configuration error (USAGE, CONFIG).
`;
