-- Change feed: the database itself announces every committed change that a process may cache, so
-- that no write path (a service, the CLI, another server process, psql) can forget to. Triggers call
-- pg_notify on channel `signalbox_changes`; NOTIFY is transactional: delivered at COMMIT, in commit
-- order, never for a rolled-back write (src/db/change-feed.ts listens, src/core caches use it).
-- Payloads (JSON text):
--   {"kind":"revision","project":<id>,"revision":"<n>"}  a project's revision moved (every write to
--                                                         its configuration, see migration project_revision)
--   {"kind":"access"}                                    what authenticates a key changed: a key (other
--                                                         than its hourly `last_used_at`), a user, a
--                                                         membership, a project's own fields
-- Identical notifications of one transaction are delivered once (PostgreSQL folds them).

CREATE FUNCTION change_feed_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('signalbox_changes',
    json_build_object('kind', 'revision', 'project', NEW."id", 'revision', NEW."revision"::text)::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER projects_change_feed_revision AFTER UPDATE ON "projects"
  FOR EACH ROW WHEN (NEW."revision" IS DISTINCT FROM OLD."revision") EXECUTE FUNCTION change_feed_revision();

CREATE FUNCTION change_feed_access() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('signalbox_changes', '{"kind":"access"}');
  RETURN NULL;
END
$$;

-- Projects: created or deleted (a key's organizations gain or lose one), or their own fields changed
-- (the revision alone is announced above).
CREATE TRIGGER projects_change_feed_access AFTER INSERT OR DELETE ON "projects"
  FOR EACH STATEMENT EXECUTE FUNCTION change_feed_access();
CREATE TRIGGER projects_change_feed_access_update AFTER UPDATE ON "projects"
  FOR EACH ROW WHEN ((to_jsonb(OLD) - 'revision') IS DISTINCT FROM (to_jsonb(NEW) - 'revision'))
  EXECUTE FUNCTION change_feed_access();

CREATE TRIGGER users_change_feed_access AFTER INSERT OR UPDATE OR DELETE ON "users"
  FOR EACH STATEMENT EXECUTE FUNCTION change_feed_access();

CREATE TRIGGER organization_memberships_change_feed_access AFTER INSERT OR UPDATE OR DELETE ON "organization_memberships"
  FOR EACH STATEMENT EXECUTE FUNCTION change_feed_access();

-- Keys: a new key is never cached before it exists; a deleted key, or any change but `last_used_at`
-- (authentication moves it at most hourly), is announced.
CREATE TRIGGER personal_api_keys_change_feed_access AFTER DELETE ON "personal_api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION change_feed_access();
CREATE TRIGGER personal_api_keys_change_feed_access_update AFTER UPDATE ON "personal_api_keys"
  FOR EACH ROW WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
  EXECUTE FUNCTION change_feed_access();
