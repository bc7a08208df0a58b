/**
 * Version history (issue 27): every create and update of a versioned object (a feature flag, an
 * experiment) keeps the whole object as a numbered version, with who and when, in `object_versions`,
 * written in the transaction of the write it records. A flag's versions are numbered by its own
 * `version`; an experiment's by a counter of its own (1 at create, one more per recorded update).
 * A restore writes a new version equal to an earlier one through the object's update path, under
 * `withVersionRestore`: its activity entry carries the trigger `{job_type: "version_restore",
 * job_id: "<n>", payload: {version: n}}` and its version row `restored_from` = n.
 */

import { isDeepStrictEqual } from "node:util";
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import {
  type ActivityChange,
  type ActivityScope,
  activeTrigger,
  changesBetween,
  withActivityTrigger,
} from "./activity-log.js";
import { authorizeProject } from "./auth/access.js";
import type { Scope } from "./auth/scopes.js";
import type { ServiceContext } from "./context.js";
import { NotFoundError } from "./errors.js";
import type { OffsetPage } from "./paging.js";
import { USER_BASIC_SELECT, type UserBasic } from "./records.js";

/** A versioned object: its model (as the activity log names it), project and id. */
export interface VersionedObject {
  scope: ActivityScope;
  projectId: number;
  itemId: string;
}

/** One stored version. */
export interface VersionRecord {
  /** The version's number, 1 and up. */
  version: number;
  /** The activity of the write that made it: `created`, `updated`, `deleted` or `restored`. */
  activity: string;
  /** The version a restore copied, or null. */
  restoredFrom: number | null;
  /** The object's fields under PostHog's model names. */
  snapshot: Record<string, unknown>;
  /** Who made it (null for a user since deleted, or a system write). */
  createdBy: UserBasic | null;
  createdAt: Date;
}

/** A version with its field changes from the version before it (all fields `created` for the first one kept). */
export interface VersionWithChanges extends VersionRecord {
  changes: ActivityChange[];
}

/** The `job_type` of the activity trigger a restore's write carries. */
export const VERSION_RESTORE_JOB = "version_restore";

/**
 * Runs `work` (the object's update to the fields of version `version`) as a restore of that
 * version: the activity entry it writes for `object` carries the restore trigger, and the version
 * row it writes records `restored_from`.
 */
export function withVersionRestore<T>(
  object: VersionedObject,
  version: number,
  work: () => Promise<T>,
): Promise<T> {
  return withActivityTrigger(
    object,
    { job_type: VERSION_RESTORE_JOB, job_id: String(version), payload: { version } },
    work,
  );
}

/** A new version's fields: `version` its number, or `"next"` for one more than the highest kept (1 for the first). */
export interface NewVersion extends VersionedObject {
  version: number | "next";
  activity: string;
  snapshot: Record<string, unknown>;
  userId: number | null;
}

/**
 * Writes a version in the caller's transaction (the object's row is locked or new there, so
 * `"next"` cannot be taken twice). A version already kept under that number is left as it is.
 */
export async function recordVersion(tx: Prisma.TransactionClient, entry: NewVersion): Promise<void> {
  const trigger = activeTrigger(entry);
  const restoredFrom =
    trigger?.job_type === VERSION_RESTORE_JOB && typeof trigger.payload["version"] === "number"
      ? trigger.payload["version"]
      : null;
  const snapshot = JSON.stringify(entry.snapshot);
  const number =
    entry.version === "next"
      ? Prisma.sql`(SELECT COALESCE(MAX(version), 0) + 1 FROM object_versions
          WHERE project_id = ${entry.projectId} AND scope = ${entry.scope} AND item_id = ${entry.itemId})`
      : Prisma.sql`${entry.version}`;
  await tx.$executeRaw(Prisma.sql`INSERT INTO object_versions
      (project_id, scope, item_id, version, activity, restored_from, snapshot, created_by_id)
    VALUES (${entry.projectId}, ${entry.scope}, ${entry.itemId}, ${number}, ${entry.activity},
      ${restoredFrom}, ${snapshot}::jsonb, ${entry.userId})
    ON CONFLICT DO NOTHING`);
}

const VERSION_SELECT = {
  version: true,
  activity: true,
  restoredFrom: true,
  snapshot: true,
  createdAt: true,
  createdBy: { select: USER_BASIC_SELECT },
} as const;

type VersionRow = Prisma.ObjectVersionGetPayload<{ select: typeof VERSION_SELECT }>;

function toRecord(row: VersionRow): VersionRecord {
  return { ...row, snapshot: (row.snapshot ?? {}) as Record<string, unknown> };
}

/** `version` with its changes from `previous` (the version before it, or none). */
function withChanges(scope: ActivityScope, version: VersionRecord, previous: VersionRecord | undefined) {
  return { ...version, changes: changesBetween(scope, previous?.snapshot ?? {}, version.snapshot) };
}

/**
 * One page of `object`'s versions, highest first, each with its changes from the one before it,
 * and how many there are. One statement for the page (one row more than the page, for the last
 * one's changes) and one for the count.
 */
export async function selectVersionPage(
  db: PrismaClient | Prisma.TransactionClient,
  object: VersionedObject,
  page: OffsetPage,
): Promise<{ count: number; results: VersionWithChanges[] }> {
  const where = { projectId: object.projectId, scope: object.scope, itemId: object.itemId };
  const [rows, count] = await Promise.all([
    db.objectVersion.findMany({
      where,
      select: VERSION_SELECT,
      orderBy: { version: "desc" },
      skip: page.offset,
      take: page.limit + 1,
    }),
    db.objectVersion.count({ where }),
  ]);
  const records = rows.map(toRecord);
  return {
    count,
    results: records
      .slice(0, page.limit)
      .map((version, i) => withChanges(object.scope, version, records[i + 1])),
  };
}

/** The snapshot of `object`'s highest kept version (the object as it stands), or undefined when none is kept. */
async function latestSnapshot(
  db: PrismaClient | Prisma.TransactionClient,
  object: VersionedObject,
): Promise<Record<string, unknown> | undefined> {
  const row = await db.objectVersion.findFirst({
    where: { projectId: object.projectId, scope: object.scope, itemId: object.itemId },
    select: { snapshot: true },
    orderBy: { version: "desc" },
  });
  return row ? ((row.snapshot ?? {}) as Record<string, unknown>) : undefined;
}

/** Version `version` of `object` with its changes from the one before it, or null when none is kept. */
export async function readVersion(
  db: PrismaClient | Prisma.TransactionClient,
  object: VersionedObject,
  version: number,
): Promise<VersionWithChanges | null> {
  const rows = await db.objectVersion.findMany({
    where: {
      projectId: object.projectId,
      scope: object.scope,
      itemId: object.itemId,
      version: { lte: version },
    },
    select: VERSION_SELECT,
    orderBy: { version: "desc" },
    take: 2,
  });
  const [found, previous] = rows.map(toRecord);
  if (!found || found.version !== version) return null;
  return withChanges(object.scope, found, previous);
}

/** How a domain's objects are versioned, for `versionOperations`. */
export interface VersionedKind<T> {
  scope: ActivityScope;
  /** The scope reading versions needs (the object's read scope). */
  readScope: Scope;
  /** The scope a restore needs (the object's write scope). */
  writeScope: Scope;
  /** Whether object `id` is one of the project's (deleted ones included: their history stays readable). */
  exists(ctx: ServiceContext, projectId: number, id: number): Promise<boolean>;
  /** The update body that sets an object to the fields of `snapshot` (those its update path takes). */
  restoreBody(snapshot: Record<string, unknown>): Record<string, unknown>;
  /** The object's update path, after the restore was authorised (its rules, gates, activity, webhooks). */
  update(ctx: ServiceContext, projectId: number, id: number, body: Record<string, unknown>): Promise<T>;
}

/**
 * The update body of a restore to `target` from `latest` (the latest kept version, the object as it
 * stands): only the fields whose values differ, so the update changes, gates and logs exactly what
 * the restore takes back (a field sent unchanged can still have effects: `active: true` clears a
 * flag's performed rollback). Everything `restoreBody` gives when no version is kept yet.
 */
function restoreChanges<T>(
  kind: VersionedKind<T>,
  target: Record<string, unknown>,
  latest: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const wanted = kind.restoreBody(target);
  if (latest === undefined) return wanted;
  const current = kind.restoreBody(latest);
  return Object.fromEntries(
    Object.entries(wanted).filter(([field, value]) => !isDeepStrictEqual(value, current[field])),
  );
}

/**
 * The version operations of one kind of object: list, read one, restore one. The same for every
 * door; a restore is an ordinary update of the fields it copies (so every rule of the update path,
 * its approvals, activity, webhooks and live subscribers apply), marked as a restore.
 */
export function versionOperations<T>(kind: VersionedKind<T>) {
  const object = (projectId: number, id: number): VersionedObject => ({
    scope: kind.scope,
    projectId,
    itemId: String(id),
  });
  async function authorized(ctx: ServiceContext, projectId: number, id: number, scope: Scope) {
    const project = await authorizeProject(ctx, projectId, scope);
    if (!(await kind.exists(ctx, project.id, id))) throw new NotFoundError();
    return object(project.id, id);
  }
  async function found(ctx: ServiceContext, target: VersionedObject, version: number) {
    const record = await readVersion(ctx.db, target, version);
    if (!record) throw new NotFoundError();
    return record;
  }
  return {
    /**
     * A page of object `id`'s versions, highest first, with their changes and the count. Read scope.
     * @throws NotFoundError for an object not in the project.
     */
    async versions(ctx: ServiceContext, projectId: number, id: number, page: OffsetPage) {
      return selectVersionPage(ctx.db, await authorized(ctx, projectId, id, kind.readScope), page);
    },
    /** Version `version` of object `id`, with its changes. Read scope. @throws NotFoundError (object or version). */
    async version(ctx: ServiceContext, projectId: number, id: number, version: number) {
      return found(ctx, await authorized(ctx, projectId, id, kind.readScope), version);
    },
    /**
     * Writes a new version of object `id` equal to version `version` through the update path, as a
     * restore (`withVersionRestore`); nothing when the object already equals it. Write scope.
     * Returns what the update returns. @throws NotFoundError (object or version); what the update throws.
     */
    async restore(ctx: ServiceContext, projectId: number, id: number, version: number): Promise<T> {
      const target = await authorized(ctx, projectId, id, kind.writeScope);
      const record = await found(ctx, target, version);
      const latest = await latestSnapshot(ctx.db, target);
      return withVersionRestore(target, version, () =>
        kind.update(ctx, target.projectId, id, restoreChanges(kind, record.snapshot, latest)),
      );
    },
  };
}
