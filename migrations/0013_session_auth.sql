-- How and when each session was made, and whether it still waits for a second factor (issue 28,
-- contract 3b): the record's `auth` (SessionAuth). Nullable, all three together: a row written
-- before this migration has none and reads as its login method says (`sessionAuthOf`), so
-- sessions made before the upgrade keep working. Nothing is filled in here on purpose: a made-up
-- stage or time would be a claim the login never made.
ALTER TABLE sessions
  ADD COLUMN auth_stage   text CHECK (auth_stage IN ('full', 'second_factor', 'enrolment')),
  ADD COLUMN auth_methods text[],
  ADD COLUMN auth_time    timestamptz,
  ADD CONSTRAINT sessions_auth_whole CHECK (
    (auth_stage IS NULL AND auth_methods IS NULL AND auth_time IS NULL)
    OR (auth_stage IS NOT NULL AND auth_methods IS NOT NULL AND auth_time IS NOT NULL));
