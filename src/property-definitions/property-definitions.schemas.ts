/**
 * Inputs of the property-definition operations, in PostHog's field names (the REST contract; GraphQL
 * maps its camelCase inputs onto these): the list's filters and page, the update body and
 * `seen_together`'s query. Read-only fields in a body (`id`, `name`, `is_numerical`, `verified_at`,
 * ...) and unknown fields are ignored, as DRF does.
 * Source: `posthog/api/property_definition.py` (PropertyDefinitionQuerySerializer, QueryContext,
 * ALWAYS_EXCLUDED_EVENT_PROPERTIES, SeenTogetherQuerySerializer), `posthog/models/property_definition.py`
 * (PropertyType, PropertyDefinition.Type), `products/enterprise/backend/api/ee_property_definition.py`
 * (EnterprisePropertyDefinitionSerializer).
 */
import { z } from "zod";
import { drf } from "../core/validation.js";
import { CAMPAIGN_PROPERTIES } from "../lib/property-filters/event-person-properties.js";

/** The list's `type` values, in PostHog's `PropertyDefinition.Type` order (1 event ... 4 session). */
export const PROPERTY_DEFINITION_KINDS = ["event", "person", "group", "session"] as const;
/** One of `PROPERTY_DEFINITION_KINDS`: whose property a definition describes. */
export type PropertyDefinitionKind = (typeof PROPERTY_DEFINITION_KINDS)[number];

/** `property_definitions.type` of each kind (PostHog's `PropertyDefinition.Type`). */
export const KIND_NUMBERS: Record<PropertyDefinitionKind, 1 | 2 | 3 | 4> = {
  event: 1,
  person: 2,
  group: 3,
  session: 4,
};

/** The kind of a stored `type` (PostHog's `PropertyDefinition.Type(type).label`); `event` for an unknown one. */
export function kindOf(type: number): PropertyDefinitionKind {
  return PROPERTY_DEFINITION_KINDS[type - 1] ?? "event";
}

/** PostHog's `PropertyType` choices: what `property_type` may be set to (null clears it). */
export const PROPERTY_TYPES = ["DateTime", "String", "Numeric", "Boolean", "Duration"] as const;
/** One of `PROPERTY_TYPES`. */
export type PropertyType = (typeof PROPERTY_TYPES)[number];

/** Group type indexes run from 0 to `GROUP_TYPES_LIMIT - 1` (posthog/constants.py). */
export const GROUP_TYPES_LIMIT = 5;

/**
 * Event properties the list leaves out unless `exclude_core_properties` is set (PostHog's
 * ALWAYS_EXCLUDED_EVENT_PROPERTIES): ingestion's own keys. PostHog also lists the taxonomy's
 * `$session_entry_*` properties; this service leaves out every name with that prefix.
 */
export const ALWAYS_EXCLUDED_EVENT_PROPERTIES: readonly string[] = [
  "distinct_id",
  "$set",
  "$set_once",
  "$initial_referrer",
  "$initial_referring_domain",
  "$groups",
  "$group_type",
  "$group_key",
  "$group_set",
  ...Array.from({ length: GROUP_TYPES_LIMIT }, (_, i) => `$group_${i}`),
];

/** The prefix of the `$session_entry_*` event properties left out with ALWAYS_EXCLUDED_EVENT_PROPERTIES. */
export const SESSION_ENTRY_PREFIX = "$session_entry_";

/**
 * Core event properties whose name has no `$` (PostHog's EXCLUDED_EVENT_CORE_PROPERTIES, the
 * taxonomy's `event_properties` keys without a `$`): with `exclude_core_properties`, these and every
 * `$` name are left out. This service carries the taxonomy's identifiers and its campaign parameters
 * (posthog/taxonomy/taxonomy.py `CAMPAIGN_PROPERTIES`: the ones lifted onto persons but `utm_name`,
 * which the taxonomy does not list), not its full catalogue.
 */
export const EXCLUDED_EVENT_CORE_PROPERTIES: readonly string[] = [
  "distinct_id",
  "timestamp",
  "event",
  ...CAMPAIGN_PROPERTIES.filter((name) => name !== "utm_name"),
];

/** Names `is_numerical=true` leaves out even when numerical (PostHog's `with_is_numerical_flag`). */
export const NON_NUMERICAL_NAMES: readonly string[] = ["distinct_id", "timestamp"];

/**
 * A boolean query parameter as DRF reads one from a query string: its true/false spellings, an empty
 * value as none (DRF's `get_value` for a `QueryDict`), or a boolean (GraphQL).
 */
const queryBoolean = z.preprocess((v) => (v === "" || v === null ? undefined : v), drf.boolean().optional());

/**
 * A JSON list of names: JSON text (REST) or a list (GraphQL); items kept as Python's `str` would
 * print them. Anything else is an issue naming the parameter.
 */
const jsonNameList = z.unknown().transform((value, ctx): string[] => {
  let list: unknown = value;
  if (typeof value === "string") {
    try {
      list = JSON.parse(value);
    } catch {
      list = undefined;
    }
  }
  if (Array.isArray(list))
    return list.map((item) => (typeof item === "string" ? item : JSON.stringify(item)));
  ctx.addIssue({
    code: "custom",
    message: 'Expected a JSON list of names, e.g. ["$pageview"].',
    input: value,
  });
  return z.NEVER;
});

/** Filters of the property-definition list, parsed by `propertyDefinitionListFiltersSchema`. */
export interface PropertyDefinitionListFilters {
  kind: PropertyDefinitionKind;
  /** The group type for `group`; -1 otherwise (as stored). */
  groupTypeIndex: number;
  /** Every term must be a case-insensitive substring of the name. */
  searchTerms: string[];
  /** Exact names to keep (null: all). */
  names: string[] | null;
  /** Keep numerical properties only (never `distinct_id`, `timestamp`). */
  numericalOnly: boolean;
  /** `true`: `$feature/…` names only; `false`: none of them; unset: both. */
  featureFlag?: boolean;
  /** Events whose properties come first, each result saying whether it was seen on them (null: none given). */
  eventNames: string[] | null;
  /** Keep only properties seen on `eventNames` (on any event when none are given). */
  filterByEventNames: boolean;
  /** Exact names to leave out. */
  excludedNames: string[];
  /** Leave out `$` names and the core names (event properties only). */
  excludeCoreProperties: boolean;
  excludeHidden: boolean;
}

/**
 * The list's filters under PostHog's query names (PropertyDefinitionQuerySerializer), as both doors
 * pass them:
 * - `type`: `event` (default), `person`, `group` (needs `group_type_index`, 0–4) or `session`;
 * - `search`: whitespace-separated terms, each a case-insensitive substring of the name;
 * - `properties`: comma-separated exact names; `excluded_properties`: a JSON list of names;
 * - `is_numerical`, `is_feature_flag`, `filter_by_event_names`, `exclude_core_properties`,
 *   `exclude_hidden`: DRF booleans;
 * - `event_names`: a JSON list of event names (`event` type only): each result gets
 *   `is_seen_on_filtered_events` and those seen come first.
 * Refusals (attr null, as PostHog's `validate`): "`group_type_index` must be set for `group` type",
 * "`group_type_index` can only set for `group` type", "Invalid value for `group_type_index`",
 * "`event_names` can only be set for `event` type". A JSON parameter that is not a JSON list is a
 * 400 naming it (PostHog answers a 500).
 */
export const propertyDefinitionListFiltersSchema = z
  .object({
    search: z.string().optional(),
    type: z.preprocess((v) => (v === "" ? undefined : v), drf.choice(PROPERTY_DEFINITION_KINDS).optional()),
    group_type_index: z.preprocess((v) => (v === "" ? undefined : v), drf.integer().optional()),
    properties: z.union([z.array(z.string()), z.string()]).optional(),
    is_numerical: queryBoolean,
    is_feature_flag: queryBoolean,
    event_names: z.preprocess((v) => (v === "" ? undefined : v), jsonNameList.optional()),
    filter_by_event_names: queryBoolean,
    excluded_properties: z.preprocess((v) => (v === "" ? undefined : v), jsonNameList.optional()),
    exclude_core_properties: queryBoolean,
    exclude_hidden: queryBoolean,
  })
  .superRefine((q, ctx) => {
    const kind = q.type ?? "event";
    const index = q.group_type_index;
    const refuse = (message: string) => ctx.addIssue({ code: "custom", message, path: [] });
    if (kind === "group" && index === undefined) refuse("`group_type_index` must be set for `group` type");
    else if (kind !== "group" && index !== undefined)
      refuse("`group_type_index` can only set for `group` type");
    else if (index !== undefined && (index < 0 || index >= GROUP_TYPES_LIMIT))
      refuse("Invalid value for `group_type_index`");
    else if (kind !== "event" && q.event_names !== undefined)
      refuse("`event_names` can only be set for `event` type");
  })
  .transform((q): PropertyDefinitionListFilters => {
    const kind = q.type ?? "event";
    const names =
      q.properties === undefined ||
      q.properties === "" ||
      (Array.isArray(q.properties) && q.properties.length === 0)
        ? null
        : Array.isArray(q.properties)
          ? q.properties
          : q.properties.split(",");
    return {
      kind,
      groupTypeIndex: kind === "group" ? q.group_type_index! : -1,
      searchTerms: (q.search ?? "").split(/\s+/).filter((term) => term !== ""),
      names,
      numericalOnly: q.is_numerical === true,
      ...(q.is_feature_flag === undefined ? {} : { featureFlag: q.is_feature_flag }),
      eventNames: q.event_names && q.event_names.length > 0 ? [...new Set(q.event_names)] : null,
      filterByEventNames: q.filter_by_event_names === true,
      excludedNames: [...new Set(q.excluded_properties ?? [])],
      excludeCoreProperties: q.exclude_core_properties === true,
      excludeHidden: q.exclude_hidden === true,
    };
  });

/** A validated update body: every field optional (absent keeps). */
export interface PropertyDefinitionUpdate {
  description?: string;
  tags?: string[];
  /** A PostHog property type, or null to clear it; sets `is_numerical` (true only for `Numeric`). */
  property_type?: PropertyType | null;
  verified?: boolean;
  hidden?: boolean;
}

/**
 * `PATCH property_definitions/:id/` (and PUT): the enterprise serializer's writable fields.
 * `property_type` must be one of PostHog's choices (`"X" is not a valid choice.`) or null; whether
 * `hidden` and `verified` may go together is a rule of the service, as PostHog checks it in `validate`.
 */
export const updatePropertyDefinitionSchema = z.object({
  description: drf.string().optional(),
  tags: z.array(drf.string()).optional(),
  property_type: drf.choice(PROPERTY_TYPES).nullable().optional(),
  verified: drf.boolean().optional(),
  hidden: drf.boolean().optional(),
}) as z.ZodType<PropertyDefinitionUpdate>;

/**
 * `GET seen_together/` (SeenTogetherQuerySerializer): `event_names` (every value given, at least one)
 * and `property_name`, both required.
 */
export const seenTogetherQuerySchema = z.object({
  event_names: z.array(z.string()),
  property_name: drf.string({ allowBlank: false }),
});
