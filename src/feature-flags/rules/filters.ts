/**
 * Validation and normalisation of a feature flag's `filters` object, as PostHog's
 * `FeatureFlagSerializer` applies them (`posthog/api/feature_flag.py`:
 * `validate_filters`, `_check_flag_circular_dependencies`, `update`; posthog-behavior.md §2.5–§2.6).
 *
 * Pure: whatever PostHog reads from the database (the project's flags, its cohorts, the limits)
 * comes in through `FiltersContext`. A value returned by `validateFilters` has the documented type
 * for every known key, keeps unknown keys as sent (PostHog stores filters free-form), holds object
 * payloads as JSON strings, and references only existing, active flags without a cycle.
 * Checks run in PostHog's order, so for input PostHog accepts structurally the first error reported
 * is the one PostHog reports; malformed known keys (a 500 or silent acceptance in PostHog) are
 * reported first, as `Filters are not valid (<path> must be ...)`.
 */

import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { pythonType } from "../../core/validation.js";
import type { ConditionGroup, FeatureFlagFilters, FiltersContext, PropertyFilter } from "./filter-types.js";
import { checkFlagDependencies } from "./flag-dependencies.js";
import { pythonJsonDumps, pythonStr } from "./python-format.js";
import { isJsonObject, parseId } from "./stored-filters.js";

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
 * `ctx.maxVariants`; rule 5 (variants sum to exactly 100); rule 6 (variant overrides exist); rules 7–11 per property;
 * rule 12 (payloads). Rule 13: group `rollout_percentage` is not range-checked, as in PostHog.
 *
 * Normalises: object payload values become `json.dumps` strings; integer property keys become
 * strings; flag-dependency keys become the canonical id string (`" 7"` → `"7"`), so that
 * `dependentFlags` finds every dependent.
 *
 * @throws ValidationError attr `"filters"`: code `null` / `not_a_dict` for a non-object (DRF's
 *   DictField messages), `max_length` above `ctx.maxGroups` or `ctx.maxVariants`, `cohort_does_not_exist`,
 *   `behavioral_cohort_found` (a dynamic cohort that uses events, directly or through its cohorts),
 *   `invalid_date`, `invalid_value`, `invalid_operator` as in §2.5, otherwise `invalid_input`.
 * Source: `posthog/api/feature_flag.py` `FeatureFlagSerializer.validate_filters`.
 */
export function validateFilters(input: unknown, ctx: FiltersContext): FeatureFlagFilters {
  if (input === null) throw invalid("This field may not be null.", "null");
  if (!isJsonObject(input)) {
    throw invalid(`Expected a dictionary of items but got type "${pythonType(input)}".`, "not_a_dict");
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
  if (variants.length > ctx.maxVariants) {
    throw invalid(
      `Feature flags can have at most ${ctx.maxVariants} variants; got ${variants.length}.`,
      "max_length",
    );
  }
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

function checkPropertyValue(property: PropertyFilter, ctx: FiltersContext): void {
  const { key, operator, value } = property;
  if (Array.isArray(value) && value.length > ctx.maxValuesPerProperty) {
    throw invalid(
      `Property group expressions of type ${key} cannot contain more than ${ctx.maxValuesPerProperty} values.`,
    );
  }
  if (property.type === "cohort") {
    const cohortId = parseId(value);
    const cohort = cohortId === null ? undefined : ctx.cohorts.get(cohortId);
    if (!cohort) {
      throw invalid(`Cohort with id ${pythonStr(value)} does not exist`, "cohort_does_not_exist");
    }
    // Newest PostHog skips the check for static cohorts, whose members are a list (§2.5 rule 8).
    if (cohort.usesEvents && !cohort.isStatic) {
      throw invalid(
        `Cohort '${pythonStr(cohort.name)}' with filters on events cannot be used in feature flags.`,
        "behavioral_cohort_found",
      );
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
