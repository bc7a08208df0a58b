-- Change feed: an `access` change names what changed, so that a process re-checks only the open
-- streams (GraphQL subscriptions, definitions streams) of that key, user or project, and forgets only
-- that project's token, instead of everything on every change (src/core/auth/open-streams.ts,
-- src/core/auth/project-token.ts).
-- Payloads (JSON text), replacing migration change_feed_access_once's bare one:
--   {"kind":"access","transaction":"<xid8>","key":"<id>"}      a key changed (but its hourly
--                                                              `last_used_at`) or was deleted
--   {"kind":"access","transaction":"<xid8>","user":<id>}       a user was added, changed or deleted, or
--                                                              a membership of theirs was
--   {"kind":"access","transaction":"<xid8>","project":<id>}    a project was created or deleted, or its
--                                                              own fields changed (its token rotated,
--                                                              its organization, its name; not `revision`)
-- The triggers are per row now (they were per statement): a statement touching n rows announces n
-- changes. An update announces the row as it was and as it is (a membership moved to another user
-- names both); PostgreSQL folds one transaction's identical payloads, so each (transaction, row) is
-- heard once, and the payload stays unique per transaction (the process's copies are dropped by it).

CREATE OR REPLACE FUNCTION change_feed_access() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- TG_ARGV[0]: the payload's field (`key`, `user`, `project`); TG_ARGV[1]: the row's column naming it.
  field text := TG_ARGV[0];
  named text := TG_ARGV[1];
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('signalbox_changes', json_build_object(
      'kind', 'access', 'transaction', pg_current_xact_id()::text, field, to_jsonb(OLD) -> named)::text);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('signalbox_changes', json_build_object(
      'kind', 'access', 'transaction', pg_current_xact_id()::text, field, to_jsonb(NEW) -> named)::text);
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER projects_change_feed_access ON "projects";
DROP TRIGGER projects_change_feed_access_update ON "projects";
DROP TRIGGER users_change_feed_access ON "users";
DROP TRIGGER organization_memberships_change_feed_access ON "organization_memberships";
DROP TRIGGER personal_api_keys_change_feed_access ON "personal_api_keys";
DROP TRIGGER personal_api_keys_change_feed_access_update ON "personal_api_keys";

CREATE TRIGGER projects_change_feed_access AFTER INSERT OR DELETE ON "projects"
  FOR EACH ROW EXECUTE FUNCTION change_feed_access('project', 'id');
CREATE TRIGGER projects_change_feed_access_update AFTER UPDATE ON "projects"
  FOR EACH ROW WHEN ((to_jsonb(OLD) - 'revision') IS DISTINCT FROM (to_jsonb(NEW) - 'revision'))
  EXECUTE FUNCTION change_feed_access('project', 'id');

CREATE TRIGGER users_change_feed_access AFTER INSERT OR UPDATE OR DELETE ON "users"
  FOR EACH ROW EXECUTE FUNCTION change_feed_access('user', 'id');

CREATE TRIGGER organization_memberships_change_feed_access
  AFTER INSERT OR UPDATE OR DELETE ON "organization_memberships"
  FOR EACH ROW EXECUTE FUNCTION change_feed_access('user', 'user_id');

CREATE TRIGGER personal_api_keys_change_feed_access AFTER DELETE ON "personal_api_keys"
  FOR EACH ROW EXECUTE FUNCTION change_feed_access('key', 'id');
CREATE TRIGGER personal_api_keys_change_feed_access_update AFTER UPDATE ON "personal_api_keys"
  FOR EACH ROW WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
  EXECUTE FUNCTION change_feed_access('key', 'id');
