/**
 * How flags are kept: every write of the flag tables (the row, its tag links) and every read a
 * write's decision takes (key clashes, the project's flags as the dependency rules see them, the
 * row locked for an update). The service says what happens (feature-flags.service.ts,
 * feature-flags.writes.ts); this module says how it is stored. Reads that answer callers are the
 * read model's (feature-flags.queries.ts).
 *
 * Invariant: every statement filters by `project_id` or by a row id read under it; a write takes the
 * transaction it belongs to (`tx`), never the client, or (`setUsageDashboard`, which another domain
 * calls) joins the ambient one (core/transactional.ts).
 */
import { NotFoundError } from "../core/errors.js";
import { lockAndRead } from "../core/row-lock.js";
import { ensureTags } from "../core/tags.js";
import { type TransactionalContext, transactional } from "../core/transactional.js";
import { prismaReader } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";
import { type FlagRecord, readFlag } from "./feature-flags.queries.js";
import type { CreateFlagInput } from "./feature-flags.schemas.js";
import type { FeatureFlagFilters, FlagSummary } from "./rules/filter-types.js";
import { isFullyRolledOut } from "./rules/status.js";

/** A database the write rules read through: the client, or a transaction's (a write inside another domain's). */
export type LookupDb = Pick<Prisma.TransactionClient, "featureFlag" | "dashboard" | "cohort">;

/** A flag as the dependency rules see it, with its name (for their messages). */
export type NamedFlagSummary = FlagSummary & { name: string };

/** Whether a non-deleted flag of the project other than `exceptId` has `key`. */
export async function isKeyTaken(
  db: LookupDb,
  projectId: number,
  key: string,
  exceptId: number | null,
): Promise<boolean> {
  const clash = await db.featureFlag.findFirst({
    where: { projectId, key, deleted: false, ...(exceptId === null ? {} : { id: { not: exceptId } }) },
    select: { id: true },
  });
  return clash !== null;
}

/** The project's non-deleted flags as the dependency rules see them, by id. */
export async function readFlagSummaries(
  db: LookupDb,
  projectId: number,
): Promise<Map<number, NamedFlagSummary>> {
  const rows = await db.featureFlag.findMany({
    where: { projectId, deleted: false },
    select: { id: true, key: true, name: true, active: true, deleted: true, filters: true },
  });
  return new Map(rows.map((row) => [row.id, row]));
}

/** Whether flag `id` is in the project, soft-deleted or not. */
export async function flagExists(db: LookupDb, projectId: number, id: number): Promise<boolean> {
  return (await db.featureFlag.findFirst({ where: { id, projectId }, select: { id: true } })) !== null;
}

/**
 * Locks flag `id`'s row in `tx` (core/row-lock.ts, PostHog's `select_for_update`) and reads it: the
 * writers of one flag take turns from here until their transactions end.
 * @throws NotFoundError
 */
export function lockFlag(tx: Prisma.TransactionClient, projectId: number, id: number): Promise<FlagRecord> {
  return lockAndRead(tx, "feature_flags", id, () => readFlag(prismaReader(tx), projectId, { id }));
}

/** Flag `id` as written so far in `tx`. @throws NotFoundError */
export function readFlagIn(tx: Prisma.TransactionClient, projectId: number, id: number): Promise<FlagRecord> {
  return readFlag(prismaReader(tx), projectId, { id });
}

/**
 * The soft-deleted flag of the project holding `key`, locked, with its experiments (ids ascending),
 * or null when there is none (or another writer removed or renamed it before the lock was taken).
 */
export async function lockSoftDeletedHolder(
  tx: Prisma.TransactionClient,
  projectId: number,
  key: string,
): Promise<{ id: number; experiments: Array<{ id: number; deleted: boolean }> } | null> {
  const holder = { projectId, key, deleted: true };
  const found = await tx.featureFlag.findFirst({ where: holder, select: { id: true } });
  if (!found) return null;
  const read = () =>
    tx.featureFlag.findFirst({
      where: { id: found.id, ...holder },
      select: { id: true, experiments: { select: { id: true, deleted: true }, orderBy: { id: "asc" } } },
    });
  return lockAndRead(tx, "feature_flags", found.id, read).catch((error: unknown) => {
    if (error instanceof NotFoundError) return null;
    throw error;
  });
}

/** Removes flag `id`'s row (a soft-deleted flag no experiment references). */
export async function removeFlagRow(tx: Prisma.TransactionClient, id: number): Promise<void> {
  await tx.featureFlag.delete({ where: { id } });
}

/** Renames flag `id`'s key (a soft-deleted flag's tombstone, `<key>:deleted:<id>`). */
export async function renameFlagKey(tx: Prisma.TransactionClient, id: number, key: string): Promise<void> {
  await tx.featureFlag.update({ where: { id }, data: { key } });
}

/**
 * Inserts a new flag from a create's validated input and filters, created and last modified by
 * `userId`. Returns its id and key. @throws Prisma's P2002 when the key is taken.
 */
export function insertFlag(
  tx: Prisma.TransactionClient,
  projectId: number,
  input: CreateFlagInput,
  filters: FeatureFlagFilters,
  userId: number,
): Promise<{ id: number; key: string }> {
  return tx.featureFlag.create({
    data: {
      projectId,
      key: input.key,
      name: input.name ?? "",
      filters: filters as Prisma.InputJsonValue,
      active: input.active ?? true,
      ensureExperienceContinuity: input.ensure_experience_continuity ?? false,
      rollbackConditions: (input.rollback_conditions ?? Prisma.DbNull) as Prisma.InputJsonValue,
      performedRollback: input.performed_rollback ?? null,
      hasEnrichedAnalytics: input.has_enriched_analytics ?? false,
      isRemoteConfiguration: input.is_remote_configuration ?? false,
      hasEncryptedPayloads: false,
      evaluationRuntime: input.evaluation_runtime ?? "all",
      bucketingIdentifier: input.bucketing_identifier ?? "distinct_id",
      creationContext: input.creation_context ?? "feature_flags",
      createInFolder: input._create_in_folder ?? null,
      shouldCreateUsageDashboard: input._should_create_usage_dashboard ?? true,
      variantCount: filters.multivariate?.variants?.length ?? 0,
      fullyRolledOut: isFullyRolledOut(filters),
      createdById: userId,
      lastModifiedById: userId,
    },
    select: { id: true, key: true },
  });
}

/**
 * Writes `next` over the row of flag `next.id`, locked in `tx`, with `filters` (validated) and
 * version `version`, last modified by `userId`; the derived columns (`variant_count`,
 * `fully_rolled_out`) follow the filters. Tags are written apart (`replaceFlagTags`). One
 * hand-written statement: a Prisma model update cost more than twice its CPU (issue 29's PATCH).
 */
export async function writeFlagRow(
  tx: Prisma.TransactionClient,
  next: FlagRecord,
  filters: FeatureFlagFilters,
  version: number,
  userId: number,
): Promise<void> {
  const rollback = next.rollbackConditions === null ? null : JSON.stringify(next.rollbackConditions);
  await tx.$executeRaw(Prisma.sql`
    UPDATE feature_flags SET
      key = ${next.key}, name = ${next.name}, filters = ${JSON.stringify(filters)}::jsonb,
      active = ${next.active}, deleted = ${next.deleted}, version = ${version},
      ensure_experience_continuity = ${next.ensureExperienceContinuity},
      rollback_conditions = ${rollback}::jsonb, performed_rollback = ${next.performedRollback},
      has_enriched_analytics = ${next.hasEnrichedAnalytics},
      is_remote_configuration = ${next.isRemoteConfiguration},
      evaluation_runtime = ${next.evaluationRuntime}::"EvaluationRuntime",
      bucketing_identifier = ${next.bucketingIdentifier}::"BucketingIdentifier",
      variant_count = ${filters.multivariate?.variants?.length ?? 0},
      fully_rolled_out = ${isFullyRolledOut(filters)}, last_modified_by_id = ${userId},
      updated_at = ${new Date()}
    WHERE id = ${next.id} AND project_id = ${next.projectId}`);
}

/**
 * Points flag `id` at its usage dashboard (`usage_dashboard_id`; no version bump, no activity entry,
 * as PostHog's `FeatureFlag.usage_dashboard` assignments). The one write of this module that takes
 * the context instead of `tx`: it joins the caller's `transactional` (core/transactional.ts), the
 * flag's create or the dashboards service's `createFlagUsageDashboard` (which is built before the
 * flag service and so writes the column through here, never through the flags' table itself).
 * @throws Prisma's P2025 when the flag's row is gone.
 */
export async function setUsageDashboard(
  ctx: TransactionalContext,
  id: number,
  usageDashboardId: number,
): Promise<void> {
  await transactional(ctx, (tx) => tx.featureFlag.update({ where: { id }, data: { usageDashboardId } }));
}

/**
 * Turns flag `id` on when it is off, bumping its version, last modified by `userId`; conditional on
 * the stored `active`, so two transactions turning it on at once turn it on once. Whether it did.
 */
export async function activateIfInactive(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: number,
  userId: number,
): Promise<boolean> {
  const { count } = await tx.featureFlag.updateMany({
    where: { id, projectId, active: false },
    data: { active: true, version: { increment: 1 }, lastModifiedById: userId },
  });
  return count > 0;
}

/** Replaces a flag's links of one tag kind with `names` (creating missing project tags). */
export async function replaceFlagTags(
  tx: Prisma.TransactionClient,
  projectId: number,
  flagId: number,
  names: readonly string[],
  relation: "tags" | "evaluationTags",
): Promise<void> {
  const links = (await ensureTags(tx, projectId, names)).map((tagId) => ({
    projectId,
    featureFlagId: flagId,
    tagId,
  }));
  if (relation === "tags") {
    await tx.featureFlagTag.deleteMany({ where: { featureFlagId: flagId } });
    if (links.length) await tx.featureFlagTag.createMany({ data: links });
  } else {
    await tx.featureFlagEvaluationTag.deleteMany({ where: { featureFlagId: flagId } });
    if (links.length) await tx.featureFlagEvaluationTag.createMany({ data: links });
  }
}
