-- When each registered provider was last enabled (added, or enabled again after a disable). An SSO
-- session made through a provider before that moment is refused: one a disable or a remove failed
-- to end (a store that lost the deletion, a login in flight while the provider was disabled, a
-- provider removed and added again under the same id) can never revive.
ALTER TABLE sso_providers ADD COLUMN enabled_since timestamptz;
UPDATE sso_providers SET enabled_since = created_at;
ALTER TABLE sso_providers ALTER COLUMN enabled_since SET NOT NULL;
