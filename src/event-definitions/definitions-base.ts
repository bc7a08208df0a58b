/**
 * What event and property definitions do alike: the behaviour half of the definitions' shared base
 * (the storage half is definitions-base.store.ts), used by event-definitions.service.ts,
 * property-definitions/property-definitions.service.ts and, for deletes, event-schemas.service.ts.
 * Both kinds are a project's catalogue entries with PostHog's enterprise fields (description, tags,
 * verification, hidden); an update is decided from a first read, then written in one transaction
 * under the row's lock with its tags and an activity entry whose changes compare the record before
 * and after; a delete removes the row for good under the same lock. Sources:
 * `ee/api/ee_event_definition.py` and `ee_property_definition.py` (the enterprise serializers'
 * `update`), `posthog/api/event_definition.py` and `property_definition.py` (`destroy`, `log_activity`).
 * What differs between the kinds (the fields, the messages, the kind in an activity entry) stays in
 * each service and store.
 */
import { type ActivityScope, changesBetween, recordActivity } from "../core/activity-log.js";
import type { ServiceContext } from "../core/context.js";
import { normalizeTags } from "../core/tags.js";
import type { QueryClient } from "../db/sql-reader.js";
import type { Prisma } from "../generated/prisma/client.js";

/** How one kind of record is deleted under its row's lock (`deleteLocked`). */
export interface LockedDelete<R extends { id: string }> {
  /** Its activity scope (`EventDefinition`, `PropertyDefinition`, `SchemaPropertyGroup`, ...). */
  scope: ActivityScope;
  /** Locks record `id` of the project in `tx` and reads it (its store). @throws NotFoundError */
  lock(tx: Prisma.TransactionClient, projectId: number, id: string): Promise<R>;
  /** Deletes the locked record's row (its store). */
  deleteRow(tx: Prisma.TransactionClient, projectId: number, id: string): Promise<void>;
  /** The activity entry's `name` (PostHog's `__str__` of the object). */
  name(record: R): string;
  /** The activity entry's `detail.type` (a property definition's kind); absent: none. */
  type?(record: R): string;
}

/** How one kind of definition is kept and logged, for the shared update (`changeDefinition`). */
export interface DefinitionKeeping<R extends { id: string; name: string }> extends LockedDelete<R> {
  /** Definition `id` of the project through `db` (its read model). @throws NotFoundError */
  read(db: QueryClient, projectId: number, id: string): Promise<R>;
  /** Replaces the definition's tag links with `names`, normalised (its store). */
  replaceTags(
    tx: Prisma.TransactionClient,
    projectId: number,
    id: string,
    names: readonly string[],
  ): Promise<void>;
  /**
   * The fields its activity entries compare, under PostHog's names (PostHog diffs the validated
   * data, which holds the writable fields and what the rules set with them).
   */
  snapshot(record: R): Record<string, unknown>;
}

/**
 * Writes a change to definition `id` of the project (the id of its first read) in one transaction:
 * locks its row and reads it again (core/row-lock.ts), lets `write` decide again from that locked
 * state and write the row, replaces its tags when `tags` is given (`undefined`: kept), reads it as
 * written and records activity `changed` with the field changes, by the caller. Returns the
 * definition as written; concurrent writers of one definition take turns.
 * @throws NotFoundError when a writer before deleted it; what `write` throws (the transaction then
 *   rolls back).
 */
export function changeDefinition<R extends { id: string; name: string }>(
  ctx: ServiceContext,
  kind: DefinitionKeeping<R>,
  projectId: number,
  id: string,
  tags: readonly string[] | undefined,
  write: (tx: Prisma.TransactionClient, current: R) => Promise<void>,
): Promise<R> {
  return ctx.db.$transaction(async (tx) => {
    const current = await kind.lock(tx, projectId, id);
    await write(tx, current);
    if (tags !== undefined) await kind.replaceTags(tx, projectId, current.id, normalizeTags(tags));
    const updated = await kind.read(tx, projectId, current.id);
    await recordActivity(tx, {
      projectId,
      userId: ctx.actor.user.id,
      scope: kind.scope,
      itemId: current.id,
      activity: "changed",
      name: current.name,
      type: kind.type?.(current) ?? null,
      changes: changesBetween(kind.scope, kind.snapshot(current), kind.snapshot(updated)),
    });
    return updated;
  });
}

/**
 * Deletes record `id` of the project for good in one transaction: locks its row and reads it, deletes
 * it and records activity `deleted` by the caller. Of concurrent deletes the first deletes; the others
 * find no row. Returns the record as it was. The caller has authorized the write.
 * @throws NotFoundError when `id` names no record of the project (or a writer before deleted it).
 */
export function deleteLocked<R extends { id: string }>(
  ctx: ServiceContext,
  kind: LockedDelete<R>,
  projectId: number,
  id: string,
): Promise<R> {
  return ctx.db.$transaction(async (tx) => {
    const current = await kind.lock(tx, projectId, id);
    await kind.deleteRow(tx, projectId, current.id);
    await recordActivity(tx, {
      projectId,
      userId: ctx.actor.user.id,
      scope: kind.scope,
      itemId: current.id,
      activity: "deleted",
      name: kind.name(current),
      type: kind.type?.(current) ?? null,
      changes: null,
    });
    return current;
  });
}
