-- CreateTable
CREATE TABLE "endpoint_materializations" (
    "project_id" INTEGER NOT NULL,
    "version_id" UUID NOT NULL,
    "status" VARCHAR(16),
    "sync_frequency" VARCHAR(16) NOT NULL,
    "last_run_at" TIMESTAMPTZ(6),
    "latest_error" TEXT,
    "columns" JSONB,
    "types" JSONB,
    "row_count" INTEGER NOT NULL DEFAULT 0,
    "run_count" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "endpoint_materializations_pkey" PRIMARY KEY ("version_id")
);

-- CreateTable
CREATE TABLE "endpoint_materialized_rows" (
    "project_id" INTEGER NOT NULL,
    "version_id" UUID NOT NULL,
    "row_number" INTEGER NOT NULL,
    "values" JSONB NOT NULL,

    CONSTRAINT "endpoint_materialized_rows_pkey" PRIMARY KEY ("version_id","row_number")
);

-- CreateIndex
CREATE INDEX "endpoint_materializations_project_id_idx" ON "endpoint_materializations"("project_id");

-- CreateIndex
CREATE INDEX "endpoint_materialized_rows_project_id_idx" ON "endpoint_materialized_rows"("project_id");

-- AddForeignKey
ALTER TABLE "endpoint_materializations" ADD CONSTRAINT "endpoint_materializations_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "endpoint_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoint_materialized_rows" ADD CONSTRAINT "endpoint_materialized_rows_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "endpoint_materializations"("version_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The materialization's state is part of the serialized endpoint: its writes bump the project's revision.
SELECT project_revision_track('"endpoint_materializations"');
