-- CreateTable
CREATE TABLE "events" (
    "project_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "event" VARCHAR(400) NOT NULL,
    "distinct_id" VARCHAR(400) NOT NULL,
    "person_id" UUID,
    "properties" JSONB NOT NULL DEFAULT '{}',
    "timestamp" TIMESTAMPTZ(6) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "elements_chain" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "events_pkey" PRIMARY KEY ("project_id","uuid")
);

-- CreateTable
CREATE TABLE "persons" (
    "project_id" INTEGER NOT NULL,
    "id" BIGSERIAL NOT NULL,
    "uuid" UUID NOT NULL DEFAULT gen_random_uuid(),
    "properties" JSONB NOT NULL DEFAULT '{}',
    "properties_last_updated_at" JSONB NOT NULL DEFAULT '{}',
    "properties_last_operation" JSONB NOT NULL DEFAULT '{}',
    "is_identified" BOOLEAN NOT NULL DEFAULT false,
    "version" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "persons_pkey" PRIMARY KEY ("project_id","id")
);

-- CreateTable
CREATE TABLE "person_distinct_ids" (
    "project_id" INTEGER NOT NULL,
    "distinct_id" VARCHAR(400) NOT NULL,
    "person_id" BIGINT NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "person_distinct_ids_pkey" PRIMARY KEY ("project_id","distinct_id")
);

-- CreateTable
CREATE TABLE "group_type_mappings" (
    "project_id" INTEGER NOT NULL,
    "group_type_index" INTEGER NOT NULL,
    "group_type" VARCHAR(400) NOT NULL,
    "name_singular" VARCHAR(400),
    "name_plural" VARCHAR(400),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "group_type_mappings_pkey" PRIMARY KEY ("project_id","group_type_index")
);

-- CreateTable
CREATE TABLE "groups" (
    "project_id" INTEGER NOT NULL,
    "group_type_index" INTEGER NOT NULL,
    "group_key" VARCHAR(400) NOT NULL,
    "group_properties" JSONB NOT NULL DEFAULT '{}',
    "properties_last_updated_at" JSONB NOT NULL DEFAULT '{}',
    "properties_last_operation" JSONB NOT NULL DEFAULT '{}',
    "version" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "groups_pkey" PRIMARY KEY ("project_id","group_type_index","group_key")
);

-- CreateTable
CREATE TABLE "cohorts" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(400),
    "description" VARCHAR(1000) NOT NULL DEFAULT '',
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "filters" JSONB,
    "query" JSONB,
    "groups" JSONB NOT NULL DEFAULT '[]',
    "is_static" BOOLEAN NOT NULL DEFAULT false,
    "cohort_type" VARCHAR(20),
    "version" INTEGER,
    "pending_version" INTEGER,
    "count" INTEGER,
    "is_calculating" BOOLEAN NOT NULL DEFAULT false,
    "last_calculation" TIMESTAMPTZ(6),
    "errors_calculating" INTEGER NOT NULL DEFAULT 0,
    "last_error_at" TIMESTAMPTZ(6),
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "create_in_folder" TEXT,

    CONSTRAINT "cohorts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cohort_people" (
    "project_id" INTEGER NOT NULL,
    "cohort_id" INTEGER NOT NULL,
    "person_id" BIGINT NOT NULL,
    "version" INTEGER,

    CONSTRAINT "cohort_people_pkey" PRIMARY KEY ("project_id","cohort_id","person_id")
);

-- CreateTable
CREATE TABLE "event_definitions" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(400) NOT NULL,
    "created_at" TIMESTAMPTZ(6) DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(6),
    "volume_30_day" INTEGER,
    "query_usage_30_day" INTEGER,

    CONSTRAINT "event_definitions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "property_definitions" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(400) NOT NULL,
    "type" SMALLINT NOT NULL DEFAULT 1,
    "group_type_index" SMALLINT NOT NULL DEFAULT -1,
    "is_numerical" BOOLEAN NOT NULL DEFAULT false,
    "property_type" VARCHAR(50),
    "volume_30_day" INTEGER,
    "query_usage_30_day" INTEGER,

    CONSTRAINT "property_definitions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_properties" (
    "project_id" INTEGER NOT NULL,
    "event" VARCHAR(400) NOT NULL,
    "property" VARCHAR(400) NOT NULL,

    CONSTRAINT "event_properties_pkey" PRIMARY KEY ("project_id","event","property")
);

-- CreateIndex
CREATE INDEX "events_project_id_timestamp_idx" ON "events"("project_id", "timestamp");

-- CreateIndex
CREATE INDEX "events_project_id_event_timestamp_idx" ON "events"("project_id", "event", "timestamp");

-- CreateIndex
CREATE INDEX "events_project_id_distinct_id_timestamp_idx" ON "events"("project_id", "distinct_id", "timestamp");

-- CreateIndex
CREATE INDEX "events_project_id_person_id_timestamp_idx" ON "events"("project_id", "person_id", "timestamp");

-- CreateIndex
CREATE INDEX "persons_project_id_created_at_idx" ON "persons"("project_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "persons_project_id_uuid_key" ON "persons"("project_id", "uuid");

-- CreateIndex
CREATE INDEX "person_distinct_ids_project_id_person_id_idx" ON "person_distinct_ids"("project_id", "person_id");

-- CreateIndex
CREATE UNIQUE INDEX "group_type_mappings_project_id_group_type_key" ON "group_type_mappings"("project_id", "group_type");

-- CreateIndex
CREATE INDEX "cohorts_project_id_deleted_id_idx" ON "cohorts"("project_id", "deleted", "id");

-- CreateIndex
CREATE INDEX "cohorts_created_by_id_idx" ON "cohorts"("created_by_id");

-- CreateIndex
CREATE INDEX "cohort_people_project_id_person_id_idx" ON "cohort_people"("project_id", "person_id");

-- CreateIndex
CREATE UNIQUE INDEX "event_definitions_project_id_name_key" ON "event_definitions"("project_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "property_definitions_project_id_type_group_type_index_name_key" ON "property_definitions"("project_id", "type", "group_type_index", "name");

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "persons" ADD CONSTRAINT "persons_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "person_distinct_ids" ADD CONSTRAINT "person_distinct_ids_project_id_person_id_fkey" FOREIGN KEY ("project_id", "person_id") REFERENCES "persons"("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_type_mappings" ADD CONSTRAINT "group_type_mappings_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "groups" ADD CONSTRAINT "groups_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cohorts" ADD CONSTRAINT "cohorts_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cohorts" ADD CONSTRAINT "cohorts_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cohort_people" ADD CONSTRAINT "cohort_people_cohort_id_fkey" FOREIGN KEY ("cohort_id") REFERENCES "cohorts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cohort_people" ADD CONSTRAINT "cohort_people_project_id_person_id_fkey" FOREIGN KEY ("project_id", "person_id") REFERENCES "persons"("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_definitions" ADD CONSTRAINT "event_definitions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "property_definitions" ADD CONSTRAINT "property_definitions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- At most five group types per project, indexed 0–4 (posthog/models/group_type_mapping.py).
ALTER TABLE "group_type_mappings" ADD CONSTRAINT "group_type_mappings_index_range"
  CHECK ("group_type_index" BETWEEN 0 AND 4);

-- Configuration tables bump the project's revision (migration `project_revision`).
SELECT project_revision_track('"group_type_mappings"');
SELECT project_revision_track('"cohorts"');
SELECT project_revision_track('"event_definitions"');
SELECT project_revision_track('"property_definitions"');
SELECT project_revision_track('"event_properties"');
-- Data tables (`events`, `persons`, `person_distinct_ids`, `groups`, `cohort_people`) do not: they
-- change with every captured batch, and a bump per batch would serialise capture on the project
-- row and invalidate every configuration ETag of the project. REST GETs that read them are not
-- conditional (`RestRoute.conditional: false`).
