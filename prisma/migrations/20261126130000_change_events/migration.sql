-- Change events: every activity-log entry (every service write to flags, experiments, endpoints,
-- event definitions, cohorts, ... writes one in its transaction, src/core/activity-log.ts) is
-- announced on the change feed's channel `signalbox_changes` with what changed, in which project, at
-- which revision and by whom (src/db/change-feed.ts parses it; GraphQL subscriptions and the
-- definitions stream deliver it). Ids only: NOTIFY payloads are limited to 8000 bytes, and listeners
-- read the objects themselves. NOTIFY is transactional: nothing is heard of a rolled-back write.
-- Payload (JSON text):
--   {"kind":"change","project":<id>,"revision":"<n>","scope":"FeatureFlag","item":"<item_id>",
--    "activity":"updated","user":<user id or null>,"key":"<flag key, FeatureFlag entries only, else null>"}
--
-- A deferred constraint trigger, as the revision triggers (migration project_revision): it runs at
-- COMMIT, after the transaction's other writes, so the revision it announces is the one the
-- transaction commits. It bumps the revision itself first (once per project and transaction, a no-op
-- when another trigger already did) so the order of deferred triggers cannot matter.

CREATE FUNCTION change_feed_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  committed_revision bigint;
  flag_key text;
BEGIN
  PERFORM project_revision_bump_once(NEW."project_id");
  SELECT "revision" INTO committed_revision FROM "projects" WHERE "id" = NEW."project_id";
  IF committed_revision IS NULL THEN
    -- The project itself was deleted in this transaction: `access` announces it.
    RETURN NULL;
  END IF;
  IF NEW."scope" = 'FeatureFlag' AND NEW."item_id" ~ '^[0-9]{1,9}$' THEN
    SELECT "key" INTO flag_key FROM "feature_flags"
      WHERE "id" = NEW."item_id"::integer AND "project_id" = NEW."project_id";
  END IF;
  PERFORM pg_notify('signalbox_changes', json_build_object(
    'kind', 'change',
    'project', NEW."project_id",
    'revision', committed_revision::text,
    'scope', NEW."scope",
    'item', NEW."item_id",
    'activity', NEW."activity",
    'user', NEW."user_id",
    'key', flag_key)::text);
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER "activity_logs_change_event" AFTER INSERT ON "activity_logs"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION change_feed_event();
