/**
 * How event and property definitions are kept alike: the storage half of the definitions' shared
 * base (definitions-base.ts), used by event-definitions.store.ts and
 * property-definitions/property-definitions.store.ts. Both tables hold a project's catalogue names
 * with PostHog's enterprise fields and a tag-link table each (`event_definition_tags`,
 * `property_definition_tags`); what does not depend on the kind (the row locked and read again, the
 * tag links replaced, the row deleted, a unique key's clash recognised, the fields every update
 * stamps) is written once here, over the tables the kind's store names (`DefinitionTable`, bound by
 * `definitionRows`). The lock (`lockUuidRecord`) and the clash serve the catalogue's other store,
 * event-schemas.store.ts, too.
 *
 * Invariant: every statement filters by `project_id`; a write takes the transaction it belongs to
 * (`tx`); table and column names are the stores' constants, never input, and values are bound.
 */
import { type LockableTable, type LockableTables, lockAndRead } from "../core/row-lock.js";
import { ensureTags } from "../core/tags.js";
import type { QueryClient } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";
import type { VerificationState } from "./rules/verification.js";

/** A table whose rows are named by UUID, as core/row-lock.ts declares it (`event_definitions`, ...). */
export type UuidTable = { [T in LockableTable]: LockableTables[T] extends string ? T : never }[LockableTable];

/** A definition table and its tag links, by their SQL names: constants of the kind's store. */
export interface DefinitionTable {
  /** The definitions (`id` uuid, `project_id`), e.g. `event_definitions`. */
  readonly table: UuidTable;
  /** Its tag links (`project_id`, the definition's column, `tag_id`), e.g. `event_definition_tags`. */
  readonly tagLinks: string;
  /** The links' column naming the definition, e.g. `event_definition_id`. */
  readonly linkColumn: string;
}

/**
 * What every update writes over a definition's row, whatever its kind: the description (absent:
 * kept), the verification columns as rules/verification.ts decided them, and who changed it when.
 */
export interface DefinitionChange extends VerificationState {
  description?: string | undefined;
  /** When it was changed through the API (`updated_at`). */
  updatedAt: Date;
  /** Who changed it (`updated_by_id`). */
  updatedById: number;
}

/**
 * Locks row `id` of `table` in `tx` (core/row-lock.ts, PostHog's `select_for_update`) and reads it
 * again with its read model's `select` (by lower-case UUIDs, scoped to the project): the state a
 * write decides from, which no other writer changes until `tx` ends. Shared by the catalogue's
 * stores (definitions, schema property groups, event schemas).
 * @throws NotFoundError when `id` is not a UUID or names no record of the project (or a writer
 *   before deleted it).
 */
export function lockUuidRecord<R>(
  tx: Prisma.TransactionClient,
  table: UuidTable,
  projectId: number,
  id: string,
  select: (db: QueryClient, projectId: number, ids: readonly string[]) => Promise<R[]>,
): Promise<R> {
  return lockAndRead(tx, table, id, async () => (await select(tx, projectId, [id.toLowerCase()]))[0] ?? null);
}

/** A SQL name from a store's constant (lower-case words joined by `_`), checked as core/row-lock.ts does. */
function name(sqlName: string): Prisma.Sql {
  if (!/^[a-z][a-z_]*$/.test(sqlName)) throw new Error(`not a SQL name: ${sqlName}`);
  return Prisma.raw(sqlName);
}

/**
 * Replaces definition `definitionId`'s tag links with `names` (normalised: core/tags.ts
 * `normalizeTags`), creating the project's missing tags, inside `tx`: the delete, and when `names`
 * is not empty two statements for the tags and the insert.
 */
async function replaceDefinitionTags(
  tx: Prisma.TransactionClient,
  table: DefinitionTable,
  projectId: number,
  definitionId: string,
  names: readonly string[],
): Promise<void> {
  const tagIds = await ensureTags(tx, projectId, names);
  const links = name(table.tagLinks);
  const column = name(table.linkColumn);
  await tx.$executeRaw`DELETE FROM ${links}
    WHERE project_id = ${projectId} AND ${column} = ${definitionId}::uuid`;
  if (tagIds.length === 0) return;
  await tx.$executeRaw`INSERT INTO ${links} (project_id, ${column}, tag_id)
    SELECT ${projectId}, ${definitionId}::uuid, tag_id FROM unnest(${tagIds}::int[]) AS tag_id`;
}

/** Deletes definition `id`'s row (`DefinitionRows.deleteRow`). */
async function deleteDefinitionRow(
  tx: Prisma.TransactionClient,
  table: DefinitionTable,
  projectId: number,
  id: string,
): Promise<void> {
  await tx.$executeRaw`DELETE FROM ${name(table.table)} WHERE project_id = ${projectId} AND id = ${id}::uuid`;
}

/** The writes every definition table takes alike, bound to one table (`definitionRows`). */
export interface DefinitionRows<R> {
  /**
   * Locks definition `id`'s row in `tx` and reads it again (`lockUuidRecord`): the state a write
   * decides from; concurrent writers of one definition take turns.
   * @throws NotFoundError when `id` is not a UUID or names no definition of the project (or a writer
   *   before deleted it).
   */
  lock(tx: Prisma.TransactionClient, projectId: number, id: string): Promise<R>;
  /** Replaces definition `id`'s tag links with `names` (normalised), creating missing project tags. */
  replaceTags(
    tx: Prisma.TransactionClient,
    projectId: number,
    id: string,
    names: readonly string[],
  ): Promise<void>;
  /**
   * Deletes definition `id`'s row, locked in `tx`, for good; its tag links (and an event's schemas)
   * go with it (the foreign keys' `ON DELETE CASCADE`). One statement.
   */
  deleteRow(tx: Prisma.TransactionClient, projectId: number, id: string): Promise<void>;
}

/**
 * The shared writes of definition table `table`, whose records its read model's `select` reads by
 * UUID (scoped to the project): what a kind's store publishes beside its own writes.
 */
export function definitionRows<R>(
  table: DefinitionTable,
  select: (db: QueryClient, projectId: number, ids: readonly string[]) => Promise<R[]>,
): DefinitionRows<R> {
  return {
    lock: (tx, projectId, id) => lockUuidRecord(tx, table.table, projectId, id, select),
    replaceTags: (tx, projectId, id, names) => replaceDefinitionTags(tx, table, projectId, id, names),
    deleteRow: (tx, projectId, id) => deleteDefinitionRow(tx, table, projectId, id),
  };
}

/**
 * Whether `error` is a unique-constraint violation of a Prisma write (P2002): another writer took a
 * unique name (a definition's, a property group's, an event schema's pair) between the service's
 * check and its insert.
 */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}
