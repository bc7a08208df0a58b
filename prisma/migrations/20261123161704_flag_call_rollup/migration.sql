-- Checkpoints of scheduled tasks that read data since their last run (not project-owned: a task runs
-- over every project, so no project_revision_track). The flag-call roll-up (last_called_at from
-- $feature_flag_called events) reads events through events_project_id_event_timestamp_idx.

-- CreateTable
CREATE TABLE "task_checkpoints" (
    "name" VARCHAR(100) NOT NULL,
    "checkpoint" TIMESTAMPTZ(6) NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "task_checkpoints_pkey" PRIMARY KEY ("name")
);
