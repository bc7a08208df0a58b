-- AlterTable
ALTER TABLE "event_definitions" ADD COLUMN     "default_columns" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "description" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "hidden" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "owner_id" INTEGER,
ADD COLUMN     "updated_at" TIMESTAMPTZ(6),
ADD COLUMN     "updated_by_id" INTEGER,
ADD COLUMN     "verified" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "verified_at" TIMESTAMPTZ(6),
ADD COLUMN     "verified_by_id" INTEGER;

-- CreateTable
CREATE TABLE "event_definition_tags" (
    "project_id" INTEGER NOT NULL,
    "event_definition_id" UUID NOT NULL,
    "tag_id" INTEGER NOT NULL,

    CONSTRAINT "event_definition_tags_pkey" PRIMARY KEY ("event_definition_id","tag_id")
);

-- CreateIndex
CREATE INDEX "event_definition_tags_project_id_tag_id_idx" ON "event_definition_tags"("project_id", "tag_id");

-- CreateIndex
CREATE INDEX "event_definitions_owner_id_idx" ON "event_definitions"("owner_id");

-- CreateIndex
CREATE INDEX "event_definitions_verified_by_id_idx" ON "event_definitions"("verified_by_id");

-- CreateIndex
CREATE INDEX "event_definitions_updated_by_id_idx" ON "event_definitions"("updated_by_id");

-- AddForeignKey
ALTER TABLE "event_definitions" ADD CONSTRAINT "event_definitions_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_definitions" ADD CONSTRAINT "event_definitions_verified_by_id_fkey" FOREIGN KEY ("verified_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_definitions" ADD CONSTRAINT "event_definitions_updated_by_id_fkey" FOREIGN KEY ("updated_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_definition_tags" ADD CONSTRAINT "event_definition_tags_event_definition_id_fkey" FOREIGN KEY ("event_definition_id") REFERENCES "event_definitions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_definition_tags" ADD CONSTRAINT "event_definition_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every write of an event definition's tags bumps the project's revision (REST ETags).
SELECT project_revision_track('"event_definition_tags"');
