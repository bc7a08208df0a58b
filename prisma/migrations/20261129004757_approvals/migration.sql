-- Approvals (issue 27): PostHog's approval policies, change requests and their votes
-- (products/approvals/backend/models.py). Configuration: every write moves the project's revision.

-- CreateTable
CREATE TABLE "approval_policies" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "action_key" VARCHAR(128) NOT NULL,
    "conditions" JSONB NOT NULL DEFAULT '{}',
    "approver_config" JSONB NOT NULL,
    "allow_self_approve" BOOLEAN NOT NULL DEFAULT false,
    "bypass_org_membership_levels" JSONB NOT NULL DEFAULT '[]',
    "expires_after_us" BIGINT NOT NULL DEFAULT 1209600000000,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "approval_policies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "change_requests" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "organization_id" UUID NOT NULL,
    "action_key" VARCHAR(128) NOT NULL,
    "action_version" INTEGER NOT NULL DEFAULT 1,
    "resource_type" VARCHAR(64) NOT NULL,
    "resource_id" VARCHAR(128),
    "intent" JSONB NOT NULL,
    "intent_display" JSONB NOT NULL,
    "policy_snapshot" JSONB NOT NULL,
    "validation_status" VARCHAR(16) NOT NULL DEFAULT 'valid',
    "validation_errors" JSONB,
    "validated_at" TIMESTAMPTZ(6),
    "state" VARCHAR(16) NOT NULL DEFAULT 'pending',
    "created_by_id" INTEGER,
    "applied_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "applied_at" TIMESTAMPTZ(6),
    "apply_error" TEXT NOT NULL DEFAULT '',
    "result_data" JSONB,

    CONSTRAINT "change_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "approvals" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "change_request_id" UUID NOT NULL,
    "created_by_id" INTEGER,
    "decision" VARCHAR(16) NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "approvals_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "approval_policies_created_by_id_idx" ON "approval_policies"("created_by_id");

-- CreateIndex
CREATE UNIQUE INDEX "approval_policies_project_id_action_key_key" ON "approval_policies"("project_id", "action_key");

-- CreateIndex
CREATE INDEX "change_requests_project_id_state_idx" ON "change_requests"("project_id", "state");

-- CreateIndex
CREATE INDEX "change_requests_state_expires_at_idx" ON "change_requests"("state", "expires_at");

-- CreateIndex
CREATE INDEX "change_requests_created_by_id_idx" ON "change_requests"("created_by_id");

-- CreateIndex
CREATE INDEX "change_requests_applied_by_id_idx" ON "change_requests"("applied_by_id");

-- CreateIndex
CREATE INDEX "approvals_created_by_id_idx" ON "approvals"("created_by_id");

-- CreateIndex
CREATE UNIQUE INDEX "approvals_change_request_id_created_by_id_key" ON "approvals"("change_request_id", "created_by_id");

-- AddForeignKey
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "change_requests" ADD CONSTRAINT "change_requests_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "change_requests" ADD CONSTRAINT "change_requests_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "change_requests" ADD CONSTRAINT "change_requests_applied_by_id_fkey" FOREIGN KEY ("applied_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_change_request_id_fkey" FOREIGN KEY ("change_request_id") REFERENCES "change_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- One open request per action and resource (PostHog's duplicate check, decorators.py
-- `_check_for_duplicate`): a second gated write of the same action on the same resource while one is
-- pending or approved answers `change_request_pending`, and two racing ones cannot both open one.
CREATE UNIQUE INDEX "change_requests_open_key" ON "change_requests"
  ("project_id", "action_key", "resource_type", COALESCE("resource_id", ''))
  WHERE "state" IN ('pending', 'approved');

SELECT project_revision_track('"approval_policies"');
SELECT project_revision_track('"change_requests"');
SELECT project_revision_track('"approvals"');
