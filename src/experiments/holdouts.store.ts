/**
 * How holdouts are kept: every write of `experiment_holdouts` (the holdout's row, its `filters`
 * groups) and every read a write decides from (the flags of the draft experiments a holdout's new
 * filters are copied to, the holdout as a create wrote it). The service says what happens
 * (holdouts.service.ts); this module says how it is stored. Listing, reading, locking and deleting
 * one holdout are the shared operations of project-objects.ts, over `holdoutTable`; a holdout's
 * record type is the read model's (experiments.queries.ts `HoldoutRecord`).
 *
 * Invariant: every statement filters by `project_id` or by a row id read under it; a write takes the
 * transaction it belongs to (`tx`), never the client.
 */
import { writeRowChange } from "../db/row-change.js";
import type { Prisma } from "../generated/prisma/client.js";
import { type HoldoutRecord, WITH_CREATOR } from "./experiments.queries.js";
import type { ObjectTable } from "./project-objects.js";

/** A new holdout's fields (its `filters` groups are written apart, once its id is known). */
export interface NewHoldout {
  name: string;
  /** null: none (SQL NULL). */
  description: string | null;
}

/** What an update writes over a holdout's row; an absent (undefined) field keeps its value. */
export interface HoldoutChange {
  name?: string | undefined;
  /** null: cleared (SQL NULL). */
  description?: string | null | undefined;
  /** The groups, each with its `variant` (`holdout-<id>`). */
  filters?: Array<Record<string, unknown>> | undefined;
}

/** The fields of a holdout an update writes (`HoldoutChange`'s). */
const CHANGEABLE = ["name", "description", "filters"] as const;

/** The holdouts' Prisma table, through which project-objects.ts lists, reads, locks (reads again) and deletes them. */
export function holdoutTable(db: Prisma.TransactionClient): ObjectTable<HoldoutRecord> {
  return db.experimentHoldout;
}

/**
 * Inserts a holdout of the project with `holdout`'s fields and no filter group (`[]`), created by
 * `userId`. Returns its id.
 */
export async function insertHoldout(
  tx: Prisma.TransactionClient,
  projectId: number,
  holdout: NewHoldout,
  userId: number,
): Promise<number> {
  const created = await tx.experimentHoldout.create({
    data: {
      projectId,
      name: holdout.name,
      description: holdout.description,
      filters: [],
      createdById: userId,
    },
  });
  return created.id;
}

/** Writes `filters` (the groups, each with its `variant`) as holdout `id`'s filters. */
export async function writeHoldoutFilters(
  tx: Prisma.TransactionClient,
  id: number,
  filters: Array<Record<string, unknown>>,
): Promise<void> {
  await tx.experimentHoldout.update({
    where: { id },
    data: { filters: filters as Prisma.InputJsonValue },
  });
}

/**
 * Holdout `id` as `tx` has written it, its creator included: what a create answers.
 * @throws Prisma's P2025 when there is no such holdout.
 */
export function readWrittenHoldout(tx: Prisma.TransactionClient, id: number): Promise<HoldoutRecord> {
  return tx.experimentHoldout.findUniqueOrThrow({ where: { id }, include: WITH_CREATOR });
}

/**
 * The flag ids of the project's non-deleted draft (not started) experiments using holdout
 * `holdoutId`, ascending (the order their rows are locked in), one per experiment.
 */
export async function selectDraftFlagIds(
  tx: Prisma.TransactionClient,
  projectId: number,
  holdoutId: number,
): Promise<number[]> {
  const drafts = await tx.experiment.findMany({
    where: { projectId, holdoutId, deleted: false, startDate: null },
    select: { featureFlagId: true },
    orderBy: { featureFlagId: "asc" },
  });
  return drafts.map((draft) => draft.featureFlagId);
}

/**
 * Writes `change` over holdout `id`'s row, locked in `tx`, updated at `now`. Returns it as written,
 * its creator included.
 */
export function writeHoldoutRow(
  tx: Prisma.TransactionClient,
  id: number,
  change: HoldoutChange,
  now: Date,
): Promise<HoldoutRecord> {
  // The groups are stored as JSON.
  const row = { ...change, filters: change.filters as Prisma.InputJsonValue | undefined };
  return writeRowChange(tx.experimentHoldout, id, row, CHANGEABLE, now, WITH_CREATOR);
}
