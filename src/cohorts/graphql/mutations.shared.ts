/**
 * What every cohort mutation shares: the errors a write can fail with, the result naming, the
 * writable fields' PostHog names (inputs are re-encoded into the service's REST body), and ids.
 */
import { NotFoundError, NotImplementedError } from "../../core/errors.js";
import type { ErrorClass } from "../../graphql/errors.graphql.js";
import { WRITE_ERRORS as ANY_WRITE_ERRORS, mutationResult } from "../../graphql/mutation-result.js";
import { parseCohortId } from "./cohort.type.js";

/** What any cohort write can fail with: any write's errors, and what is not built (query cohorts). */
export const WRITE_ERRORS: readonly ErrorClass[] = [...ANY_WRITE_ERRORS, NotImplementedError];

/** plugin-errors options of a cohort mutation named `name` (e.g. `CreateCohort`). */
export function cohortResult(name: string, verb: string) {
  return mutationResult({ name, field: "cohort", what: "The cohort", verb, types: WRITE_ERRORS });
}

/** The description of every cohort input's `projectId`. */
export const PROJECT_ID_DESCRIPTION =
  "The cohort's project: PostHog's integer id (REST's `:project_id`) or the project's global `id`.";

/** The description of every cohort input's `id`. */
export const COHORT_ID_DESCRIPTION = "The cohort: PostHog's integer id (REST's `:id`) or its global `id`.";

/** The integer cohort id of a mutation input's `id`. @throws NotFoundError for an id naming no cohort. */
export function mutationCohortId(raw: string): number {
  const id = parseCohortId(raw);
  if (id === null) throw new NotFoundError();
  return id;
}

/** The writable cohort fields shared by create and update, with their PostHog names. */
export const COHORT_FIELD_NAMES = {
  name: "name",
  description: "description",
  filters: "filters",
  groups: "groups",
  query: "query",
  isStatic: "is_static",
  cohortType: "cohort_type",
} as const;
