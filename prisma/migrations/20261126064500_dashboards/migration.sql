-- CreateTable
CREATE TABLE "dashboards" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(400),
    "description" TEXT NOT NULL DEFAULT '',
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "creation_mode" VARCHAR(16) NOT NULL DEFAULT 'default',
    "filters" JSONB NOT NULL DEFAULT '{}',
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "dashboards_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "insights" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "short_id" VARCHAR(12) NOT NULL,
    "name" VARCHAR(400),
    "description" TEXT NOT NULL DEFAULT '',
    "query" JSONB,
    "is_sample" BOOLEAN NOT NULL DEFAULT false,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "insights_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dashboard_tiles" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "dashboard_id" INTEGER NOT NULL,
    "insight_id" INTEGER NOT NULL,
    "layouts" JSONB NOT NULL DEFAULT '{}',
    "color" VARCHAR(400),
    "deleted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "dashboard_tiles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dashboard_tags" (
    "project_id" INTEGER NOT NULL,
    "dashboard_id" INTEGER NOT NULL,
    "tag_id" INTEGER NOT NULL,

    CONSTRAINT "dashboard_tags_pkey" PRIMARY KEY ("dashboard_id","tag_id")
);

-- CreateIndex
CREATE INDEX "dashboards_project_id_deleted_idx" ON "dashboards"("project_id", "deleted");

-- CreateIndex
CREATE INDEX "dashboards_created_by_id_idx" ON "dashboards"("created_by_id");

-- CreateIndex
CREATE INDEX "insights_created_by_id_idx" ON "insights"("created_by_id");

-- CreateIndex
CREATE UNIQUE INDEX "insights_project_id_short_id_key" ON "insights"("project_id", "short_id");

-- CreateIndex
CREATE INDEX "dashboard_tiles_insight_id_idx" ON "dashboard_tiles"("insight_id");

-- CreateIndex
CREATE INDEX "dashboard_tiles_project_id_idx" ON "dashboard_tiles"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "dashboard_tiles_dashboard_id_insight_id_key" ON "dashboard_tiles"("dashboard_id", "insight_id");

-- CreateIndex
CREATE INDEX "dashboard_tags_project_id_tag_id_idx" ON "dashboard_tags"("project_id", "tag_id");

-- No dashboards existed before this migration: a stored usage_dashboard_id could point at nothing.
UPDATE "feature_flags" SET "usage_dashboard_id" = NULL WHERE "usage_dashboard_id" IS NOT NULL;

-- CreateIndex
CREATE INDEX "feature_flags_usage_dashboard_id_idx" ON "feature_flags"("usage_dashboard_id");

-- AddForeignKey
ALTER TABLE "feature_flags" ADD CONSTRAINT "feature_flags_usage_dashboard_id_fkey" FOREIGN KEY ("usage_dashboard_id") REFERENCES "dashboards"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboards" ADD CONSTRAINT "dashboards_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboards" ADD CONSTRAINT "dashboards_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "insights" ADD CONSTRAINT "insights_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "insights" ADD CONSTRAINT "insights_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_tiles" ADD CONSTRAINT "dashboard_tiles_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_tiles" ADD CONSTRAINT "dashboard_tiles_dashboard_id_fkey" FOREIGN KEY ("dashboard_id") REFERENCES "dashboards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_tiles" ADD CONSTRAINT "dashboard_tiles_insight_id_fkey" FOREIGN KEY ("insight_id") REFERENCES "insights"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_tags" ADD CONSTRAINT "dashboard_tags_dashboard_id_fkey" FOREIGN KEY ("dashboard_id") REFERENCES "dashboards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_tags" ADD CONSTRAINT "dashboard_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Configuration tables: every write bumps the project's revision (migration project_revision).
SELECT project_revision_track('"dashboards"');
SELECT project_revision_track('"insights"');
SELECT project_revision_track('"dashboard_tiles"');
SELECT project_revision_track('"dashboard_tags"');
