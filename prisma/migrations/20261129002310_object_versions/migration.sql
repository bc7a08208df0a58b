-- Version history (issue 27): every create and update of a feature flag or an experiment keeps the
-- whole object as a numbered version (src/core/object-versions.ts). Configuration, tracked by the
-- project's revision like the objects it records.

-- CreateTable
CREATE TABLE "object_versions" (
    "project_id" INTEGER NOT NULL,
    "scope" VARCHAR(79) NOT NULL,
    "item_id" VARCHAR(72) NOT NULL,
    "version" INTEGER NOT NULL,
    "activity" VARCHAR(79) NOT NULL,
    "restored_from" INTEGER,
    "snapshot" JSONB NOT NULL,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "object_versions_pkey" PRIMARY KEY ("project_id","scope","item_id","version")
);

-- CreateIndex
CREATE INDEX "object_versions_created_by_id_idx" ON "object_versions"("created_by_id");

-- AddForeignKey
ALTER TABLE "object_versions" ADD CONSTRAINT "object_versions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "object_versions" ADD CONSTRAINT "object_versions_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

SELECT project_revision_track('"object_versions"');

-- The objects that exist now start their history at the state they are in: a flag at its own
-- `version`, an experiment at 1, by their last modifier, at their last change. Snapshots carry the
-- fields the writers' `snapshot` functions record (feature-flags.writes.ts, experiments.writes.ts),
-- date-times as DRF writes them (src/rest/date-time.ts).
CREATE FUNCTION pg_temp.drf_date_time(t TIMESTAMPTZ) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN t IS NULL THEN NULL
    ELSE to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
      || CASE WHEN (extract(microseconds FROM t)::bigint % 1000000) / 1000 = 0 THEN 'Z'
              ELSE '.' || to_char(t AT TIME ZONE 'UTC', 'MS') || '000Z' END
  END
$$;

INSERT INTO "object_versions" ("project_id", "scope", "item_id", "version", "activity", "snapshot", "created_by_id", "created_at")
SELECT f.project_id, 'FeatureFlag', f.id::text, f.version,
  CASE WHEN f.version = 1 THEN 'created' ELSE 'updated' END,
  jsonb_build_object(
    'name', f.name,
    'key', f.key,
    'filters', f.filters,
    'rollout_percentage', f.rollout_percentage,
    'deleted', f.deleted,
    'active', f.active,
    'rollback_conditions', f.rollback_conditions,
    'performed_rollback', f.performed_rollback,
    'ensure_experience_continuity', f.ensure_experience_continuity,
    'usage_dashboard', f.usage_dashboard_id,
    'has_enriched_analytics', f.has_enriched_analytics,
    'is_remote_configuration', f.is_remote_configuration,
    'has_encrypted_payloads', f.has_encrypted_payloads,
    'evaluation_runtime', f.evaluation_runtime::text,
    'bucketing_identifier', f.bucketing_identifier::text,
    'tags', to_jsonb(ARRAY(SELECT t.name FROM feature_flag_tags ft JOIN tags t ON t.id = ft.tag_id
      WHERE ft.feature_flag_id = f.id ORDER BY t.name)),
    'evaluation_tags', to_jsonb(ARRAY(SELECT t.name FROM feature_flag_evaluation_tags et JOIN tags t ON t.id = et.tag_id
      WHERE et.feature_flag_id = f.id ORDER BY t.name))
  ),
  COALESCE(f.last_modified_by_id, f.created_by_id),
  f.updated_at
FROM feature_flags f;

INSERT INTO "object_versions" ("project_id", "scope", "item_id", "version", "activity", "snapshot", "created_by_id", "created_at")
SELECT e.project_id, 'Experiment', e.id::text, 1, 'created',
  jsonb_build_object(
    'name', e.name,
    'description', e.description,
    'start_date', pg_temp.drf_date_time(e.start_date),
    'end_date', pg_temp.drf_date_time(e.end_date),
    'parameters', e.parameters,
    'filters', e.filters,
    'archived', e.archived,
    'deleted', e.deleted,
    'holdout', e.holdout_id,
    'secondary_metrics', e.secondary_metrics,
    'metrics', e.metrics,
    'metrics_secondary', e.metrics_secondary,
    'exposure_criteria', e.exposure_criteria,
    'stats_config', e.stats_config,
    'conclusion', e.conclusion,
    'conclusion_comment', e.conclusion_comment,
    'primary_metrics_ordered_uuids', e.primary_metrics_ordered_uuids,
    'secondary_metrics_ordered_uuids', e.secondary_metrics_ordered_uuids,
    'saved_metrics', COALESCE((SELECT jsonb_agg(jsonb_build_object('id', l.saved_metric_id, 'metadata', l.metadata) ORDER BY l.id)
      FROM experiment_to_saved_metrics l WHERE l.experiment_id = e.id), '[]'::jsonb)
  ),
  e.created_by_id,
  e.updated_at
FROM experiments e;
