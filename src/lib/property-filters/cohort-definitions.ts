/**
 * Reads the cohorts a property tree reaches, directly or through other cohorts, so that `toSql`
 * can expand them: one statement per level of nesting, each reading only cohorts not read yet, so
 * a cycle ends the walk instead of looping. Only the project's cohorts are read.
 *
 * A cohort's criteria are its `filters.properties` (PostHog's current shape). Cohorts stored in the
 * legacy `groups` form (`[{properties: [...]}, ...]`, OR of ANDs; `posthog/models/cohort/cohort.py`
 * `Cohort.properties`) are read as that tree; a legacy group about events (`action_id`,
 * `event_id`) reads as an unreadable behavioral criterion, which the translation refuses.
 */
import type { Prisma } from "../../generated/prisma/client.js";
import { UNREADABLE_CRITERIA } from "./behavioral.js";
import {
  cohortCriteriaSchema,
  type PropertyGroup,
  type PropertyNode,
  referencedCohortIds,
} from "./property-filters.js";
import type { CohortDefinition } from "./translate.js";

/** A client that can read cohorts (the database or a transaction). */
export type CohortReader = Pick<Prisma.TransactionClient, "cohort">;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The criteria tree of a stored cohort as stored, from `filters` or legacy `groups`: null when it has
 * none (nothing stored), `"unreadable"` when what is stored no longer parses or, in legacy `groups`,
 * is about events (`action_id`, `event_id`). Readers decide what unreadable means for them.
 */
export function readCriteria(filters: unknown, groups: unknown): PropertyGroup | null | "unreadable" {
  if (isObject(filters) && filters["properties"] !== undefined) {
    const parsed = cohortCriteriaSchema.safeParse(filters["properties"]);
    return parsed.success ? parsed.data : "unreadable";
  }
  if (!Array.isArray(groups) || groups.length === 0) return null;
  const values: PropertyNode[] = [];
  for (const group of groups) {
    if (!isObject(group) || group["action_id"] !== undefined || group["event_id"] !== undefined) {
      return "unreadable";
    }
    const parsed = cohortCriteriaSchema.safeParse({ type: "AND", values: group["properties"] ?? [] });
    if (!parsed.success) return "unreadable";
    values.push(parsed.data);
  }
  return { type: "OR", values };
}

/**
 * The criteria tree of a stored dynamic cohort, from `filters` or legacy `groups`; null when it has
 * none (static cohorts, or nothing stored). Stored criteria were validated when written; anything
 * that no longer parses reads as a behavioral criterion, so it is refused rather than guessed at.
 */
export function storedCriteria(filters: unknown, groups: unknown): PropertyGroup | null {
  const criteria = readCriteria(filters, groups);
  return criteria === "unreadable" ? unreadable() : criteria;
}

function unreadable(): PropertyGroup {
  return {
    type: "AND",
    values: [{ type: "behavioral", key: "", value: "performed_event", [UNREADABLE_CRITERIA]: true }],
  };
}

/**
 * Every cohort of `projectId` that `root` reaches (through `type: "cohort"` filters, and the
 * criteria of the cohorts they name), by id. Ids of other projects or of no cohort are absent.
 */
export async function loadCohortDefinitions(
  db: CohortReader,
  projectId: number,
  root: PropertyNode,
): Promise<Map<number, CohortDefinition>> {
  const found = new Map<number, CohortDefinition>();
  const asked = new Set<number>();
  let pending = referencedCohortIds(root);
  while (pending.length > 0) {
    for (const id of pending) asked.add(id);
    const rows = await db.cohort.findMany({
      where: { projectId, id: { in: pending } },
      select: { id: true, name: true, deleted: true, isStatic: true, filters: true, groups: true },
    });
    const next = new Set<number>();
    for (const row of rows) {
      const criteria = row.isStatic ? null : storedCriteria(row.filters, row.groups);
      found.set(row.id, {
        id: row.id,
        name: row.name,
        deleted: row.deleted,
        isStatic: row.isStatic,
        criteria,
      });
      if (criteria) for (const id of referencedCohortIds(criteria)) if (!asked.has(id)) next.add(id);
    }
    // Ids asked for and not found stay absent (and are not asked for again).
    pending = [...next];
  }
  return found;
}
