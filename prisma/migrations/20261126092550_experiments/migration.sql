-- CreateTable
CREATE TABLE "experiments" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(400) NOT NULL,
    "description" VARCHAR(3000),
    "feature_flag_id" INTEGER NOT NULL,
    "holdout_id" INTEGER,
    "exposure_cohort_id" INTEGER,
    "parameters" JSONB,
    "filters" JSONB NOT NULL DEFAULT '{}',
    "secondary_metrics" JSONB,
    "metrics" JSONB,
    "metrics_secondary" JSONB,
    "exposure_criteria" JSONB,
    "stats_config" JSONB,
    "variants" JSONB,
    "type" VARCHAR(40) DEFAULT 'product',
    "conclusion" VARCHAR(30),
    "conclusion_comment" TEXT,
    "primary_metrics_ordered_uuids" JSONB,
    "secondary_metrics_ordered_uuids" JSONB,
    "start_date" TIMESTAMPTZ(6),
    "end_date" TIMESTAMPTZ(6),
    "archived" BOOLEAN NOT NULL DEFAULT false,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "create_in_folder" TEXT,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "experiments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "experiment_holdouts" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(400) NOT NULL,
    "description" VARCHAR(400),
    "filters" JSONB NOT NULL DEFAULT '[]',
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "experiment_holdouts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "experiment_saved_metrics" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(400) NOT NULL,
    "description" VARCHAR(400),
    "query" JSONB NOT NULL,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "experiment_saved_metrics_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "experiment_to_saved_metrics" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "experiment_id" INTEGER NOT NULL,
    "saved_metric_id" INTEGER NOT NULL,
    "metadata" JSONB,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "experiment_to_saved_metrics_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "experiments_project_id_deleted_created_at_idx" ON "experiments"("project_id", "deleted", "created_at");

-- CreateIndex
CREATE INDEX "experiments_feature_flag_id_idx" ON "experiments"("feature_flag_id");

-- CreateIndex
CREATE INDEX "experiments_holdout_id_idx" ON "experiments"("holdout_id");

-- CreateIndex
CREATE INDEX "experiments_exposure_cohort_id_idx" ON "experiments"("exposure_cohort_id");

-- CreateIndex
CREATE INDEX "experiments_created_by_id_idx" ON "experiments"("created_by_id");

-- CreateIndex
CREATE INDEX "experiment_holdouts_project_id_idx" ON "experiment_holdouts"("project_id");

-- CreateIndex
CREATE INDEX "experiment_holdouts_created_by_id_idx" ON "experiment_holdouts"("created_by_id");

-- CreateIndex
CREATE INDEX "experiment_saved_metrics_project_id_idx" ON "experiment_saved_metrics"("project_id");

-- CreateIndex
CREATE INDEX "experiment_saved_metrics_created_by_id_idx" ON "experiment_saved_metrics"("created_by_id");

-- CreateIndex
CREATE INDEX "experiment_to_saved_metrics_experiment_id_idx" ON "experiment_to_saved_metrics"("experiment_id");

-- CreateIndex
CREATE INDEX "experiment_to_saved_metrics_project_id_idx" ON "experiment_to_saved_metrics"("project_id");

-- CreateIndex
CREATE INDEX "experiment_to_saved_metrics_saved_metric_id_idx" ON "experiment_to_saved_metrics"("saved_metric_id");

-- AddForeignKey
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_feature_flag_id_fkey" FOREIGN KEY ("feature_flag_id") REFERENCES "feature_flags"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_holdout_id_fkey" FOREIGN KEY ("holdout_id") REFERENCES "experiment_holdouts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_exposure_cohort_id_fkey" FOREIGN KEY ("exposure_cohort_id") REFERENCES "cohorts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_holdouts" ADD CONSTRAINT "experiment_holdouts_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_holdouts" ADD CONSTRAINT "experiment_holdouts_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_saved_metrics" ADD CONSTRAINT "experiment_saved_metrics_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_saved_metrics" ADD CONSTRAINT "experiment_saved_metrics_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_to_saved_metrics" ADD CONSTRAINT "experiment_to_saved_metrics_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_to_saved_metrics" ADD CONSTRAINT "experiment_to_saved_metrics_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_to_saved_metrics" ADD CONSTRAINT "experiment_to_saved_metrics_saved_metric_id_fkey" FOREIGN KEY ("saved_metric_id") REFERENCES "experiment_saved_metrics"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Experiments, holdouts, saved metrics and their links are configuration: every write bumps the
-- project's revision (REST ETags), as the flags' tables do (migration `project_revision`).
SELECT project_revision_track('"experiments"');
SELECT project_revision_track('"experiment_holdouts"');
SELECT project_revision_track('"experiment_saved_metrics"');
SELECT project_revision_track('"experiment_to_saved_metrics"');
