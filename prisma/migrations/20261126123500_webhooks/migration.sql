-- Webhooks (issue 12 item 4): per-project subscriptions to change kinds, and the log of each
-- delivery attempt. `webhooks` is project-owned configuration, so it moves the project's revision;
-- `webhook_deliveries` is a log written by the job queue and does not (its REST list answers no ETag).

-- CreateTable
CREATE TABLE "webhooks" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "url" VARCHAR(2000) NOT NULL,
    "kinds" TEXT[],
    "secret" VARCHAR(200) NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "description" VARCHAR(400) NOT NULL DEFAULT '',
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "webhook_id" INTEGER NOT NULL,
    "event_id" UUID NOT NULL,
    "kind" VARCHAR(100) NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "status_code" INTEGER,
    "response_time_ms" INTEGER,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhooks_project_id_idx" ON "webhooks"("project_id");

-- CreateIndex
CREATE INDEX "webhooks_created_by_id_idx" ON "webhooks"("created_by_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhook_id_created_at_idx" ON "webhook_deliveries"("webhook_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_project_id_idx" ON "webhook_deliveries"("project_id");

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

SELECT project_revision_track('"webhooks"');
