/**
 * Pure rules on a cohort's criteria (`posthog/api/cohort.py` CohortSerializer, `CohortFilters`
 * pydantic models, `_find_behavioral_cohorts`; `posthog/models/cohort/validation.py`).
 */
import { NotImplementedError, ValidationError } from "../../core/errors.js";
import { behavioralSpec } from "../../lib/property-filters/behavioral.js";
import {
  type BehavioralFilter,
  hasBehavioralFilter,
  type PropertyFilter,
  type PropertyGroup,
  referencedCohortIds,
  walkNodes,
} from "../../lib/property-filters/property-filters.js";
import type { CohortType } from "../cohorts.schemas.js";

/**
 * PostHog's `PersonFilter` requires an operator (its default-to-`exact` applies to flags, not to
 * cohort criteria). @throws ValidationError `Missing required keys for person filter: operator`.
 */
export function checkPersonOperators(criteria: PropertyGroup): void {
  for (const node of walkNodes(criteria)) {
    if (node.type === "person" && ((node as PropertyFilter).operator ?? null) === null) {
      throw new ValidationError("Missing required keys for person filter: operator", { attr: "filters" });
    }
  }
}

/**
 * The parameters of every calculable behavioral criterion (`performed_event`,
 * `performed_event_multiple`) are complete and well formed, so that a cohort is never stored with
 * criteria its calculation would refuse; criteria not calculated here are stored as sent.
 * @throws ValidationError attr `filters` with PostHog's messages (`time_value must be an integer`, ...).
 */
export function checkBehavioralCriteria(criteria: PropertyGroup, now: Date): void {
  for (const node of walkNodes(criteria)) {
    if (node.type !== "behavioral") continue;
    try {
      behavioralSpec(node as BehavioralFilter, now);
    } catch (error) {
      if (!(error instanceof NotImplementedError)) throw error;
    }
  }
}

/** The type a cohort's content makes it: `static`, `behavioral` (it uses events) or `person_property`. */
export function derivedCohortType(isStatic: boolean, criteria: PropertyGroup | null): CohortType {
  if (isStatic) return "static";
  return criteria && hasBehavioralFilter(criteria) ? "behavioral" : "person_property";
}

/**
 * A `cohort_type` sent must agree with the cohort: `static` exactly for static cohorts, and a
 * dynamic cohort's type must fit its criteria (`behavioral` or `analytical` ones use events).
 * @throws ValidationError attr `cohort_type`.
 */
export function checkCohortType(given: CohortType, derived: CohortType): void {
  const fits = given === derived || (given === "analytical" && derived === "behavioral");
  if (!fits) {
    throw new ValidationError(`Cohort type '${given}' does not match the cohort's filters ('${derived}').`, {
      attr: "cohort_type",
    });
  }
}

/**
 * The ids of the cohorts that use events: those with a behavioral criterion, and those that name
 * (directly or through other cohorts) a cohort that does. `criteria` holds every cohort of the
 * project considered, by id (null for static cohorts). Iterates to a fixed point, so cycles end.
 */
export function cohortsUsingEvents(criteria: ReadonlyMap<number, PropertyGroup | null>): Set<number> {
  const using = new Set<number>();
  for (const [id, tree] of criteria) if (tree && hasBehavioralFilter(tree)) using.add(id);
  let changed = true;
  while (changed) {
    changed = false;
    for (const [id, tree] of criteria) {
      if (using.has(id) || !tree) continue;
      if (referencedCohortIds(tree).some((target) => using.has(target))) {
        using.add(id);
        changed = true;
      }
    }
  }
  return using;
}

/**
 * `filters` as PostHog answers it (`CohortSerializer.to_representation`): the stored value, or for a
 * cohort without one `{properties: ...}` built from the legacy `groups` (an OR of ANDs), `{}` when
 * there are none.
 */
export function filtersForResponse(filters: unknown, groups: unknown): Record<string, unknown> {
  if (filters && typeof filters === "object" && !Array.isArray(filters) && Object.keys(filters).length > 0) {
    return filters as Record<string, unknown>;
  }
  const legacy = Array.isArray(groups) ? groups.filter((g) => g && typeof g === "object") : [];
  if (legacy.length === 0) return { properties: {} };
  return {
    properties: {
      type: "OR",
      values: legacy.map((group) => ({
        type: "AND",
        values: Array.isArray((group as { properties?: unknown }).properties)
          ? (group as { properties: unknown[] }).properties
          : [],
      })),
    },
  };
}
