-- AlterTable
ALTER TABLE "endpoint_materializations" ADD COLUMN     "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "paused" BOOLEAN NOT NULL DEFAULT false;
