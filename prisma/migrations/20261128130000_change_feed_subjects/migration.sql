-- Change feed: what flag evaluation reads of a subject (a person's properties by distinct id, its
-- static cohorts, its experience-continuity hash keys, a group's properties) announces each change,
-- so that a process may keep subjects it read (src/feature-flags/evaluation/subject-cache.ts) and
-- answer `/flags` for a known person without waiting for the database (issue 24: on the embedded
-- database a statement holds the one session until it ends).
-- Payloads (JSON text), one per changed row and named value; the transaction's id keeps one
-- transaction's payload apart from another's (src/db/change-feed.ts drops repeated copies):
--   {"kind":"subject","transaction":"<xid8>","project":<id>,"person":"<id>"}     a person's row, one of
--                                                  its distinct ids, static cohort memberships or hash keys
--   {"kind":"subject","transaction":"<xid8>","project":<id>,"distinct":"<id>"}   a distinct id was
--                                                  added, moved to another person or removed
--   {"kind":"subject","transaction":"<xid8>","project":<id>,"group":"<index>:<key>"}  a group's row
--   {"kind":"subject","transaction":"<xid8>"}     any of these tables was truncated: anything may have
-- An update announces the row as it was and as it is (a distinct id moved names both persons).

CREATE FUNCTION change_feed_subject(project integer, field text, named text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('signalbox_changes', json_build_object(
    'kind', 'subject', 'transaction', pg_current_xact_id()::text, 'project', project, field, named)::text);
END
$$;

-- persons: the person the row is.
CREATE FUNCTION change_feed_subject_person() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM change_feed_subject(OLD.project_id, 'person', OLD.id::text); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM change_feed_subject(NEW.project_id, 'person', NEW.id::text); END IF;
  RETURN NULL;
END
$$;

-- cohort_people, feature_flag_hash_key_overrides: the person the row belongs to.
CREATE FUNCTION change_feed_subject_person_of() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM change_feed_subject(OLD.project_id, 'person', OLD.person_id::text); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM change_feed_subject(NEW.project_id, 'person', NEW.person_id::text); END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION change_feed_subject_distinct_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM change_feed_subject(OLD.project_id, 'person', OLD.person_id::text);
    PERFORM change_feed_subject(OLD.project_id, 'distinct', OLD.distinct_id);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM change_feed_subject(NEW.project_id, 'person', NEW.person_id::text);
    PERFORM change_feed_subject(NEW.project_id, 'distinct', NEW.distinct_id);
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION change_feed_subject_group() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM change_feed_subject(OLD.project_id, 'group', OLD.group_type_index || ':' || OLD.group_key);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM change_feed_subject(NEW.project_id, 'group', NEW.group_type_index || ':' || NEW.group_key);
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION change_feed_subject_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('signalbox_changes',
    json_build_object('kind', 'subject', 'transaction', pg_current_xact_id()::text)::text);
  RETURN NULL;
END
$$;

-- A person's or a group's row is read for its properties only: an update that leaves them (a version
-- bump, `is_identified`) announces nothing, so capture's steady writes do not empty the cache.
CREATE TRIGGER persons_change_feed_subject AFTER INSERT OR DELETE ON "persons"
  FOR EACH ROW EXECUTE FUNCTION change_feed_subject_person();
CREATE TRIGGER persons_change_feed_subject_update AFTER UPDATE ON "persons"
  FOR EACH ROW WHEN (OLD.properties IS DISTINCT FROM NEW.properties)
  EXECUTE FUNCTION change_feed_subject_person();
CREATE TRIGGER cohort_people_change_feed_subject AFTER INSERT OR UPDATE OR DELETE ON "cohort_people"
  FOR EACH ROW EXECUTE FUNCTION change_feed_subject_person_of();
CREATE TRIGGER feature_flag_hash_key_overrides_change_feed_subject
  AFTER INSERT OR UPDATE OR DELETE ON "feature_flag_hash_key_overrides"
  FOR EACH ROW EXECUTE FUNCTION change_feed_subject_person_of();
CREATE TRIGGER person_distinct_ids_change_feed_subject AFTER INSERT OR UPDATE OR DELETE ON "person_distinct_ids"
  FOR EACH ROW EXECUTE FUNCTION change_feed_subject_distinct_id();
CREATE TRIGGER groups_change_feed_subject AFTER INSERT OR DELETE ON "groups"
  FOR EACH ROW EXECUTE FUNCTION change_feed_subject_group();
CREATE TRIGGER groups_change_feed_subject_update AFTER UPDATE ON "groups"
  FOR EACH ROW WHEN (OLD.group_properties IS DISTINCT FROM NEW.group_properties)
  EXECUTE FUNCTION change_feed_subject_group();

CREATE TRIGGER persons_change_feed_subject_truncate AFTER TRUNCATE ON "persons"
  FOR EACH STATEMENT EXECUTE FUNCTION change_feed_subject_truncate();
CREATE TRIGGER cohort_people_change_feed_subject_truncate AFTER TRUNCATE ON "cohort_people"
  FOR EACH STATEMENT EXECUTE FUNCTION change_feed_subject_truncate();
CREATE TRIGGER feature_flag_hash_key_overrides_change_feed_subject_truncate
  AFTER TRUNCATE ON "feature_flag_hash_key_overrides"
  FOR EACH STATEMENT EXECUTE FUNCTION change_feed_subject_truncate();
CREATE TRIGGER person_distinct_ids_change_feed_subject_truncate AFTER TRUNCATE ON "person_distinct_ids"
  FOR EACH STATEMENT EXECUTE FUNCTION change_feed_subject_truncate();
CREATE TRIGGER groups_change_feed_subject_truncate AFTER TRUNCATE ON "groups"
  FOR EACH STATEMENT EXECUTE FUNCTION change_feed_subject_truncate();
