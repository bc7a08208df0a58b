/**
 * What holdouts and saved metrics share (ee/clickhouse/views/experiment_holdouts.py,
 * experiment_saved_metrics.py): both are plain per-project objects with a creator, listed newest
 * first in offset pages, read by id, and hard-deleted with an activity entry. One implementation
 * serves both, over the few calls of their Prisma table it needs. Their writes lock the object's
 * row and decide from it (`lock`, core/row-lock.ts): concurrent writers of one object take turns.
 */
import { recordActivity } from "../core/activity-log.js";
import { authorizeProject } from "../core/auth/access.js";
import type { Scope } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError } from "../core/errors.js";
import type { OffsetPage } from "../core/paging.js";
import { lockAndRead } from "../core/row-lock.js";
import { transactional } from "../core/transactional.js";
import type { Prisma } from "../generated/prisma/client.js";
import { WITH_CREATOR } from "./experiments.queries.js";

/** The calls of a Prisma table (`experimentHoldout`, `experimentSavedMetric`) the shared operations make. */
export interface ObjectTable<R> {
  count(args: { where: { projectId: number } }): Promise<number>;
  findMany(args: {
    where: { projectId: number };
    include: typeof WITH_CREATOR;
    orderBy: Array<{ createdAt: "desc" } | { id: "desc" }>;
    take: number;
    skip: number;
  }): Promise<R[]>;
  findFirst(args: {
    where: { projectId: number; id: number };
    include: typeof WITH_CREATOR;
  }): Promise<R | null>;
  delete(args: { where: { id: number } }): Promise<unknown>;
}

/** One kind of project object: its scopes, its activity scope and its table. */
export interface ObjectKind<R> {
  /** The scope object (`experiment_holdout`): reads need `:read`, deletes `:write`. */
  scope: "experiment_holdout" | "experiment_saved_metric";
  /** The activity log's scope of its entries. */
  activityScope: "ExperimentHoldout" | "ExperimentSavedMetric";
  /** Its SQL table, whose rows writes lock. */
  sqlTable: "experiment_holdouts" | "experiment_saved_metrics";
  table(db: Prisma.TransactionClient): ObjectTable<R>;
}

/** List, read and delete of one kind of project object (see the module comment). */
export function projectObjectOperations<R extends { id: number; name: string }>(kind: ObjectKind<R>) {
  const read: Scope = `${kind.scope}:read` as const;
  const write: Scope = `${kind.scope}:write` as const;

  /** The object `id` of the project, its creator included. @throws NotFoundError */
  async function find(ctx: ServiceContext, projectId: number, id: number): Promise<R> {
    const found = await kind.table(ctx.db).findFirst({ where: { projectId, id }, include: WITH_CREATOR });
    if (!found) throw new NotFoundError();
    return found;
  }

  /**
   * Locks object `id`'s row in `tx` and reads it again (core/row-lock.ts): the state a write decides
   * from, which no other writer changes until `tx` ends. @throws NotFoundError when it is gone.
   */
  function lock(tx: Prisma.TransactionClient, projectId: number, id: number): Promise<R> {
    return lockAndRead(tx, kind.sqlTable, id, () =>
      kind.table(tx).findFirst({ where: { projectId, id }, include: WITH_CREATOR }),
    );
  }

  return {
    find,
    lock,

    /** One page of the project's objects, newest first: `{count, results}`. Scope `<scope>:read`. */
    async list(ctx: ServiceContext, projectId: number, page: OffsetPage) {
      const project = await authorizeProject(ctx, projectId, read);
      const where = { projectId: project.id };
      const table = kind.table(ctx.db);
      const [count, results] = await Promise.all([
        table.count({ where }),
        table.findMany({
          where,
          include: WITH_CREATOR,
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          take: page.limit,
          skip: page.offset,
        }),
      ]);
      return { count, results };
    },

    /** One object. Scope `<scope>:read`. @throws NotFoundError */
    async get(ctx: ServiceContext, projectId: number, id: number): Promise<R> {
      await authorizeProject(ctx, projectId, read);
      return find(ctx, projectId, id);
    },

    /**
     * Deletes the object and logs `deleted` (204), under its row lock: of concurrent deletes the
     * first deletes, the others find it gone. Scope `<scope>:write`. @throws NotFoundError
     */
    async remove(ctx: ServiceContext, projectId: number, id: number): Promise<void> {
      await authorizeProject(ctx, projectId, write);
      await transactional(ctx, async (tx) => {
        const current = await lock(tx, projectId, id);
        await kind.table(tx).delete({ where: { id } });
        await recordActivity(tx, {
          projectId,
          userId: ctx.actor.user.id,
          scope: kind.activityScope,
          itemId: String(id),
          activity: "deleted",
          name: current.name,
          changes: null,
        });
      });
    },
  };
}
