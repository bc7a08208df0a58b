-- CreateTable
CREATE TABLE "schema_property_groups" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(400) NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,

    CONSTRAINT "schema_property_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "schema_property_group_properties" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "property_group_id" UUID NOT NULL,
    "name" VARCHAR(400) NOT NULL,
    "property_type" VARCHAR(50) NOT NULL,
    "is_required" BOOLEAN NOT NULL DEFAULT false,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "schema_property_group_properties_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_schemas" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "event_definition_id" UUID NOT NULL,
    "property_group_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_schemas_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "schema_property_groups_created_by_id_idx" ON "schema_property_groups"("created_by_id");

-- CreateIndex
CREATE UNIQUE INDEX "schema_property_groups_project_id_name_key" ON "schema_property_groups"("project_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "schema_property_group_properties_property_group_id_name_key" ON "schema_property_group_properties"("property_group_id", "name");

-- CreateIndex
CREATE INDEX "event_schemas_property_group_id_idx" ON "event_schemas"("property_group_id");

-- CreateIndex
CREATE INDEX "event_schemas_project_id_idx" ON "event_schemas"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "event_schemas_event_definition_id_property_group_id_key" ON "event_schemas"("event_definition_id", "property_group_id");

-- AddForeignKey
ALTER TABLE "schema_property_groups" ADD CONSTRAINT "schema_property_groups_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "schema_property_groups" ADD CONSTRAINT "schema_property_groups_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "schema_property_group_properties" ADD CONSTRAINT "schema_property_group_properties_property_group_id_fkey" FOREIGN KEY ("property_group_id") REFERENCES "schema_property_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_schemas" ADD CONSTRAINT "event_schemas_event_definition_id_fkey" FOREIGN KEY ("event_definition_id") REFERENCES "event_definitions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_schemas" ADD CONSTRAINT "event_schemas_property_group_id_fkey" FOREIGN KEY ("property_group_id") REFERENCES "schema_property_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every write of a schema property group, its properties or an event's schemas bumps the project's
-- revision (REST ETags).
SELECT project_revision_track('"schema_property_groups"');
SELECT project_revision_track('"schema_property_group_properties"');
SELECT project_revision_track('"event_schemas"');
