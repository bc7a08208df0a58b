-- CreateEnum
CREATE TYPE "EvaluationRuntime" AS ENUM ('server', 'client', 'all');

-- CreateEnum
CREATE TYPE "BucketingIdentifier" AS ENUM ('distinct_id', 'device_id');

-- CreateEnum
CREATE TYPE "CreationContext" AS ENUM ('feature_flags', 'experiments', 'surveys', 'early_access_features', 'web_experiments', 'product_tours');

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projects" (
    "id" SERIAL NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "api_token" TEXT NOT NULL,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "distinct_id" TEXT NOT NULL,
    "first_name" TEXT NOT NULL DEFAULT '',
    "last_name" TEXT NOT NULL DEFAULT '',
    "email" TEXT NOT NULL,
    "is_email_verified" BOOLEAN DEFAULT false,
    "hedgehog_config" JSONB,
    "role_at_organization" TEXT,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "current_project_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organization_memberships" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "user_id" INTEGER NOT NULL,
    "level" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organization_memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "personal_api_keys" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "label" VARCHAR(40) NOT NULL,
    "secure_value" TEXT NOT NULL,
    "mask_value" TEXT NOT NULL,
    "scopes" TEXT[],
    "scoped_teams" INTEGER[],
    "scoped_organizations" TEXT[],
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(6),

    CONSTRAINT "personal_api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "feature_flags" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "key" VARCHAR(400) NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "filters" JSONB NOT NULL DEFAULT '{}',
    "rollout_percentage" INTEGER,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" INTEGER,
    "last_modified_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,
    "rollback_conditions" JSONB,
    "performed_rollback" BOOLEAN,
    "ensure_experience_continuity" BOOLEAN NOT NULL DEFAULT false,
    "usage_dashboard_id" INTEGER,
    "has_enriched_analytics" BOOLEAN NOT NULL DEFAULT false,
    "is_remote_configuration" BOOLEAN NOT NULL DEFAULT false,
    "has_encrypted_payloads" BOOLEAN NOT NULL DEFAULT false,
    "evaluation_runtime" "EvaluationRuntime" NOT NULL DEFAULT 'all',
    "bucketing_identifier" "BucketingIdentifier" NOT NULL DEFAULT 'distinct_id',
    "last_called_at" TIMESTAMPTZ(6),
    "creation_context" "CreationContext" NOT NULL DEFAULT 'feature_flags',
    "create_in_folder" TEXT,
    "should_create_usage_dashboard" BOOLEAN NOT NULL DEFAULT true,
    "variant_count" INTEGER NOT NULL DEFAULT 0,
    "fully_rolled_out" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "feature_flags_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tags" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "tags_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "feature_flag_tags" (
    "project_id" INTEGER NOT NULL,
    "feature_flag_id" INTEGER NOT NULL,
    "tag_id" INTEGER NOT NULL,

    CONSTRAINT "feature_flag_tags_pkey" PRIMARY KEY ("feature_flag_id","tag_id")
);

-- CreateTable
CREATE TABLE "feature_flag_evaluation_tags" (
    "project_id" INTEGER NOT NULL,
    "feature_flag_id" INTEGER NOT NULL,
    "tag_id" INTEGER NOT NULL,

    CONSTRAINT "feature_flag_evaluation_tags_pkey" PRIMARY KEY ("feature_flag_id","tag_id")
);

-- CreateTable
CREATE TABLE "activity_logs" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "user_id" INTEGER,
    "is_system" BOOLEAN,
    "activity" VARCHAR(79) NOT NULL,
    "scope" VARCHAR(79) NOT NULL,
    "item_id" VARCHAR(72),
    "detail" JSONB,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "activity_logs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "projects_api_token_key" ON "projects"("api_token");

-- CreateIndex
CREATE INDEX "projects_organization_id_idx" ON "projects"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "users_uuid_key" ON "users"("uuid");

-- CreateIndex
CREATE UNIQUE INDEX "users_distinct_id_key" ON "users"("distinct_id");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "organization_memberships_user_id_idx" ON "organization_memberships"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "organization_memberships_organization_id_user_id_key" ON "organization_memberships"("organization_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "personal_api_keys_secure_value_key" ON "personal_api_keys"("secure_value");

-- CreateIndex
CREATE INDEX "personal_api_keys_user_id_idx" ON "personal_api_keys"("user_id");

-- CreateIndex
CREATE INDEX "feature_flags_project_id_deleted_created_at_idx" ON "feature_flags"("project_id", "deleted", "created_at");

-- CreateIndex
CREATE INDEX "feature_flags_created_by_id_idx" ON "feature_flags"("created_by_id");

-- CreateIndex
CREATE INDEX "feature_flags_last_modified_by_id_idx" ON "feature_flags"("last_modified_by_id");

-- CreateIndex
CREATE UNIQUE INDEX "feature_flags_project_id_key_key" ON "feature_flags"("project_id", "key");

-- CreateIndex
CREATE UNIQUE INDEX "tags_project_id_name_key" ON "tags"("project_id", "name");

-- CreateIndex
CREATE INDEX "feature_flag_tags_project_id_tag_id_idx" ON "feature_flag_tags"("project_id", "tag_id");

-- CreateIndex
CREATE INDEX "feature_flag_evaluation_tags_project_id_tag_id_idx" ON "feature_flag_evaluation_tags"("project_id", "tag_id");

-- CreateIndex
CREATE INDEX "activity_logs_project_id_scope_item_id_created_at_idx" ON "activity_logs"("project_id", "scope", "item_id", "created_at");

-- CreateIndex
CREATE INDEX "activity_logs_project_id_scope_created_at_idx" ON "activity_logs"("project_id", "scope", "created_at");

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_current_project_id_fkey" FOREIGN KEY ("current_project_id") REFERENCES "projects"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "organization_memberships" ADD CONSTRAINT "organization_memberships_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "organization_memberships" ADD CONSTRAINT "organization_memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "personal_api_keys" ADD CONSTRAINT "personal_api_keys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "feature_flags" ADD CONSTRAINT "feature_flags_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "feature_flags" ADD CONSTRAINT "feature_flags_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "feature_flags" ADD CONSTRAINT "feature_flags_last_modified_by_id_fkey" FOREIGN KEY ("last_modified_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tags" ADD CONSTRAINT "tags_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "feature_flag_tags" ADD CONSTRAINT "feature_flag_tags_feature_flag_id_fkey" FOREIGN KEY ("feature_flag_id") REFERENCES "feature_flags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "feature_flag_tags" ADD CONSTRAINT "feature_flag_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "feature_flag_evaluation_tags" ADD CONSTRAINT "feature_flag_evaluation_tags_feature_flag_id_fkey" FOREIGN KEY ("feature_flag_id") REFERENCES "feature_flags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "feature_flag_evaluation_tags" ADD CONSTRAINT "feature_flag_evaluation_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "activity_logs" ADD CONSTRAINT "activity_logs_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "activity_logs" ADD CONSTRAINT "activity_logs_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
