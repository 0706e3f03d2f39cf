-- One canonical username (issue 11, finding 2). `username` keeps what was typed (it is shown);
-- `username_key` is its canonical form (Unicode NFKC with full case folding), under which two
-- usernames are one account: for the lookup, the uniqueness, the throttle and the SSO match.
-- SQL's lower() depends on the locale and folds fewer letters, so the service computes the key:
-- this migration's data step (src/adapters/sql/migration-steps/canonical-usernames.ts) fills it
-- for existing rows in the same transaction, and refuses to go on if two rows clash.
ALTER TABLE users ADD COLUMN username_key text;
