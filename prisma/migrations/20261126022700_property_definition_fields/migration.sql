-- AlterTable
ALTER TABLE "property_definitions" ADD COLUMN     "description" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "hidden" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "updated_at" TIMESTAMPTZ(6),
ADD COLUMN     "updated_by_id" INTEGER,
ADD COLUMN     "verified" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "verified_at" TIMESTAMPTZ(6),
ADD COLUMN     "verified_by_id" INTEGER;

-- CreateTable
CREATE TABLE "property_definition_tags" (
    "project_id" INTEGER NOT NULL,
    "property_definition_id" UUID NOT NULL,
    "tag_id" INTEGER NOT NULL,

    CONSTRAINT "property_definition_tags_pkey" PRIMARY KEY ("property_definition_id","tag_id")
);

-- CreateIndex
CREATE INDEX "property_definition_tags_project_id_tag_id_idx" ON "property_definition_tags"("project_id", "tag_id");

-- CreateIndex
CREATE INDEX "property_definitions_verified_by_id_idx" ON "property_definitions"("verified_by_id");

-- CreateIndex
CREATE INDEX "property_definitions_updated_by_id_idx" ON "property_definitions"("updated_by_id");

-- AddForeignKey
ALTER TABLE "property_definitions" ADD CONSTRAINT "property_definitions_verified_by_id_fkey" FOREIGN KEY ("verified_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "property_definitions" ADD CONSTRAINT "property_definitions_updated_by_id_fkey" FOREIGN KEY ("updated_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "property_definition_tags" ADD CONSTRAINT "property_definition_tags_property_definition_id_fkey" FOREIGN KEY ("property_definition_id") REFERENCES "property_definitions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "property_definition_tags" ADD CONSTRAINT "property_definition_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every write of a property definition's tags bumps the project's revision (REST ETags).
SELECT project_revision_track('"property_definition_tags"');
