-- After 0003's data step has filled `username_key` for every row: the canonical form is the
-- unique one, and the lookups use it instead of lower(username).
ALTER TABLE users ALTER COLUMN username_key SET NOT NULL;
CREATE UNIQUE INDEX users_username_key ON users (username_key);
CREATE INDEX users_group_username_key_idx ON users (group_id, username_key);
DROP INDEX users_username_lower_key;
DROP INDEX users_group_username_idx;
