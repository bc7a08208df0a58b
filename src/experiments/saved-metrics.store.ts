/**
 * How saved metrics are kept: every write of `experiment_saved_metrics` (the saved metric's row).
 * The service says what happens (saved-metrics.service.ts); this module says how it is stored.
 * Listing, reading, locking and deleting one saved metric are the shared operations of
 * project-objects.ts, over `savedMetricTable`; a saved metric's record type is the read model's
 * (experiments.queries.ts `SavedMetricRecord`); the links of experiments to saved metrics are
 * experiments.store.ts's.
 *
 * Invariant: every statement filters by `project_id` or by a row id read under it; a write takes the
 * transaction it belongs to (`tx`), never the client.
 */
import { writeRowChange } from "../db/row-change.js";
import type { Prisma } from "../generated/prisma/client.js";
import { type SavedMetricRecord, WITH_CREATOR } from "./experiments.queries.js";
import type { ObjectTable } from "./project-objects.js";

/** A new saved metric's fields. */
export interface NewSavedMetric {
  name: string;
  /** null: none (SQL NULL). */
  description: string | null;
  /** The metric query (`kind` checked by the service), as sent. */
  query: Record<string, unknown>;
}

/** What an update writes over a saved metric's row; an absent (undefined) field keeps its value. */
export interface SavedMetricChange {
  name?: string | undefined;
  /** null: cleared (SQL NULL). */
  description?: string | null | undefined;
  query?: Record<string, unknown> | undefined;
}

/** The fields of a saved metric an update writes (`SavedMetricChange`'s). */
const CHANGEABLE = ["name", "description", "query"] as const;

/** The saved metrics' Prisma table, through which project-objects.ts lists, reads, locks (reads again) and deletes them. */
export function savedMetricTable(db: Prisma.TransactionClient): ObjectTable<SavedMetricRecord> {
  return db.experimentSavedMetric;
}

/**
 * Inserts a saved metric of the project with `metric`'s fields, created by `userId`. Returns it as
 * written, its creator included.
 */
export function insertSavedMetric(
  tx: Prisma.TransactionClient,
  projectId: number,
  metric: NewSavedMetric,
  userId: number,
): Promise<SavedMetricRecord> {
  return tx.experimentSavedMetric.create({
    data: {
      projectId,
      name: metric.name,
      description: metric.description,
      query: metric.query as Prisma.InputJsonValue,
      createdById: userId,
    },
    include: WITH_CREATOR,
  });
}

/**
 * Writes `change` over saved metric `id`'s row, locked in `tx`, updated at `now`. Returns it as
 * written, its creator included.
 */
export function writeSavedMetricRow(
  tx: Prisma.TransactionClient,
  id: number,
  change: SavedMetricChange,
  now: Date,
): Promise<SavedMetricRecord> {
  // The metric query is stored as sent (JSON).
  const row = { ...change, query: change.query as Prisma.InputJsonValue | undefined };
  return writeRowChange(tx.experimentSavedMetric, id, row, CHANGEABLE, now, WITH_CREATOR);
}
