/**
 * What every flag mutation shares: the errors a write can fail with, the result naming, and the
 * writable fields' PostHog names (GraphQL inputs are re-encoded into the service's REST body).
 */
import { NotFoundError } from "../../core/errors.js";
import type { ErrorClass } from "../../graphql/errors.graphql.js";
import { mutationResult } from "../../graphql/mutation-result.js";
import { parseFlagId } from "./feature-flag.type.js";

/** plugin-errors options of a flag mutation named `name` (e.g. `CreateFeatureFlag`). */
export function flagResult(name: string, verb: string, types: readonly ErrorClass[]) {
  return mutationResult({ name, field: "featureFlag", what: "The flag", verb, types });
}

/** The description of every flag input's `projectId`. */
export const PROJECT_ID_DESCRIPTION =
  "The flag's project: PostHog's integer id (REST's `:project_id`) or the project's global `id`.";

/** The description of every flag input's `id`. */
export const FLAG_ID_DESCRIPTION = "The flag: PostHog's integer id (REST's `:id`) or the flag's global `id`.";

/**
 * The integer flag id of a mutation input's `id` (see `parseFlagId`).
 * @throws NotFoundError (`Not found.`) for an id that names no flag.
 */
export function mutationFlagId(raw: string): number {
  const id = parseFlagId(raw);
  if (id === null) throw new NotFoundError();
  return id;
}

/** The description of every flag input's `expectedVersion`: GraphQL's strict version check. */
export const EXPECTED_VERSION_DESCRIPTION =
  "The `version` the change is based on: if the flag's version is another one, the change is refused with a " +
  "ConflictError, whatever changed (stricter than REST, which follows PostHog's `original_flag` rule).";

/** The writable flag fields shared by create and update, with their PostHog names. */
export const PATCH_FIELD_NAMES = {
  key: "key",
  name: "name",
  filters: "filters",
  active: "active",
  tags: "tags",
  evaluationTags: "evaluation_tags",
  ensureExperienceContinuity: "ensure_experience_continuity",
  rollbackConditions: "rollback_conditions",
  performedRollback: "performed_rollback",
  hasEnrichedAnalytics: "has_enriched_analytics",
  isRemoteConfiguration: "is_remote_configuration",
  hasEncryptedPayloads: "has_encrypted_payloads",
  evaluationRuntime: "evaluation_runtime",
  bucketingIdentifier: "bucketing_identifier",
  analyticsDashboards: "analytics_dashboards",
} as const;
