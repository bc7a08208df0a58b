-- AlterTable
ALTER TABLE "scheduled_changes" ADD COLUMN     "change_request_id" UUID;

-- CreateIndex
CREATE INDEX "scheduled_changes_change_request_id_idx" ON "scheduled_changes"("change_request_id");

-- AddForeignKey
ALTER TABLE "scheduled_changes" ADD CONSTRAINT "scheduled_changes_change_request_id_fkey" FOREIGN KEY ("change_request_id") REFERENCES "change_requests"("id") ON DELETE SET NULL ON UPDATE CASCADE;
