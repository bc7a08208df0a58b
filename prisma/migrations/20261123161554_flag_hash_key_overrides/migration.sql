-- Experience continuity (posthog-behavior.md §3.2): a person's hash key per flag key
-- (PostHog's posthog_featureflaghashkeyoverride), written by `/flags` requests that carry
-- `$anon_distinct_id`, moved to the survivor when persons merge, gone with its person.
-- Data, like persons and cohort memberships: it changes with SDK traffic, not with a project's
-- configuration, so it does NOT call project_revision_track (test/db/project-revision.test.ts
-- lists it with the other data tables).

-- CreateTable
CREATE TABLE "feature_flag_hash_key_overrides" (
    "project_id" INTEGER NOT NULL,
    "person_id" BIGINT NOT NULL,
    "feature_flag_key" VARCHAR(400) NOT NULL,
    "hash_key" VARCHAR(400) NOT NULL,

    CONSTRAINT "feature_flag_hash_key_overrides_pkey" PRIMARY KEY ("project_id","person_id","feature_flag_key")
);

-- AddForeignKey
ALTER TABLE "feature_flag_hash_key_overrides" ADD CONSTRAINT "feature_flag_hash_key_overrides_project_id_person_id_fkey" FOREIGN KEY ("project_id", "person_id") REFERENCES "persons"("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
