/**
 * How approval policies, change requests and their votes are stored and read (Prisma; tables
 * `approval_policies`, `change_requests`, `approvals`). Reads take the client they are given (a
 * write's transaction or the context's client); the service decides, this module only persists.
 */
import type { ServiceContext } from "../core/context.js";
import { USER_BASIC_SELECT, type UserBasic } from "../core/records.js";
import { lockAndRead } from "../core/row-lock.js";
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";

/** A client reads go through. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** The states of an open change request: waiting for votes, or approved and not yet applied. */
export const OPEN_STATES = ["pending", "approved"] as const;

/** Whether `request` is open (`OPEN_STATES`). */
export function isOpenRequest(request: { state: string }): boolean {
  return (OPEN_STATES as readonly string[]).includes(request.state);
}

const POLICY_SELECT = {
  id: true,
  projectId: true,
  organizationId: true,
  actionKey: true,
  conditions: true,
  approverConfig: true,
  allowSelfApprove: true,
  bypassOrgMembershipLevels: true,
  expiresAfterUs: true,
  enabled: true,
  createdAt: true,
  updatedAt: true,
  createdBy: { select: USER_BASIC_SELECT },
} as const;

/** A stored policy with its creator. */
export type PolicyRecord = Prisma.ApprovalPolicyGetPayload<{ select: typeof POLICY_SELECT }>;

const CHANGE_REQUEST_SELECT = {
  id: true,
  projectId: true,
  organizationId: true,
  actionKey: true,
  actionVersion: true,
  resourceType: true,
  resourceId: true,
  intent: true,
  intentDisplay: true,
  policySnapshot: true,
  validationStatus: true,
  validationErrors: true,
  validatedAt: true,
  state: true,
  createdById: true,
  createdAt: true,
  updatedAt: true,
  expiresAt: true,
  appliedAt: true,
  applyError: true,
  resultData: true,
  createdBy: { select: USER_BASIC_SELECT },
  appliedBy: { select: USER_BASIC_SELECT },
  approvals: {
    select: {
      id: true,
      decision: true,
      reason: true,
      createdAt: true,
      createdBy: { select: USER_BASIC_SELECT },
    },
    orderBy: { createdAt: "asc" },
  },
} as const;

/** A stored change request with its requester, applier and votes (oldest first). */
export type ChangeRequestRecord = Prisma.ChangeRequestGetPayload<{ select: typeof CHANGE_REQUEST_SELECT }>;

/** One vote as read with its request. */
export type ApprovalRecord = ChangeRequestRecord["approvals"][number];

/** The user fields a vote or a request names (PostHog's UserBasic). */
export type { UserBasic };

/** The lists' order: newest first (`-created_at`), ties by id. */
const NEWEST_FIRST: Array<{ createdAt: "desc" } | { id: "desc" }> = [{ createdAt: "desc" }, { id: "desc" }];

/** A page's rows as Prisma takes them. */
const window = (page: { limit: number; offset: number }) => ({ skip: page.offset, take: page.limit });

/** A page's rows with the count of all of them. */
async function countedPage<T>(
  rows: Promise<T[]>,
  count: Promise<number>,
): Promise<{ count: number; results: T[] }> {
  const [results, total] = await Promise.all([rows, count]);
  return { count: total, results };
}

/** PostHog's `validation_errors` of a stale request. */
const STALENESS = JSON.stringify({
  staleness: "Resource has been modified since this change request was created",
});

/** The project's enabled policies of `actionKeys`. */
export function selectEnabledPolicies(db: Db, projectId: number, actionKeys: readonly string[]) {
  return db.approvalPolicy.findMany({
    where: { projectId, enabled: true, actionKey: { in: [...actionKeys] } },
    select: POLICY_SELECT,
  });
}

/** A page of the project's policies, newest first, with the count; `filters` as PostHog's list takes them. */
export async function selectPolicyPage(
  db: Db,
  projectId: number,
  filters: { actionKey?: string; enabled?: boolean },
  page: { limit: number; offset: number },
): Promise<{ count: number; results: PolicyRecord[] }> {
  const where = {
    projectId,
    ...(filters.actionKey === undefined ? {} : { actionKey: filters.actionKey }),
    ...(filters.enabled === undefined ? {} : { enabled: filters.enabled }),
  };
  return countedPage(
    db.approvalPolicy.findMany({ where, select: POLICY_SELECT, orderBy: NEWEST_FIRST, ...window(page) }),
    db.approvalPolicy.count({ where }),
  );
}

/** Policy `id` of the project, or null. */
export function selectPolicy(db: Db, projectId: number, id: string) {
  return db.approvalPolicy.findFirst({ where: { id, projectId }, select: POLICY_SELECT });
}

/** The project's policies among `ids` (UUIDs), in no particular order. */
export function selectPolicies(db: Db, projectId: number, ids: readonly string[]) {
  return db.approvalPolicy.findMany({ where: { projectId, id: { in: [...ids] } }, select: POLICY_SELECT });
}

/** Whether the project has a policy for `actionKey` other than `exceptId`. */
export async function policyExists(db: Db, projectId: number, actionKey: string, exceptId: string | null) {
  const found = await db.approvalPolicy.findFirst({
    where: { projectId, actionKey, ...(exceptId ? { id: { not: exceptId } } : {}) },
    select: { id: true },
  });
  return found !== null;
}

/** The fields a policy write sets. */
export interface PolicyFields {
  actionKey?: string;
  conditions?: Record<string, unknown>;
  approverConfig?: Record<string, unknown>;
  allowSelfApprove?: boolean;
  bypassOrgMembershipLevels?: number[];
  expiresAfterUs?: bigint;
  enabled?: boolean;
}

const json = (value: unknown) => value as Prisma.InputJsonValue;

/** Inserts a policy. */
export async function insertPolicy(
  tx: Prisma.TransactionClient,
  project: { id: number; organizationId: string },
  fields: PolicyFields & { actionKey: string; approverConfig: Record<string, unknown> },
  userId: number,
  now: Date,
): Promise<PolicyRecord> {
  return tx.approvalPolicy.create({
    data: {
      projectId: project.id,
      organizationId: project.organizationId,
      actionKey: fields.actionKey,
      approverConfig: json(fields.approverConfig),
      ...(fields.conditions === undefined ? {} : { conditions: json(fields.conditions) }),
      ...(fields.allowSelfApprove === undefined ? {} : { allowSelfApprove: fields.allowSelfApprove }),
      ...(fields.bypassOrgMembershipLevels === undefined
        ? {}
        : { bypassOrgMembershipLevels: json(fields.bypassOrgMembershipLevels) }),
      ...(fields.expiresAfterUs === undefined ? {} : { expiresAfterUs: fields.expiresAfterUs }),
      ...(fields.enabled === undefined ? {} : { enabled: fields.enabled }),
      createdById: userId,
      createdAt: now,
      updatedAt: now,
    },
    select: POLICY_SELECT,
  });
}

/** Writes `fields` of policy `id`. */
export function updatePolicyRow(tx: Prisma.TransactionClient, id: string, fields: PolicyFields, now: Date) {
  return tx.approvalPolicy.update({
    where: { id },
    data: {
      ...(fields.actionKey === undefined ? {} : { actionKey: fields.actionKey }),
      ...(fields.approverConfig === undefined ? {} : { approverConfig: json(fields.approverConfig) }),
      ...(fields.conditions === undefined ? {} : { conditions: json(fields.conditions) }),
      ...(fields.allowSelfApprove === undefined ? {} : { allowSelfApprove: fields.allowSelfApprove }),
      ...(fields.bypassOrgMembershipLevels === undefined
        ? {}
        : { bypassOrgMembershipLevels: json(fields.bypassOrgMembershipLevels) }),
      ...(fields.expiresAfterUs === undefined ? {} : { expiresAfterUs: fields.expiresAfterUs }),
      ...(fields.enabled === undefined ? {} : { enabled: fields.enabled }),
      updatedAt: now,
    },
    select: POLICY_SELECT,
  });
}

/** Deletes policy `id`. */
export async function deletePolicyRow(tx: Prisma.TransactionClient, id: string): Promise<void> {
  await tx.approvalPolicy.delete({ where: { id } });
}

/** The organization membership level of `userId` in `organizationId` (1, 8, 15), or null. */
export async function membershipLevel(
  db: Db,
  organizationId: string,
  userId: number,
): Promise<number | null> {
  const found = await db.organizationMembership.findUnique({
    where: { organizationId_userId: { organizationId, userId } },
    select: { level: true },
  });
  return found?.level ?? null;
}

/** A new change request's fields. */
export interface NewChangeRequest {
  projectId: number;
  organizationId: string;
  actionKey: string;
  resourceType: string;
  resourceId: string | null;
  intent: Record<string, unknown>;
  intentDisplay: Record<string, unknown>;
  policySnapshot: Record<string, unknown>;
  createdById: number;
  createdAt: Date;
  expiresAt: Date;
}

/** Inserts a pending change request. @throws Prisma's P2002 when one is open for the action and resource. */
export function insertChangeRequest(tx: Prisma.TransactionClient, request: NewChangeRequest) {
  return tx.changeRequest.create({
    data: {
      ...request,
      intent: json(request.intent),
      intentDisplay: json(request.intentDisplay),
      policySnapshot: json(request.policySnapshot),
      updatedAt: request.createdAt,
    },
    select: CHANGE_REQUEST_SELECT,
  });
}

/** The open (pending or approved) change request of an action on a resource, or null. */
export function selectOpenChangeRequest(
  db: Db,
  projectId: number,
  actionKey: string,
  resourceType: string,
  resourceId: string | null,
) {
  return db.changeRequest.findFirst({
    where: { projectId, actionKey, resourceType, resourceId, state: { in: [...OPEN_STATES] } },
    select: CHANGE_REQUEST_SELECT,
  });
}

/** Change request `id` of the project, or null. */
export function selectChangeRequest(db: Db, projectId: number, id: string) {
  return db.changeRequest.findFirst({ where: { id, projectId }, select: CHANGE_REQUEST_SELECT });
}

/** The project's change requests among `ids` (UUIDs), in no particular order. */
export function selectChangeRequests(db: Db, projectId: number, ids: readonly string[]) {
  return db.changeRequest.findMany({
    where: { projectId, id: { in: [...ids] } },
    select: CHANGE_REQUEST_SELECT,
  });
}

/** Locks change request `id` (core/row-lock.ts) and reads it. @throws NotFoundError */
export function lockChangeRequest(tx: Prisma.TransactionClient, projectId: number, id: string) {
  return lockAndRead(tx, "change_requests", id, () => selectChangeRequest(tx, projectId, id));
}

/** The list filters of PostHog's `ChangeRequestFilterSet`. */
export interface ChangeRequestFilters {
  states?: string[];
  actionKey?: string;
  requester?: number;
  resourceType?: string;
  resourceId?: string;
}

/** A page of the project's change requests, newest first, with the count. */
export async function selectChangeRequestPage(
  db: Db,
  projectId: number,
  filters: ChangeRequestFilters,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: ChangeRequestRecord[] }> {
  const where: Prisma.ChangeRequestWhereInput = {
    projectId,
    ...(filters.states ? { state: { in: filters.states } } : {}),
    ...(filters.actionKey === undefined ? {} : { actionKey: filters.actionKey }),
    ...(filters.requester === undefined ? {} : { createdById: filters.requester }),
    ...(filters.resourceType === undefined ? {} : { resourceType: filters.resourceType }),
    ...(filters.resourceId === undefined ? {} : { resourceId: filters.resourceId }),
  };
  return countedPage(
    db.changeRequest.findMany({
      where,
      select: CHANGE_REQUEST_SELECT,
      orderBy: NEWEST_FIRST,
      ...window(page),
    }),
    db.changeRequest.count({ where }),
  );
}

/** Records `userId`'s vote. @throws Prisma's P2002 when the user voted already. */
export async function insertVote(
  tx: Prisma.TransactionClient,
  request: { id: string; projectId: number },
  vote: { userId: number; decision: "approved" | "rejected"; reason: string; now: Date },
): Promise<void> {
  await tx.approval.create({
    data: {
      projectId: request.projectId,
      changeRequestId: request.id,
      createdById: vote.userId,
      decision: vote.decision,
      reason: vote.reason,
      createdAt: vote.now,
      updatedAt: vote.now,
    },
  });
}

/** How many approving votes request `id` has. */
export function countApprovals(tx: Prisma.TransactionClient, id: string): Promise<number> {
  return tx.approval.count({ where: { changeRequestId: id, decision: "approved" } });
}

/** The columns a transition writes. */
export interface ChangeRequestUpdate {
  state?: string;
  validationStatus?: string;
  validationErrors?: Record<string, unknown> | null;
  validatedAt?: Date;
  appliedById?: number | null;
  appliedAt?: Date;
  applyError?: string;
  resultData?: Record<string, unknown>;
}

/** Writes `update` to request `id` and reads it back. */
export function updateChangeRequestRow(
  tx: Prisma.TransactionClient,
  id: string,
  update: ChangeRequestUpdate,
  now: Date,
): Promise<ChangeRequestRecord> {
  const { validationErrors, resultData, ...rest } = update;
  return tx.changeRequest.update({
    where: { id },
    data: {
      ...rest,
      ...(validationErrors === undefined
        ? {}
        : { validationErrors: validationErrors === null ? Prisma.DbNull : json(validationErrors) }),
      ...(resultData === undefined ? {} : { resultData: json(resultData) }),
      updatedAt: now,
    },
    select: CHANGE_REQUEST_SELECT,
  });
}

/**
 * Marks the pending, still valid requests on `resource` stale (PostHog's
 * `validate_pending_change_requests`, here when the resource changes): the ids marked. A request
 * locked by a vote in progress is skipped (`SKIP LOCKED`): waiting for it would invert the lock order
 * of an approval (request, then flag) and deadlock; its apply checks the flag's version itself, and
 * the minute's sweep (`markStaleSweep`) marks it if it stays pending.
 */
export async function markStale(
  tx: Prisma.TransactionClient,
  projectId: number,
  resource: { type: string; id: string },
): Promise<string[]> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>(Prisma.sql`UPDATE change_requests
    SET validation_status = 'stale', validated_at = now(), updated_at = now(), validation_errors = ${STALENESS}::jsonb
    WHERE id IN (SELECT id FROM change_requests
      WHERE project_id = ${projectId} AND resource_type = ${resource.type} AND resource_id = ${resource.id}
        AND state = 'pending' AND validation_status <> 'stale'
      FOR UPDATE SKIP LOCKED)
    RETURNING id::text`);
  return rows.map((row) => row.id);
}

/**
 * Marks stale every pending, still valid request on a flag whose version is no longer the one it was
 * made against (any project): how many. The periodic check PostHog runs, behind `markStale`.
 */
export function markStaleSweep(db: Db): Promise<number> {
  return db.$executeRaw(Prisma.sql`UPDATE change_requests r
    SET validation_status = 'stale', validated_at = now(), updated_at = now(), validation_errors = ${STALENESS}::jsonb
    FROM feature_flags f
    WHERE r.resource_type = 'feature_flag' AND r.state = 'pending' AND r.validation_status <> 'stale'
      AND r.resource_id ~ '^[0-9]{1,9}$' AND f.id = r.resource_id::integer AND f.project_id = r.project_id
      AND (r.intent -> 'preconditions' ->> 'version') IS DISTINCT FROM f.version::text`);
}

/** Pending or approved requests whose time is up (any project), oldest first, at most `limit`. */
export function selectExpired(ctx: Pick<ServiceContext, "db">, now: Date, limit: number) {
  return ctx.db.changeRequest.findMany({
    where: { state: { in: [...OPEN_STATES] }, expiresAt: { lte: now } },
    select: { id: true, projectId: true },
    orderBy: { expiresAt: "asc" },
    take: limit,
  });
}
