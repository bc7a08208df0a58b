/**
 * Flag status and the derived "simple flag" response fields, computed from a flag's stored state.
 *
 * Status follows PostHog's `FeatureFlagStatusChecker` as of Oct–Nov 2025
 * (`posthog/models/feature_flag/flag_status.py`, posthog-behavior.md §2.8), the version that
 * matches the `active=STALE` list filter: usage (`last_called_at`) decides when known, otherwise an
 * old, fully rolled-out configuration is stale. Reason strings are PostHog's, verbatim.
 * Filters are read tolerantly: stored filters are free-form JSON.
 */

import { conditionGroups, isJsonObject } from "./stored-filters.js";

/** Status names as the flag object's `status` field shows them (`GET :id/status` lower-cases them). */
export const FLAG_STATUS_NAMES = ["ACTIVE", "STALE", "DELETED", "UNKNOWN"] as const;
/** One of `FLAG_STATUS_NAMES`. */
export type FlagStatusName = (typeof FLAG_STATUS_NAMES)[number];

/** A status with PostHog's human-readable reason. */
export interface FlagStatusResult {
  status: FlagStatusName;
  reason: string;
}

/**
 * The status of a flag that cannot be found: `GET :id/status` answers it with 404 (§2.8,
 * `FeatureFlagStatusChecker.get_status` for a missing flag). An existing flag is never UNKNOWN.
 */
export const UNKNOWN_FLAG_STATUS: FlagStatusResult = { status: "UNKNOWN", reason: "Flag could not be found" };

/**
 * The enum value of a status, as `GET :id/status` answers it (`ACTIVE` → `active`): PostHog's
 * action returns the enum's value, the flag object its name (posthog-behavior.md decision 4).
 */
export function flagStatusValue(status: FlagStatusName): Lowercase<FlagStatusName> {
  return status.toLowerCase() as Lowercase<FlagStatusName>;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Days without a call (or, never called, since creation) after which an active flag is STALE (§2.8). */
export const STALE_AFTER_DAYS = 30;

/** The instant before which a flag's last call (or, never called, its creation) makes it STALE at `now`. */
export function staleCutoff(now: Date): Date {
  return new Date(now.getTime() - STALE_AFTER_DAYS * DAY_MS);
}

/**
 * The status of an existing flag at `now`:
 * deleted → DELETED; disabled → ACTIVE (not evaluated for staleness); called more than 30 days ago
 * → STALE, else ACTIVE with how long ago; never called, created more than 30 days ago and fully
 * rolled out (`isFullyRolledOut`) → STALE; otherwise ACTIVE "Flag has no usage data yet".
 * Day counts are whole elapsed days (Python `timedelta.days`); a `lastCalledAt` in the future
 * (clock skew between writers) counts as today rather than PostHog's "-1 days ago".
 * Source: `posthog/models/feature_flag/flag_status.py` `FeatureFlagStatusChecker.get_status`.
 */
export function flagStatus(
  flag: { deleted: boolean; active: boolean; lastCalledAt: Date | null; createdAt: Date; filters: unknown },
  now: Date,
): FlagStatusResult {
  if (flag.deleted) return { status: "DELETED", reason: "Flag has been deleted" };
  if (!flag.active) return { status: "ACTIVE", reason: "Flag is disabled (not evaluated for staleness)" };

  const staleBefore = staleCutoff(now).getTime();
  if (flag.lastCalledAt !== null) {
    const days = Math.max(0, Math.floor((now.getTime() - flag.lastCalledAt.getTime()) / DAY_MS));
    if (flag.lastCalledAt.getTime() < staleBefore) {
      return { status: "STALE", reason: `Flag has not been called in ${days} days` };
    }
    if (days === 0) return { status: "ACTIVE", reason: "Flag was called today" };
    return { status: "ACTIVE", reason: `Flag was last called ${days} day${days === 1 ? "" : "s"} ago` };
  }
  if (flag.createdAt.getTime() < staleBefore) {
    const explanation = fullyRolledOutExplanation(flag.filters);
    if (explanation !== null) return { status: "STALE", reason: explanation };
  }
  return { status: "ACTIVE", reason: "Flag has no usage data yet" };
}

/**
 * Whether a flag's stored `filters` make every evaluation give the same answer:
 * a boolean flag with empty/absent filters or some group at `rollout_percentage` 100 with no
 * properties; a multivariate flag with such a group and either a variant override on one of them
 * or some variant at 100%. (The flag's `active` state is the caller's concern.)
 * Source: `posthog/models/feature_flag/flag_status.py` `is_flag_fully_rolled_out`.
 */
export function isFullyRolledOut(filters: unknown): boolean {
  return fullyRolledOutExplanation(filters) !== null;
}

function fullyRolledOutExplanation(filters: unknown): string | null {
  const multivariate = isJsonObject(filters) ? filters.multivariate : undefined;
  // Python truthiness: an empty `multivariate` object means a boolean flag.
  if (isJsonObject(multivariate) && Object.keys(multivariate).length > 0) {
    const variants = Array.isArray(multivariate.variants) ? multivariate.variants.filter(isJsonObject) : [];
    const fullVariant = variants.find((variant) => variant.rollout_percentage === 100);
    const fullVariantKey = fullVariant ? (fullVariant.key ?? null) : null;
    const fullGroups = conditionGroups(filters).filter(isGroupFullyRolledOut);
    // PostHog folds the overrides with Python's `or`, keeping the first truthy one (else the last value).
    let override: unknown = null;
    for (const group of fullGroups) override = override || (group.variant ?? null);
    if (fullGroups.length === 0 || (override === null && fullVariantKey === null)) return null;
    return `This flag will always use the variant "${String(override || fullVariantKey || "")}"`;
  }
  // A flag with no filters at all is legacy data that PostHog evaluates as rolled out to everyone.
  const empty =
    filters === null || filters === undefined || (isJsonObject(filters) && Object.keys(filters).length === 0);
  if (empty || conditionGroups(filters).some(isGroupFullyRolledOut)) {
    return 'This boolean flag will always evaluate to "true"';
  }
  return null;
}

function isGroupFullyRolledOut(group: Record<string, unknown>): boolean {
  return group.rollout_percentage === 100 && propertyCount(group) === 0;
}

// Counted like Python's len(group.get("properties", [])), malformed entries included.
function propertyCount(group: Record<string, unknown>): number {
  return Array.isArray(group.properties) ? group.properties.length : 0;
}

/**
 * The release conditions PostHog's `FeatureFlag.get_filters()` sees: `filters.groups` when the key
 * is present, else one group synthesised from legacy `filters.properties` and the legacy
 * `rollout_percentage` column (so `{}` is one group, no properties, rollout `null` = everyone).
 */
function effectiveConditions(
  filters: unknown,
  legacyRolloutPercentage: number | null,
): { groups: Record<string, unknown>[]; aggregationGroupTypeIndex: unknown } {
  if (isJsonObject(filters) && "groups" in filters) {
    return {
      groups: conditionGroups(filters),
      aggregationGroupTypeIndex: filters.aggregation_group_type_index,
    };
  }
  const properties = isJsonObject(filters) ? (filters.properties ?? []) : [];
  return {
    groups: [{ properties, rollout_percentage: legacyRolloutPercentage }],
    aggregationGroupTypeIndex: null,
  };
}

/**
 * The older response field `is_simple_flag` (§2.2): exactly one release condition, no properties
 * in it, and a person flag (no `aggregation_group_type_index`). SDKs could then evaluate the flag
 * from `rollout_percentage` alone.
 * Source: `posthog/api/feature_flag.py` `FeatureFlagSerializer.get_is_simple_flag` (older).
 */
export function isSimpleFlag(filters: unknown): boolean {
  const { groups, aggregationGroupTypeIndex } = effectiveConditions(filters, null);
  return (
    groups.length === 1 &&
    groups.every((group) => propertyCount(group) === 0) &&
    (aggregationGroupTypeIndex === null || aggregationGroupTypeIndex === undefined)
  );
}

/**
 * The older response field `rollout_percentage` (§2.2): the single group's rollout (0–100, `null`
 * = everyone) for a simple flag, else `null`. `legacyRolloutPercentage` is the flag's legacy
 * `rollout_percentage` column, used when `filters` has no `groups`.
 * Source: `posthog/api/feature_flag.py` `FeatureFlagSerializer.get_rollout_percentage` (older).
 */
export function simpleRolloutPercentage(
  filters: unknown,
  legacyRolloutPercentage: number | null = null,
): number | null {
  if (!isSimpleFlag(filters)) return null;
  const rollout = effectiveConditions(filters, legacyRolloutPercentage).groups[0]?.rollout_percentage;
  return typeof rollout === "number" ? rollout : null;
}
