-- Scheduled changes (issue 26 part B): PostHog's ScheduledChange, a change to a feature flag applied
-- at a time, once or on a recurrence (products/feature_flags/backend/models/scheduled_change.py).
-- Project-owned configuration: every write, the job queue's included (executed_at, failure_reason,
-- the next scheduled_at), moves the project's revision, so conditional GETs see it.

-- CreateTable
CREATE TABLE "scheduled_changes" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "record_id" VARCHAR(200) NOT NULL,
    "model_name" VARCHAR(100) NOT NULL,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "scheduled_at" TIMESTAMPTZ(6) NOT NULL,
    "executed_at" TIMESTAMPTZ(6),
    "failure_reason" TEXT,
    "failure_count" INTEGER NOT NULL DEFAULT 0,
    "is_recurring" BOOLEAN NOT NULL DEFAULT false,
    "recurrence_interval" VARCHAR(20),
    "last_executed_at" TIMESTAMPTZ(6),
    "cron_expression" VARCHAR(100),
    "end_date" TIMESTAMPTZ(6),
    "timezone" VARCHAR(240),
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scheduled_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "scheduled_changes_scheduled_at_executed_at_idx" ON "scheduled_changes"("scheduled_at", "executed_at");

-- CreateIndex
CREATE INDEX "scheduled_changes_project_id_model_name_record_id_idx" ON "scheduled_changes"("project_id", "model_name", "record_id");

-- CreateIndex
CREATE INDEX "scheduled_changes_created_by_id_idx" ON "scheduled_changes"("created_by_id");

-- AddForeignKey
ALTER TABLE "scheduled_changes" ADD CONSTRAINT "scheduled_changes_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scheduled_changes" ADD CONSTRAINT "scheduled_changes_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

SELECT project_revision_track('"scheduled_changes"');
