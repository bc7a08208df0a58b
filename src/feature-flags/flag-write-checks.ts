/**
 * The checks a flag's create and update both make (feature-flags.writes.ts), by PostHog's rules in
 * their order: the key (unique among non-deleted flags, then its character set), the request's
 * `analytics_dashboards`, the fields beside `filters` (encrypted payloads, evaluation tags) and the
 * filters themselves (rules/filters.ts, told about the cohorts and flags they name); and the other
 * domains' services every flag write calls. Source: `posthog/api/feature_flag.py`
 * (`FeatureFlagSerializer`'s validation); posthog-behavior.md §2.4–2.5.
 */
import type { ApprovalGate } from "../approvals/approvals.gate.js";
import type { CohortService } from "../cohorts/cohorts.service.js";
import type { ServiceContext } from "../core/context.js";
import { NotImplementedError, ValidationError } from "../core/errors.js";
import { normalizeTags } from "../core/tags.js";
import { existingDashboardIds } from "../dashboards/dashboards.queries.js";
import type { DashboardService } from "../dashboards/dashboards.service.js";
import type { UpdateFlagInput } from "./feature-flags.schemas.js";
import { isKeyTaken, type LookupDb } from "./feature-flags.store.js";
import type { FeatureFlagFilters, FlagSummary } from "./rules/filter-types.js";
import { validateFilters } from "./rules/filters.js";
import { referencedFlagIds } from "./rules/flag-dependencies.js";
import { flagCohortIds } from "./rules/stored-filters.js";

const KEY_PATTERN = /^[a-zA-Z0-9_-]+$/;

export const duplicateKey = () =>
  new ValidationError("There is already a feature flag with this key.", { attr: "key", code: "unique" });

/** The other domains' services a flag write calls. */
export interface FlagWriteCollaborators {
  /** Tells the filter rules about the cohorts a flag names (existence, PostHog's `behavioral_cohort_found`). */
  cohorts: Pick<CohortService, "summariesForFlags">;
  /** Writes a new flag's usage dashboard and renames its insights with the key (§2.4, §2.7, §2.11). */
  dashboards: Pick<DashboardService, "writeUsageDashboard" | "renameUsageDashboardKey">;
  /** Holds writes an approval policy matches (issue 27): called under the row lock, before writing. */
  approvals: { gate: ApprovalGate };
}

/** Creates the checks over the cohort service the filter rules ask. */
export function createFlagWriteChecks(others: Pick<FlagWriteCollaborators, "cohorts">) {
  const { cohorts } = others;
  /** Key rules in PostHog's order: unique among non-deleted flags, then the character set (§2.4). */
  async function validateKey(db: LookupDb, projectId: number, key: string, exceptId: number | null) {
    if (await isKeyTaken(db, projectId, key, exceptId)) throw duplicateKey();
    if (!KEY_PATTERN.test(key)) {
      throw new ValidationError("Only letters, numbers, hyphens (-) & underscores (_) are allowed.", {
        attr: "key",
        code: "invalid_key",
      });
    }
  }

  /**
   * `analytics_dashboards` (§2.4): an id that is no dashboard of the project is DRF's "does not
   * exist"; linking existing ones (PostHog's `FeatureFlagDashboards`) is not built: 501.
   */
  async function checkAnalyticsDashboards(db: LookupDb, projectId: number, input: UpdateFlagInput) {
    const ids = input.analytics_dashboards ?? [];
    if (ids.length === 0) return;
    const known = await existingDashboardIds(db, projectId, ids);
    const missing = ids.find((id) => !known.has(id));
    if (missing !== undefined) {
      throw new ValidationError(`Invalid pk "${missing}" - object does not exist.`, {
        attr: "analytics_dashboards",
        code: "does_not_exist",
      });
    }
    throw new NotImplementedError(
      "Linking analytics dashboards to a flag is not supported by this service yet: only its usage dashboard is kept.",
    );
  }

  /**
   * Rules on the fields beside `filters`: encrypted payloads (not built), evaluation tags a subset
   * of the same request's tags.
   */
  function checkFieldsBesideFilters(input: UpdateFlagInput) {
    if (input.has_encrypted_payloads) {
      throw new NotImplementedError(
        "Encrypted payloads are not supported by this service yet: payloads are stored as given.",
      );
    }
    if (input.evaluation_tags?.length) {
      // Checked against the tags of the same request, as PostHog does (EvaluationTagSerializerMixin.validate).
      const tags = new Set(normalizeTags(input.tags ?? []));
      const invalid = normalizeTags(input.evaluation_tags).filter((tag) => !tags.has(tag));
      if (invalid.length > 0) {
        throw new ValidationError(
          `Evaluation tags must be a subset of tags. Invalid evaluation tags: ${invalid.join(", ")}`,
        );
      }
    }
  }

  /**
   * `raw` filters validated by §2.5's rules for flag `flag` (`id` null on create). The cohorts they
   * name are read through the cohort service, in the write's transaction when it has one.
   * @throws ValidationError
   */
  async function validatedFilters(
    ctx: ServiceContext,
    projectId: number,
    raw: unknown,
    flag: { id: number | null; key: string },
    isCreate: boolean,
    summaries: () => Promise<Map<number, FlagSummary>>,
  ): Promise<FeatureFlagFilters> {
    const flags = referencedFlagIds(raw).length > 0 ? await summaries() : new Map<number, FlagSummary>();
    const cohortIds = flagCohortIds(raw);
    const cohortSummaries = await cohorts.summariesForFlags(ctx, projectId, cohortIds);
    return validateFilters(raw, {
      isCreate,
      flagId: flag.id,
      flagKey: flag.key,
      flags,
      cohorts: cohortSummaries,
      maxValuesPerProperty: ctx.limits.flagMaxPropertyValues,
      maxGroups: ctx.limits.flagMaxConditionGroups,
      maxVariants: ctx.limits.flagMaxVariants,
    });
  }

  return { validateKey, checkAnalyticsDashboards, checkFieldsBesideFilters, validatedFilters };
}
