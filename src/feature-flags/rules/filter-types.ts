/**
 * The shapes of a flag's `filters` object and what the filter rules know about the project's other
 * flags (posthog-behavior.md §2.5–§2.6). Types only: validation is in filters.ts, the dependency
 * rules in flag-dependencies.ts.
 */

/**
 * One property condition (`filters.groups[].properties[]`), PostHog's `PropertyFilter`.
 * `type` absent means `"event"` (PostHog's `Property` default), which no flag accepts.
 * A `type: "flag"` property is a dependency: `key` is the other flag's id as a string,
 * `operator` is `flag_evaluates_to`, `value` is `true`, `false` or a variant key (§2.6).
 */
export interface PropertyFilter {
  key: string;
  type?: string | null;
  value?: unknown;
  operator?: string | null;
  negation?: boolean | null;
  group_type_index?: number | null;
  /** Added to cohort properties in responses; clients echo it back, so it is accepted and kept. */
  cohort_name?: string | null;
  [extra: string]: unknown;
}

/**
 * One release condition (`filters.groups[]`): all `properties` must match (AND), then
 * `rollout_percentage` (0–100, `null` = everyone) applies; `variant` forces a multivariate variant.
 */
export interface ConditionGroup {
  properties?: PropertyFilter[];
  rollout_percentage?: number | null;
  variant?: string | null;
  description?: string | null;
  sort_key?: string | null;
  /** Newer PostHog (mixed targeting): the group type this condition aggregates by. */
  aggregation_group_type_index?: number | null;
  [extra: string]: unknown;
}

/** One variant of a multivariate flag; the variants' `rollout_percentage`s sum to 100. */
export interface MultivariateVariant {
  key: string;
  name?: string | null;
  rollout_percentage: number;
  [extra: string]: unknown;
}

/**
 * A flag's `filters`, PostHog's snake_case JSON shape (§2.5). Absent `groups` is legal in stored
 * data: PostHog's `get_filters()` then synthesises one group from legacy `properties` and
 * `rollout_percentage`. `payloads` values are JSON strings (objects are stored serialised) or
 * other JSON values kept as sent.
 */
export interface FeatureFlagFilters {
  groups?: ConditionGroup[];
  multivariate?: { variants?: MultivariateVariant[]; [extra: string]: unknown } | null;
  /** `null` (or absent) for a person flag; N for a flag on group type N (0–4). */
  aggregation_group_type_index?: number | null;
  payloads?: Record<string, unknown>;
  /** Early-access enrollment conditions (older form of `feature_enrollment`). */
  super_groups?: ConditionGroup[];
  /** Older holdout form: `[{properties: [], rollout_percentage: P, variant: "holdout-<id>"}]`. */
  holdout_groups?: ConditionGroup[];
  /** Newer holdout form. */
  holdout?: { id: number; exclusion_percentage: number; [extra: string]: unknown } | null;
  feature_enrollment?: boolean | null;
  [extra: string]: unknown;
}

/** What `validateFilters` needs to know about another flag of the project. */
export interface FlagSummary {
  id: number;
  key: string;
  active: boolean;
  deleted: boolean;
  /** Stored filters, read tolerantly. */
  filters: unknown;
}

/** What `validateFilters` needs to know about a cohort a flag names (§2.5 rule 8). */
export interface CohortSummary {
  name: string | null;
  isStatic: boolean;
  /** Whether it, or any cohort it depends on, has criteria on events (behavioral). */
  usesEvents: boolean;
}

/** Everything `validateFilters` would otherwise read from the database or settings. */
export interface FiltersContext {
  /** POST (rule 2 applies) rather than PUT/PATCH. */
  isCreate: boolean;
  /** The flag being validated; `null` on create. */
  flagId: number | null;
  /** Its key (on update the stored key, as PostHog uses `instance.key`). */
  flagKey: string;
  /**
   * The project's flags by id, deleted ones included or not. Needed only when the filters hold a
   * `type: "flag"` property (see `referencedFlagIds`); may be empty otherwise.
   */
  flags: ReadonlyMap<number, FlagSummary>;
  /**
   * The project's cohorts that the filters name, by id (see `flagCohortIds`); a named id absent
   * here is no cohort of the project.
   */
  cohorts: ReadonlyMap<number, CohortSummary>;
  /** Rule 7's limit on list values per property (PostHog: 1000). */
  maxValuesPerProperty: number;
  /** Configured limit on the number of condition groups. */
  maxGroups: number;
  /** Configured limit on the number of multivariate variants (`FLAG_MAX_VARIANTS`). */
  maxVariants: number;
}
