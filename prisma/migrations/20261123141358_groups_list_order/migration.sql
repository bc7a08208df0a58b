-- CreateIndex
CREATE INDEX "groups_project_id_group_type_index_created_at_group_key_idx" ON "groups"("project_id", "group_type_index", "created_at", "group_key");
