-- CreateTable
CREATE TABLE "experiment_timeseries_recalculations" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "experiment_id" INTEGER NOT NULL,
    "metric" JSONB NOT NULL,
    "metric_uuid" VARCHAR(255),
    "fingerprint" VARCHAR(255) NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "error_message" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "experiment_timeseries_recalculations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "experiment_metric_results" (
    "id" BIGSERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "experiment_id" INTEGER NOT NULL,
    "metric_uuid" VARCHAR(255) NOT NULL,
    "fingerprint" VARCHAR(255) NOT NULL,
    "query_from" TIMESTAMPTZ(6) NOT NULL,
    "query_to" TIMESTAMPTZ(6) NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "result" JSONB,
    "error_message" TEXT,
    "completed_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "experiment_metric_results_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "experiment_timeseries_recalculations_experiment_id_fingerpr_idx" ON "experiment_timeseries_recalculations"("experiment_id", "fingerprint", "status");

-- CreateIndex
CREATE INDEX "experiment_timeseries_recalculations_project_id_idx" ON "experiment_timeseries_recalculations"("project_id");

-- CreateIndex
CREATE INDEX "experiment_metric_results_project_id_idx" ON "experiment_metric_results"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "experiment_metric_results_experiment_id_metric_uuid_fingerp_key" ON "experiment_metric_results"("experiment_id", "metric_uuid", "fingerprint", "query_to");

-- AddForeignKey
ALTER TABLE "experiment_timeseries_recalculations" ADD CONSTRAINT "experiment_timeseries_recalculations_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_timeseries_recalculations" ADD CONSTRAINT "experiment_timeseries_recalculations_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_metric_results" ADD CONSTRAINT "experiment_metric_results_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_metric_results" ADD CONSTRAINT "experiment_metric_results_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Not tracked by the project's revision (no project_revision_track): both tables are derived data,
-- rewritten by each timeseries recalculation and read only by `timeseries_results`, which is not
-- conditional (src/experiments/timeseries.service.ts). A job's writes would otherwise invalidate every
-- ETag of the project and the flag definitions cached by revision.
