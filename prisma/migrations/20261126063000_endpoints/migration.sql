-- CreateTable
CREATE TABLE "endpoints" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(128) NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "current_version" INTEGER NOT NULL DEFAULT 1,
    "derived_from_insight" VARCHAR(12),
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_executed_at" TIMESTAMPTZ(6),

    CONSTRAINT "endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "endpoint_versions" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "query" JSONB NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "cache_age_seconds" INTEGER,
    "is_materialized" BOOLEAN NOT NULL DEFAULT false,
    "sync_frequency" VARCHAR(16),
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,

    CONSTRAINT "endpoint_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "endpoint_executions" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "endpoint_id" UUID,
    "endpoint_name" VARCHAR(128) NOT NULL,
    "version" INTEGER,
    "executed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "duration_ms" INTEGER NOT NULL,
    "rows" INTEGER,
    "error" TEXT,
    "via_personal_api_key" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "endpoint_executions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "endpoints_project_id_created_by_id_idx" ON "endpoints"("project_id", "created_by_id");

-- CreateIndex
CREATE INDEX "endpoints_created_by_id_idx" ON "endpoints"("created_by_id");

-- CreateIndex
CREATE UNIQUE INDEX "endpoints_project_id_name_key" ON "endpoints"("project_id", "name");

-- CreateIndex
CREATE INDEX "endpoint_versions_project_id_idx" ON "endpoint_versions"("project_id");

-- CreateIndex
CREATE INDEX "endpoint_versions_created_by_id_idx" ON "endpoint_versions"("created_by_id");

-- CreateIndex
CREATE UNIQUE INDEX "endpoint_versions_endpoint_id_version_key" ON "endpoint_versions"("endpoint_id", "version");

-- CreateIndex
CREATE INDEX "endpoint_executions_project_id_endpoint_name_executed_at_idx" ON "endpoint_executions"("project_id", "endpoint_name", "executed_at");

-- CreateIndex
CREATE INDEX "endpoint_executions_endpoint_id_idx" ON "endpoint_executions"("endpoint_id");

-- AddForeignKey
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoint_versions" ADD CONSTRAINT "endpoint_versions_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoint_versions" ADD CONSTRAINT "endpoint_versions_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoint_executions" ADD CONSTRAINT "endpoint_executions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every write of an endpoint or its versions bumps the project's revision (REST ETags); the
-- execution log is data and does not.
SELECT project_revision_track('"endpoints"');
SELECT project_revision_track('"endpoint_versions"');
