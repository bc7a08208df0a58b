/**
 * Validation and normalisation of a feature flag's `filters` object, and the flag-dependency rules
 * around it, as PostHog's `FeatureFlagSerializer` applies them (`posthog/api/feature_flag.py`:
 * `validate_filters`, `_check_flag_circular_dependencies`, `update`; posthog-behavior.md §2.5–§2.6).
 *
 * Pure: whatever PostHog reads from the database (the project's flags, its cohort ids, the limits)
 * comes in through `FiltersContext`. A value returned by `validateFilters` has the documented type
 * for every known key, keeps unknown keys as sent (PostHog stores filters free-form), holds object
 * payloads as JSON strings, and references only existing, active flags without a cycle.
 * Checks run in PostHog's order, so for input PostHog accepts structurally the first error reported
 * is the one PostHog reports; malformed known keys (a 500 or silent acceptance in PostHog) are
 * reported first, as `Filters are not valid (<path> must be ...)`.
 */

import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { pythonJsonDumps, pythonStr } from "./python-format.js";
import { conditionGroups, groupProperties, isJsonObject, parseId } from "./stored-filters.js";

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
  /** Ids of the project's cohorts. */
  cohortIds: ReadonlySet<number>;
  /** Rule 7's limit on list values per property (PostHog: 1000). */
  maxValuesPerProperty: number;
  /** Configured limit on the number of condition groups. */
  maxGroups: number;
}

/**
 * On PATCH, PostHog ignores a `filters` value without a `groups` key and keeps the stored filters
 * (§2.5 rule 1). `keepStored: true` means: leave the filters alone, validate nothing, record no
 * change. Any other value (including a non-object, which validation then rejects) is to be passed
 * to `validateFilters`. PUT does not get this treatment.
 */
export function filtersForUpdate<S>(
  stored: S,
  incoming: unknown,
): { keepStored: true; filters: S } | { keepStored: false; filters: unknown } {
  if (isJsonObject(incoming) && !("groups" in incoming)) return { keepStored: true, filters: stored };
  return { keepStored: false, filters: incoming };
}

/**
 * Ids of the flags that `filters` depends on: the parseable `key`s of `type: "flag"` properties in
 * `groups`, in first-occurrence order, without duplicates. A caller loads the project's flags for
 * `FiltersContext.flags` only when this is non-empty. Unparseable references are skipped here
 * (`validateFilters` reports them; stored data is read as PostHog's evaluation reads it).
 * Source: `posthog/models/feature_flag/local_evaluation.py` `_get_flag_properties_from_filters`.
 */
export function referencedFlagIds(filters: unknown): number[] {
  const ids = new Set<number>();
  for (const group of conditionGroups(filters)) {
    for (const property of groupProperties(group)) {
      const id = property.type === "flag" ? parseId(property.key) : null;
      if (id !== null) ids.add(id);
    }
  }
  return [...ids];
}

const PERSON_FLAG_PROPERTY_TYPES = new Set(["person", "cohort", "flag"]);
const STRING_VALUE_OPERATORS = new Set([
  "regex",
  "icontains",
  "not_regex",
  "not_icontains",
  "gte",
  "lte",
  "gt",
  "lt",
]);

const nullableString = () => z.string({ error: "must be a string or null" }).nullable().optional();
const groupTypeIndex = () =>
  z
    .int({ error: "must be an integer from 0 to 4 or null" })
    .min(0, { error: "must be an integer from 0 to 4 or null" })
    .max(4, { error: "must be an integer from 0 to 4 or null" })
    .nullable()
    .optional();
const list = <T extends z.ZodType>(item: T) => z.array(item, { error: "must be a list" });

const propertyFilterSchema = z.looseObject(
  {
    key: z.union([z.string(), z.int().transform(String)], { error: "must be a string" }),
    type: nullableString(),
    value: z.unknown().optional(),
    operator: nullableString(),
    negation: z.boolean({ error: "must be a boolean or null" }).nullable().optional(),
    group_type_index: groupTypeIndex(),
    cohort_name: nullableString(),
  },
  { error: "must be an object" },
);

const conditionGroupSchema = z.looseObject(
  {
    properties: list(propertyFilterSchema).optional(),
    rollout_percentage: z.number({ error: "must be a number or null" }).nullable().optional(),
    variant: nullableString(),
    description: nullableString(),
    sort_key: nullableString(),
    aggregation_group_type_index: groupTypeIndex(),
  },
  { error: "must be an object" },
);

const variantSchema = z.looseObject(
  {
    key: z.string({ error: "must be a non-empty string" }).min(1, { error: "must be a non-empty string" }),
    name: nullableString(),
    rollout_percentage: z.number({ error: "must be a number" }),
  },
  { error: "must be an object" },
);

// `payloads` is left to rule 12, which has PostHog's own messages.
const filtersSchema = z.looseObject({
  groups: list(conditionGroupSchema).optional(),
  multivariate: z
    .looseObject({ variants: list(variantSchema).optional() }, { error: "must be an object or null" })
    .nullable()
    .optional(),
  aggregation_group_type_index: groupTypeIndex(),
  payloads: z.unknown().optional(),
  super_groups: list(conditionGroupSchema).optional(),
  holdout_groups: list(conditionGroupSchema).optional(),
  holdout: z
    .looseObject(
      {
        id: z.int({ error: "must be an integer" }),
        exclusion_percentage: z.number({ error: "must be a number" }),
      },
      { error: "must be an object or null" },
    )
    .nullable()
    .optional(),
  feature_enrollment: z.boolean({ error: "must be a boolean or null" }).nullable().optional(),
});

/**
 * Validates and normalises a `filters` object sent on create or update.
 *
 * Applies, in PostHog's order: the field type (`filters` must be an object); rule 2 (on create,
 * at least one group); the shape of every known key; `ctx.maxGroups`; rules 3–4 (property types
 * for person and group flags, `flag_evaluates_to`, flag-dependency references and cycles per §2.6);
 * rule 5 (variants sum to exactly 100); rule 6 (variant overrides exist); rules 7–11 per property;
 * rule 12 (payloads). Rule 13: group `rollout_percentage` is not range-checked, as in PostHog.
 *
 * Normalises: object payload values become `json.dumps` strings; integer property keys become
 * strings; flag-dependency keys become the canonical id string (`" 7"` → `"7"`), so that
 * `dependentFlags` finds every dependent.
 *
 * @throws ValidationError attr `"filters"`: code `null` / `not_a_dict` for a non-object (DRF's
 *   DictField messages), `max_length` above `ctx.maxGroups`, `cohort_does_not_exist`,
 *   `invalid_date`, `invalid_value`, `invalid_operator` as in §2.5, otherwise `invalid_input`.
 * Source: `posthog/api/feature_flag.py` `FeatureFlagSerializer.validate_filters`.
 */
export function validateFilters(input: unknown, ctx: FiltersContext): FeatureFlagFilters {
  if (input === null) throw invalid("This field may not be null.", "null");
  if (!isJsonObject(input)) {
    throw invalid(`Expected a dictionary of items but got type "${pythonTypeName(input)}".`, "not_a_dict");
  }
  const sentGroups = input.groups;
  if (ctx.isCreate && (sentGroups === undefined || sentGroups === null || isEmptyList(sentGroups))) {
    throw invalid("Feature flags must have at least one condition set (group).");
  }

  const parsed = filtersSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(
      `Filters are not valid (${formatPath(issue?.path ?? [])} ${issue?.message ?? "is invalid"})`,
    );
  }
  const { payloads: sentPayloads, ...filters } = parsed.data;
  const groups = filters.groups ?? [];
  if (groups.length > ctx.maxGroups) {
    throw invalid(
      `Feature flags can have at most ${ctx.maxGroups} condition sets (groups); got ${groups.length}.`,
      "max_length",
    );
  }
  groups.forEach(checkValuesPresent);

  const properties = groups.flatMap((group) => group.properties ?? []);
  const aggregation = filters.aggregation_group_type_index ?? null;
  if (aggregation === null) {
    if (!properties.every((property) => PERSON_FLAG_PROPERTY_TYPES.has(propertyType(property)))) {
      throw invalid("Filters are not valid (can only use person, cohort, and flag properties)");
    }
    if (!properties.every((p) => propertyType(p) !== "flag" || p.operator === "flag_evaluates_to")) {
      throw invalid("Flag properties must use the 'flag_evaluates_to' operator");
    }
    checkFlagDependencies(properties, ctx);
  } else if (
    !properties.every((p) => propertyType(p) === "group" && (p.group_type_index ?? null) === aggregation)
  ) {
    throw invalid("Filters are not valid (can only use group properties)");
  }

  const variants = filters.multivariate?.variants ?? [];
  const variantKeys = new Set(variants.map((variant) => variant.key));
  // Summed left to right from 0 like Python's sum(), so float sums round exactly as in PostHog.
  if (variants.length > 0 && variants.reduce((sum, variant) => sum + variant.rollout_percentage, 0) !== 100) {
    throw invalid("Invalid variant definitions: Variant rollout percentages must sum to 100.");
  }
  for (const group of groups) {
    if (group.variant && !variantKeys.has(group.variant)) {
      throw invalid("Filters are not valid (variant override does not exist)");
    }
    for (const property of group.properties ?? []) checkPropertyValue(property, ctx);
  }

  const payloads = normalisePayloads(sentPayloads === undefined ? {} : sentPayloads);
  // PostHog tests `if filters.get("multivariate")`: an empty object counts as a boolean flag.
  if (filters.multivariate && Object.keys(filters.multivariate).length > 0) {
    if (!Object.keys(payloads).every((key) => variantKeys.has(key))) {
      throw invalid("Payload keys must match a variant key for multivariate flags");
    }
  } else if (Object.keys(payloads).some((key) => key !== "true")) {
    throw invalid("Payload keys must be 'true' for boolean flags");
  }

  const normalised: FeatureFlagFilters = { ...filters };
  if (filters.groups !== undefined) normalised.groups = groups.map(canonicaliseFlagReferences);
  if (sentPayloads !== undefined) normalised.payloads = payloads;
  return normalised;
}

function invalid(detail: string, code = "invalid_input"): ValidationError {
  return new ValidationError(detail, { attr: "filters", code });
}

function isEmptyList(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

function pythonTypeName(value: unknown): string {
  if (Array.isArray(value)) return "list";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  return typeof value;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      return index === 0 ? String(segment) : `.${String(segment)}`;
    })
    .join("");
}

// PostHog's `Property` falls back to "event" for a missing or empty type.
function propertyType(property: PropertyFilter): string {
  return property.type || "event";
}

// PostHog's `Property(**property)` refuses a missing value (a 500 there); we answer 400.
function checkValuesPresent(group: ConditionGroup, groupIndex: number): void {
  (group.properties ?? []).forEach((property, propertyIndex) => {
    const valueless = property.operator === "is_set" || property.operator === "is_not_set";
    if (!valueless && (property.value === undefined || property.value === null)) {
      throw invalid(
        `Filters are not valid (groups[${groupIndex}].properties[${propertyIndex}].value must be set` +
          " unless the operator is is_set or is_not_set)",
      );
    }
  });
}

/**
 * §2.6: every dependency must be an integer id of an existing, non-deleted, active flag; no flag
 * may depend on itself; and following dependencies from this flag must never come back to a flag
 * already on the path.
 */
function checkFlagDependencies(properties: readonly PropertyFilter[], ctx: FiltersContext): void {
  const dependencies = new Map<number, FlagSummary>();
  for (const property of properties) {
    if (property.type !== "flag") continue;
    const id = parseId(property.key);
    if (id === null) {
      throw invalid(
        "Flag dependencies must reference flag IDs (integers), not flag keys. " +
          `Invalid reference: '${property.key}'`,
      );
    }
    const flag = ctx.flags.get(id);
    if (!flag || flag.deleted) throw invalid(`Flag dependency references non-existent flag with ID ${id}`);
    if (!flag.active) {
      throw invalid(
        `Cannot create dependency on disabled flag '${flag.key}' (ID: ${id}). ` +
          "Flag dependencies must reference active flags only.",
      );
    }
    dependencies.set(id, flag);
  }
  for (const flag of dependencies.values()) {
    if (flag.id === ctx.flagId || flag.key === ctx.flagKey) {
      throw invalid(`Feature flag '${ctx.flagKey}' cannot depend on itself`);
    }
  }
  const cycle = findCycle([...dependencies.keys()], ctx);
  if (cycle) throw invalid(`Circular dependency detected: ${cycle.join(" → ")}`);
}

/**
 * Depth-first search from the flag being validated (`null` on create, which nothing can reference),
 * following its new dependencies and every other flag's stored ones. Transitive references that do
 * not resolve to a non-deleted flag are dead ends, as in PostHog. A flag whose dependencies were
 * fully explored without finding a cycle is not explored again, which keeps the search linear in
 * the number of dependency edges. Returns the cycle as flag keys, first repeated last, or `null`.
 */
function findCycle(ownDependencies: readonly number[], ctx: FiltersContext): string[] | null {
  const path: (number | null)[] = [];
  const explored = new Set<number>();
  const keyOf = (id: number | null) =>
    id === null || id === ctx.flagId ? ctx.flagKey : (ctx.flags.get(id)?.key ?? String(id));
  const visit = (id: number | null, dependencies: readonly number[]): string[] | null => {
    path.push(id);
    for (const dependency of dependencies) {
      const onPath = path.indexOf(dependency);
      if (onPath !== -1) return [...path.slice(onPath), dependency].map(keyOf);
      const flag = ctx.flags.get(dependency);
      if (!flag || flag.deleted || explored.has(dependency)) continue;
      const cycle = visit(dependency, referencedFlagIds(flag.filters));
      if (cycle) return cycle;
    }
    path.pop();
    if (id !== null) explored.add(id);
    return null;
  };
  return visit(ctx.flagId, ownDependencies);
}

function checkPropertyValue(property: PropertyFilter, ctx: FiltersContext): void {
  const { key, operator, value } = property;
  if (Array.isArray(value) && value.length > ctx.maxValuesPerProperty) {
    throw invalid(
      `Property group expressions of type ${key} cannot contain more than ${ctx.maxValuesPerProperty} values.`,
    );
  }
  if (property.type === "cohort") {
    const cohortId = parseId(value);
    if (cohortId === null || !ctx.cohortIds.has(cohortId)) {
      throw invalid(`Cohort with id ${pythonStr(value)} does not exist`, "cohort_does_not_exist");
    }
  }
  if ((operator === "is_date_before" || operator === "is_date_after") && !isFilterDate(pythonStr(value))) {
    throw invalid(`Invalid date value: ${pythonStr(value)}`, "invalid_date");
  }
  if (operator && STRING_VALUE_OPERATORS.has(operator) && typeof value !== "string") {
    throw invalid(`Invalid value for operator ${operator}: ${pythonStr(value)}`, "invalid_value");
  }
  if ((operator === "in" || operator === "not_in") && property.type !== "cohort") {
    throw invalid(
      `The '${operator}' operator is only valid for cohort properties, not '${propertyType(property)}' properties.`,
      "invalid_operator",
    );
  }
}

const RELATIVE_DATE = /^-?(\d+)[hdwmy]$/;
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * A date filter value PostHog can compare against: a relative offset (`-7d`, `24h`, `2w`, `1m`,
 * `1y`, number below 10000; `relative_date_parse_for_feature_flag_matching`) or an ISO-8601 date or
 * date-time. PostHog falls back to dateutil's free-form parser; we accept the ISO forms its UI sends.
 */
function isFilterDate(text: string): boolean {
  const relative = RELATIVE_DATE.exec(text);
  if (relative) return Number(relative[1]) < 10_000;
  const iso = ISO_DATE.exec(text);
  if (!iso) return false;
  const part = (index: number) => Number(iso[index] ?? 0);
  // Date.UTC rolls 2025-02-30 over into March; a changed month or day means no such date.
  const date = new Date(Date.UTC(part(1), part(2) - 1, part(3)));
  const validDay = date.getUTCMonth() === part(2) - 1 && date.getUTCDate() === part(3);
  return validDay && part(4) < 24 && part(5) < 60 && part(6) < 60;
}

// Rule 12. PostHog rewrites the dict in place; we build a new one.
function normalisePayloads(payloads: unknown): Record<string, unknown> {
  if (!isJsonObject(payloads)) throw invalid("Payloads must be passed as a dictionary");
  const normalised: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payloads)) {
    if (typeof value === "string") {
      try {
        JSON.parse(value);
      } catch {
        throw invalid("Payload value is not valid JSON");
      }
      normalised[key] = value;
      continue;
    }
    const dumped = pythonJsonDumps(value);
    if (dumped === undefined) throw invalid("Payload value is not valid JSON");
    // Only objects are re-serialised (matching what the UI sends); lists and scalars stay as sent.
    normalised[key] = isJsonObject(value) ? dumped : value;
  }
  return normalised;
}

function canonicaliseFlagReferences(group: ConditionGroup): ConditionGroup {
  if (!group.properties?.some((property) => property.type === "flag")) return group;
  return {
    ...group,
    properties: group.properties.map((property) => {
      const id = property.type === "flag" ? parseId(property.key) : null;
      return id === null ? property : { ...property, key: String(id) };
    }),
  };
}

/**
 * The "dependent flags" of flag `flagId` (§2.6, `find_dependent_flags`): non-deleted, active flags
 * other than it with a `groups[].properties[]` entry of `type: "flag"` whose `key` is
 * `String(flagId)` (compared as text, as PostHog's SQL does). Ordered by key (code-point order).
 */
export function dependentFlags(flagId: number, flags: Iterable<FlagSummary>): FlagSummary[] {
  const reference = String(flagId);
  const dependents = [...flags].filter(
    (flag) =>
      !flag.deleted &&
      flag.active &&
      flag.id !== flagId &&
      conditionGroups(flag.filters).some((group) =>
        groupProperties(group).some(
          (property) =>
            property.type === "flag" &&
            (typeof property.key === "number" ? String(property.key) : property.key) === reference,
        ),
      ),
  );
  return dependents.sort(byKey);
}

/**
 * Refuses a change of `active` that would break flag dependencies (§2.6):
 * disabling (`flag.active` true → `nextActive` false) while `dependentFlags` exist, and enabling
 * (false → true) while one of the flags it depends on is disabled. Pass as `flag.filters` the filters
 * the flag will have after the write (PostHog reads the stored ones; the two differ only when the
 * same request drops the disabled dependency, which PostHog then wrongly refuses).
 *
 * @throws ValidationError (attr `null`, code `invalid_input`), e.g. `Cannot disable this feature
 *   flag because other flags depend on it: a (ID: 1), b (ID: 2). Please update or disable the
 *   dependent flags first.`; at most 5 flags are listed, then `and N more`.
 * Source: `posthog/api/feature_flag.py` `FeatureFlagSerializer.update`, `_find_disabled_dependencies`.
 */
export function checkActivationChange(
  flag: FlagSummary,
  nextActive: boolean,
  flags: Iterable<FlagSummary>,
): void {
  if (flag.active && !nextActive) {
    const dependents = dependentFlags(flag.id, flags);
    if (dependents.length > 0) {
      throw new ValidationError(
        `Cannot disable this feature flag because other flags depend on it: ${listFlags(dependents)}. ` +
          "Please update or disable the dependent flags first.",
      );
    }
  }
  if (!flag.active && nextActive) {
    const dependencyIds = new Set(referencedFlagIds(flag.filters));
    const disabled = [...flags]
      .filter((other) => dependencyIds.has(other.id) && !other.deleted && !other.active)
      .sort(byKey);
    if (disabled.length > 0) {
      throw new ValidationError(
        `Cannot enable this feature flag because it depends on disabled flags: ${listFlags(disabled)}. ` +
          "Please enable the dependency flags first.",
      );
    }
  }
}

/**
 * Refuses soft-deleting flag `flagId` while `dependentFlags` exist (§2.6). Call it when the request
 * sets `deleted: true`, after the early-access and experiment checks, as PostHog orders them.
 *
 * @throws ValidationError (attr `null`, code `invalid_input`): `Cannot delete this feature flag
 *   because other flags depend on it: a (ID: 1), .... Please update or delete the dependent flags
 *   first.`; at most 5 flags are listed, then `and N more`.
 * Source: `posthog/api/feature_flag.py` `FeatureFlagSerializer.update`.
 */
export function checkDeletion(flagId: number, flags: Iterable<FlagSummary>): void {
  const dependents = dependentFlags(flagId, flags);
  if (dependents.length > 0) {
    throw new ValidationError(
      `Cannot delete this feature flag because other flags depend on it: ${listFlags(dependents)}. ` +
        "Please update or delete the dependent flags first.",
    );
  }
}

const LISTED_FLAGS = 5;

function listFlags(flags: readonly FlagSummary[]): string {
  const names = flags.slice(0, LISTED_FLAGS).map((flag) => `${flag.key} (ID: ${flag.id})`);
  if (flags.length > LISTED_FLAGS) names.push(`and ${flags.length - LISTED_FLAGS} more`);
  return names.join(", ");
}

function byKey(a: FlagSummary, b: FlagSummary): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
