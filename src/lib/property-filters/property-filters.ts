/**
 * PostHog's property filter model, shared by every reader of persons, groups and events (persons
 * lists, cohorts, flag blast radius, the query engine): one `PropertyFilter` per condition and
 * AND/OR `PropertyGroup` trees of them (posthog-behavior.md §3.5–3.6; PostHog's
 * `posthog/schema.py` `PersonPropertyFilter`, `CohortPropertyFilter`, `GroupPropertyFilter`,
 * `EventPropertyFilter`, `PropertyGroupFilterValue`; `posthog/models/property/property.py`).
 *
 * A value that passes `propertyGroupSchema` can be translated to SQL by `./to-sql.ts` without
 * further checks, except two that need the database: regex patterns (`./regex-check.ts`) and the
 * cohorts a filter names (`./cohort-definitions.ts`).
 */
import { z } from "zod";
import { parseIntegerId } from "../../core/validation.js";
import { parseFilterDate } from "./filter-dates.js";
import { parseSemver, SEMVER_OPERATORS } from "./semver.js";

/** Property types the translation evaluates (`PropertyFilter.type`). */
export const PROPERTY_TYPES = ["person", "cohort", "group", "event"] as const;
/** One of `PROPERTY_TYPES`. */
export type PropertyType = (typeof PROPERTY_TYPES)[number];

/**
 * Behavioral cohort criteria (`type: "behavioral"`, PostHog's `BehavioralPropertyType` in
 * `posthog/models/property/property.py`): accepted in a cohort's filters and stored; `./behavioral.ts`
 * calculates `performed_event` and `performed_event_multiple` and refuses the others.
 */
export const BEHAVIORAL_VALUES = [
  "performed_event",
  "performed_event_multiple",
  "performed_event_first_time",
  "performed_event_sequence",
  "performed_event_regularly",
  "stopped_performing_event",
  "restarted_performing_event",
] as const;

/** Operators of PostHog's `PropertyOperator` that the translation evaluates (§3.5). */
export const PROPERTY_OPERATORS = [
  "exact",
  "is_not",
  "icontains",
  "not_icontains",
  "regex",
  "not_regex",
  "gt",
  "gte",
  "lt",
  "lte",
  "is_set",
  "is_not_set",
  "is_date_exact",
  "is_date_before",
  "is_date_after",
  "in",
  "not_in",
  ...SEMVER_OPERATORS,
] as const;
/** One of `PROPERTY_OPERATORS`. */
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number];

/** Operators that need no `value`. */
export const VALUELESS_OPERATORS: ReadonlySet<string> = new Set(["is_set", "is_not_set"]);
/** Operators whose value is a date (`-7d` or ISO 8601). */
const DATE_OPERATORS: ReadonlySet<string> = new Set(["is_date_exact", "is_date_before", "is_date_after"]);
/** Operators that take a list value as "any of" (or, negated, "none of"): every operator on a scalar value. */
const SCALAR_VALUE = z.union([z.string(), z.number(), z.boolean()]);

/** One property condition: PostHog's `PropertyFilter` (`{key, type, value, operator, negation?, group_type_index?}`). */
export interface PropertyFilter {
  /** The property name; for `cohort`, PostHog sends `"id"`. */
  key: string;
  type: PropertyType;
  /** A scalar or a list of scalars (any of); for `cohort` the cohort id. Absent for `is_set`/`is_not_set`. */
  value?: string | number | boolean | Array<string | number | boolean> | null;
  /** Default `exact` (`in` for cohorts). */
  operator?: PropertyOperator | null;
  /** True negates the whole condition (cohort criteria's "does not match"). */
  negation?: boolean | null;
  /** For `group`: the group type index (0–4) whose properties are read. */
  group_type_index?: number | null;
  /** Shown by PostHog beside cohort filters; kept as sent. */
  cohort_name?: string | null;
  [extra: string]: unknown;
}

/** A behavioral cohort criterion, stored as sent beyond these fields (see `BEHAVIORAL_VALUES`). */
export interface BehavioralFilter {
  type: "behavioral";
  /** The event (or action id) the criterion is about. */
  key: string | number;
  value: (typeof BEHAVIORAL_VALUES)[number];
  negation?: boolean | null;
  [extra: string]: unknown;
}

/** An AND/OR tree of filters (PostHog's `PropertyGroupFilterValue`); an empty group matches everything. */
export interface PropertyGroup {
  type: "AND" | "OR";
  values: Array<PropertyGroup | PropertyFilter | BehavioralFilter>;
}

/** A group or a single filter: what the translation takes. */
export type PropertyNode = PropertyGroup | PropertyFilter | BehavioralFilter;

/** True for a group node. */
export function isPropertyGroup(node: PropertyNode): node is PropertyGroup {
  return node.type === "AND" || node.type === "OR";
}

const issue = (ctx: z.RefinementCtx, message: string, path: PropertyKey[], code = "invalid_input") =>
  ctx.addIssue({ code: "custom", message, path, params: { code } });

/**
 * PostHog's rules on one filter beyond its shape (§2.5 rules 9–11 as they apply to any filter;
 * `posthog/models/property/property.py` `Property.__init__`): a value unless the operator is
 * valueless; `in`/`not_in` only for cohorts and cohorts only with them (or `exact`); a cohort value
 * that is one id; a group type index for group filters; dates and versions that parse.
 */
function checkFilter(filter: z.output<typeof propertyFilterShape>, ctx: z.RefinementCtx): void {
  const operator = filter.operator ?? (filter.type === "cohort" ? "in" : "exact");
  const { value } = filter;
  if (!VALUELESS_OPERATORS.has(operator) && (value === undefined || value === null)) {
    issue(ctx, "This field is required unless the operator is is_set or is_not_set.", ["value"], "required");
    return;
  }
  if (filter.type === "cohort") {
    if (operator !== "in" && operator !== "not_in" && operator !== "exact") {
      issue(
        ctx,
        `The '${operator}' operator is not valid for cohort properties.`,
        ["operator"],
        "invalid_operator",
      );
    }
    if (cohortIdOf(value) === null) {
      issue(ctx, "A cohort filter's value must be a cohort id.", ["value"]);
    }
    return;
  }
  if (operator === "in" || operator === "not_in") {
    issue(
      ctx,
      `The '${operator}' operator is only valid for cohort properties, not '${filter.type}' properties.`,
      ["operator"],
      "invalid_operator",
    );
    return;
  }
  if (
    filter.type === "group" &&
    (filter.group_type_index === undefined || filter.group_type_index === null)
  ) {
    issue(ctx, "Group property filters need a group_type_index.", ["group_type_index"], "required");
  }
  const scalars = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  if (Array.isArray(value) && value.length === 0 && !VALUELESS_OPERATORS.has(operator)) {
    issue(ctx, "This list may not be empty.", ["value"], "empty");
  }
  for (const scalar of scalars) {
    const text = String(scalar);
    if (DATE_OPERATORS.has(operator) && parseFilterDate(text, new Date(0)) === null) {
      issue(ctx, `Invalid date value: ${text}`, ["value"], "invalid_date");
    }
    if ((SEMVER_OPERATORS as readonly string[]).includes(operator) && parseSemver(operator, text) === null) {
      issue(ctx, `Invalid semantic version: ${text}`, ["value"], "invalid_value");
    }
  }
}

/**
 * The id a cohort filter names: an integer or a string of digits (Python's `int()`, as PostHog's
 * `Property` reads `value` of a cohort filter) that fits a cohort id, else null.
 */
export function cohortIdOf(value: unknown): number | null {
  if (typeof value === "number") return Number.isInteger(value) ? parseIntegerId(value) : null;
  return typeof value === "string" ? parseIntegerId(value.trim()) : null;
}

const propertyFilterShape = z.looseObject({
  key: z.union([z.string(), z.int().transform(String)]),
  type: z.enum(PROPERTY_TYPES),
  value: z
    .union([SCALAR_VALUE, z.array(SCALAR_VALUE)])
    .nullable()
    .optional(),
  operator: z.enum(PROPERTY_OPERATORS).nullable().optional(),
  negation: z.boolean().nullable().optional(),
  group_type_index: z.int().min(0).max(4).nullable().optional(),
  cohort_name: z.string().nullable().optional(),
});

/** One property filter, validated by PostHog's rules (see `checkFilter`). */
export const propertyFilterSchema: z.ZodType<PropertyFilter> = propertyFilterShape.superRefine(
  checkFilter,
) as z.ZodType<PropertyFilter>;

/** One behavioral criterion: `key`, and `value` one of `BEHAVIORAL_VALUES`; the rest kept as sent. */
export const behavioralFilterSchema: z.ZodType<BehavioralFilter> = z.looseObject({
  type: z.literal("behavioral"),
  key: z.union([z.string(), z.int()]),
  value: z.enum(BEHAVIORAL_VALUES),
  negation: z.boolean().nullable().optional(),
}) as z.ZodType<BehavioralFilter>;

/**
 * A node of a property tree: a group (`type` AND/OR) or a filter, chosen by `type` so that errors
 * name the right fields. `behavioral` nodes are accepted only where `allowBehavioral` says so
 * (cohort criteria).
 */
function nodeSchema(allowBehavioral: boolean): z.ZodType<PropertyNode> {
  const group: z.ZodType<PropertyGroup> = z.lazy(() =>
    z.object({
      type: z.enum(["AND", "OR"]),
      values: z.array(node),
    }),
  );
  const node: z.ZodType<PropertyNode> = z.lazy(() =>
    z.unknown().pipe(
      z.custom<unknown>().transform((raw, ctx): PropertyNode | typeof z.NEVER => {
        const type = raw !== null && typeof raw === "object" ? (raw as { type?: unknown }).type : undefined;
        const schema: z.ZodType<PropertyNode> =
          type === "AND" || type === "OR"
            ? group
            : type === "behavioral" && allowBehavioral
              ? behavioralFilterSchema
              : propertyFilterSchema;
        const parsed = schema.safeParse(raw, { reportInput: true });
        if (parsed.success) return parsed.data;
        for (const problem of parsed.error.issues) ctx.addIssue({ ...problem, path: problem.path } as never);
        return z.NEVER;
      }),
    ),
  );
  return group as z.ZodType<PropertyNode>;
}

/** A property group of person/cohort/group/event filters (flags, persons lists, queries). */
export const propertyGroupSchema = nodeSchema(false) as z.ZodType<PropertyGroup>;

/** A cohort's criteria: a property group that may also hold behavioral criteria. */
export const cohortCriteriaSchema = nodeSchema(true) as z.ZodType<PropertyGroup>;

/** Every node of a tree, depth first (groups included), iteratively. */
export function* walkNodes(root: PropertyNode): Generator<PropertyNode> {
  const stack: PropertyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    yield node;
    if (isPropertyGroup(node)) for (let i = node.values.length - 1; i >= 0; i--) stack.push(node.values[i]!);
  }
}

/** The ids of the cohorts a tree names (`type: "cohort"` filters), each once. */
export function referencedCohortIds(root: PropertyNode): number[] {
  const ids = new Set<number>();
  for (const node of walkNodes(root)) {
    if (node.type === "cohort") {
      const id = cohortIdOf((node as PropertyFilter).value);
      if (id !== null) ids.add(id);
    }
  }
  return [...ids];
}

/** True when a tree holds a behavioral criterion. */
export function hasBehavioralFilter(root: PropertyNode): boolean {
  for (const node of walkNodes(root)) if (node.type === "behavioral") return true;
  return false;
}
