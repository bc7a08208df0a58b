/**
 * The activity log: who changed what, field by field, written in the same transaction as the
 * change itself (posthog/models/activity_logging/activity_log.py, posthog-behavior.md §2.9).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { isDeepStrictEqual } from "node:util";
import { v7 as uuidv7 } from "uuid";
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { authorizeProject } from "./auth/access.js";
import type { ServiceContext } from "./context.js";
import { ValidationError } from "./errors.js";
import { inUuidOrder, isUuid } from "./validation.js";

/** Default entries per activity page (posthog-behavior.md §2.9). */
export const DEFAULT_ACTIVITY_PAGE_SIZE = 10;

/**
 * The paging an activity read asked for: `limit` ≥ 1 (default 10, clamped to `maxLimit`), 1-based
 * `page` ≥ 1 (default 1). Absent values take the defaults.
 * @throws ValidationError (attr `limit` or `page`) for a value that is not a whole number ≥ 1.
 */
export function activityPaging(
  requested: { limit?: number | null; page?: number | null },
  maxLimit: number,
): { limit: number; page: number } {
  const check = (name: "limit" | "page", value: number | null | undefined, fallback: number) => {
    if (value === null || value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new ValidationError("Ensure this value is a whole number greater than or equal to 1.", {
        attr: name,
      });
    }
    return value;
  };
  return {
    limit: Math.min(check("limit", requested.limit, DEFAULT_ACTIVITY_PAGE_SIZE), maxLimit),
    page: check("page", requested.page, 1),
  };
}

/**
 * The models entries can be about, named as PostHog names them (`FeatureFlag`, `Experiment`, ...).
 * Open: each domain registers its own scope by declaration merging, and edits nothing here:
 * `declare module "../core/activity-log.js" { interface ActivityScopes { FeatureFlag: true } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging from each domain
export interface ActivityScopes {}

/** The model an entry is about: one of the registered `ActivityScopes`. */
export type ActivityScope = keyof ActivityScopes & string;

/**
 * One field's change: `created` (was null), `deleted` (is null) or `changed`. These entry shapes are
 * type aliases, not interfaces, so they fit the REST door's loose response schemas (src/rest/activity.ts).
 */
export type ActivityChange = {
  type: ActivityScope;
  action: "created" | "changed" | "deleted";
  field: string;
  before: unknown;
  after: unknown;
};

/** What triggered a change other than a user (e.g. a scheduled change). */
export type ActivityTrigger = {
  job_type: string;
  job_id: string;
  payload: Record<string, unknown>;
};

/** PostHog's `detail` object of an entry. */
export type ActivityDetail = {
  changes: ActivityChange[] | null;
  trigger: ActivityTrigger | null;
  type: string | null;
  name: string | null;
  short_id: string | null;
};

/** A stored entry with the user who made it (null for system activity). */
export interface ActivityEntry {
  id: string;
  /** The project whose object the entry is about. */
  projectId: number;
  activity: string;
  scope: string;
  itemId: string | null;
  detail: ActivityDetail;
  createdAt: Date;
  isSystem: boolean;
  user: { id: number; firstName: string; email: string } | null;
}

/** One page of entries, newest first. */
export interface ActivityPage {
  results: ActivityEntry[];
  totalCount: number;
  hasNext: boolean;
  hasPrevious: boolean;
}

/**
 * Field changes between two snapshots of a record (PostHog `changes_between`): every key of
 * either snapshot, compared by value; `null`/absent before and a value after is `created`, the
 * reverse `deleted`, any other difference `changed`. Callers leave excluded fields out of the snapshots.
 */
export function changesBetween(
  scope: ActivityScope,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): ActivityChange[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changes: ActivityChange[] = [];
  for (const field of fields) {
    const left = before[field] ?? null;
    const right = after[field] ?? null;
    if (left === null && right !== null) {
      changes.push({ type: scope, action: "created", field, before: null, after: right });
    } else if (right === null && left !== null) {
      changes.push({ type: scope, action: "deleted", field, before: left, after: null });
    } else if (!isDeepStrictEqual(left, right)) {
      changes.push({ type: scope, action: "changed", field, before: left, after: right });
    }
  }
  return changes;
}

/**
 * The activity of an update to a soft-deletable record (PostHog's flag and experiment serializers):
 * `deleted` when it sets `deleted`, `restored` when it clears it, else `updated`.
 */
export function softDeleteActivity(
  before: { deleted: boolean },
  after: { deleted: boolean },
): "deleted" | "restored" | "updated" {
  if (after.deleted && !before.deleted) return "deleted";
  if (!after.deleted && before.deleted) return "restored";
  return "updated";
}

/** An entry to write. */
export interface NewActivity {
  projectId: number;
  userId: number | null;
  scope: ActivityScope;
  itemId: string;
  activity: string;
  name: string | null;
  changes: ActivityChange[] | null;
  /** `detail.type`: what kind of object the entry names, where a scope has kinds (a property definition's `event`, `person`, ...). */
  type?: string | null;
}

/** An entry as written, handed to the `ActivityListener`s in the writing transaction. */
export interface RecordedActivity {
  /** The entry's id (UUIDv7). */
  id: string;
  projectId: number;
  userId: number | null;
  scope: ActivityScope;
  itemId: string;
  activity: string;
  detail: ActivityDetail;
  createdAt: Date;
}

/**
 * Work that must commit or roll back with an activity entry (the webhooks' delivery jobs): called by
 * `recordActivity` after the entry's insert, inside the same transaction; what it throws fails the write.
 */
export type ActivityListener = (tx: Prisma.TransactionClient, entry: RecordedActivity) => Promise<void>;

const activityListeners = new Set<ActivityListener>();

/**
 * Registers `listener` for every entry written in this process from now on (the composition root
 * registers the domains' listeners once). Returns the function that removes it.
 */
export function onActivityRecorded(listener: ActivityListener): () => void {
  activityListeners.add(listener);
  return () => activityListeners.delete(listener);
}

/** The object a trigger is in force for: its model, project and id (as entries name them). */
export interface TriggerTarget {
  scope: ActivityScope;
  projectId: number;
  itemId: string;
}

const triggers = new AsyncLocalStorage<{ target: TriggerTarget; trigger: ActivityTrigger }>();

/**
 * Runs `work` with `trigger` in force for the entries about `target` written inside it (in this
 * async context): each gets `detail.trigger` = `trigger`, as PostHog stamps a change a job applied
 * (a scheduled change's `{job_type: "scheduled_change", ...}`, a version restore's). Entries about
 * other objects, written by the same work (an experiment's, a dashboard's), keep none.
 */
export function withActivityTrigger<T>(
  target: TriggerTarget,
  trigger: ActivityTrigger,
  work: () => Promise<T>,
): Promise<T> {
  return triggers.run({ target, trigger }, work);
}

/** The trigger in force for entries about `target` (see `withActivityTrigger`), or null. */
export function activeTrigger(target: TriggerTarget): ActivityTrigger | null {
  const current = triggers.getStore();
  if (!current) return null;
  const { scope, projectId, itemId } = current.target;
  return scope === target.scope && projectId === target.projectId && itemId === target.itemId
    ? current.trigger
    : null;
}

/**
 * Writes an entry inside the caller's transaction, then runs the `ActivityListener`s in it. An
 * `updated` entry with no changes is not written (PostHog `log_activity`). The entry carries the
 * trigger in force for its object (`withActivityTrigger`). Returns whether an entry was written.
 */
export async function recordActivity(tx: Prisma.TransactionClient, entry: NewActivity): Promise<boolean> {
  if (entry.activity === "updated" && (entry.changes === null || entry.changes.length === 0)) return false;
  const detail: ActivityDetail = {
    changes: entry.changes,
    trigger: activeTrigger(entry),
    type: entry.type ?? null,
    name: entry.name,
    short_id: null,
  };
  // One hand-written statement (a Prisma model create cost ~70% more CPU); ids are UUIDv7, as the schema's default.
  const row = { id: uuidv7(), createdAt: new Date() };
  await tx.$executeRaw(Prisma.sql`
    INSERT INTO activity_logs (id, project_id, user_id, scope, item_id, activity, detail, created_at)
    VALUES (${row.id}::uuid, ${entry.projectId}, ${entry.userId}, ${entry.scope}, ${entry.itemId},
      ${entry.activity}, ${JSON.stringify(detail)}::jsonb, ${row.createdAt})`);
  for (const listener of activityListeners) {
    await listener(tx, {
      id: row.id,
      projectId: entry.projectId,
      userId: entry.userId,
      scope: entry.scope,
      itemId: entry.itemId,
      activity: entry.activity,
      detail,
      createdAt: row.createdAt,
    });
  }
  return true;
}

/** Which entries to read: a project's entries of one scope, optionally of one item, page by page. */
export interface ActivityQuery {
  projectId: number;
  scope: ActivityScope;
  itemId?: string;
  /** Entries per page (≥ 1). */
  limit: number;
  /** 1-based page number. */
  page: number;
}

/** What an entry's read includes beside its row: the user who made it, as entries show them. */
const ENTRY_INCLUDE = { user: { select: { id: true, firstName: true, email: true } } } as const;

/** A stored row as an entry. */
function toEntry(row: Prisma.ActivityLogGetPayload<{ include: typeof ENTRY_INCLUDE }>): ActivityEntry {
  return {
    id: row.id,
    projectId: row.projectId,
    activity: row.activity,
    scope: row.scope,
    itemId: row.itemId,
    detail: row.detail as unknown as ActivityDetail,
    createdAt: row.createdAt,
    isSystem: row.isSystem === true || row.userId === null,
    user: row.user,
  };
}

/** Reads one page of entries, newest first (ties broken by the time-ordered id). */
export async function listActivity(db: PrismaClient, query: ActivityQuery): Promise<ActivityPage> {
  const where = {
    projectId: query.projectId,
    scope: query.scope,
    ...(query.itemId === undefined ? {} : { itemId: query.itemId }),
  };
  const [rows, totalCount] = await Promise.all([
    db.activityLog.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: (query.page - 1) * query.limit,
      take: query.limit,
      include: ENTRY_INCLUDE,
    }),
    db.activityLog.count({ where }),
  ]);
  return {
    results: rows.map(toEntry),
    totalCount,
    hasNext: query.page * query.limit < totalCount,
    hasPrevious: query.page > 1,
  };
}

/** Creates the activity-log service: reads of entries by id, whatever domain wrote them. */
export function createActivityLogService() {
  return {
    /**
     * Entries of project `projectId` by id (UUID), in order, null where the project has none with
     * that id. One statement after the project check. Scope `activity_log:read`, as every activity read.
     * @throws NotFoundError, PermissionDeniedError for the project (core/auth/access.ts).
     */
    async getMany(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly string[],
    ): Promise<(ActivityEntry | null)[]> {
      await authorizeProject(ctx, projectId, "activity_log:read");
      const wanted = [...new Set(ids.filter((id) => isUuid(id)))];
      const rows = wanted.length
        ? await ctx.db.activityLog.findMany({
            where: { projectId, id: { in: wanted } },
            include: ENTRY_INCLUDE,
          })
        : [];
      return inUuidOrder(ids, rows.map(toEntry));
    },
  };
}

/** The activity-log service's operations. */
export type ActivityLogService = ReturnType<typeof createActivityLogService>;

declare module "./services.js" {
  interface Services {
    /** See `createActivityLogService`. */
    activityLog: ActivityLogService;
  }
}
