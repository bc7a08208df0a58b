/**
 * Inputs of the event-definition operations, in PostHog's field names (the REST contract; GraphQL
 * maps its camelCase inputs onto these): create, update, and the list's filters and page. Read-only
 * fields in a body (`id`, `created_at`, `verified_at`, ... and `name` on update) and unknown fields
 * are ignored, as DRF does.
 * Source: `ee/api/ee_event_definition.py` EnterpriseEventDefinitionSerializer,
 * `posthog/api/event_definition.py` EventDefinitionViewSet (`dangerously_get_queryset`,
 * `_requested_event_type`, `_requested_ordering`, EventDefinitionQuerySerializer);
 * posthog-behavior.md §6.1–6.3.
 */
import { z } from "zod";
import { drf } from "../core/validation.js";

/** Longest `name` (`CharField(max_length=400)`). */
export const EVENT_NAME_MAX_LENGTH = 400;

/** Values of the list's `event_type` filter PostHog serves (`EVENT_DEFINITION_LIST_EVENT_TYPES`). */
export const EVENT_TYPES = ["event", "event_custom", "event_posthog"] as const;
/** One of `EVENT_TYPES`. */
export type EventType = (typeof EVENT_TYPES)[number];
/** Older `event_type` values PostHog still accepts and serves as `event` (they never listed actions). */
const ACCEPTED_EVENT_TYPES = [...EVENT_TYPES, "all", "action_event"] as const;

/** Fields the list can be ordered by (`EVENT_DEFINITION_ORDERING_FIELDS`); `-` in front descends. */
export const ORDERING_FIELDS = [
  "name",
  "last_seen_at",
  "last_seen_at::date",
  "created_at",
  "created_at::date",
] as const;
/** One of `ORDERING_FIELDS`. */
export type OrderingField = (typeof ORDERING_FIELDS)[number];

/** Days after which an event not seen is stale (`STALE_EVENT_DAYS`, posthog/taxonomy/taxonomy.py). */
export const STALE_EVENT_DAYS = 30;

const writableFields = {
  description: drf.string(),
  /** The owner's user id (a PostHog `PrimaryKeyRelatedField`), or null for none. */
  owner: drf.integer().nullable(),
  tags: z.array(drf.string()),
  verified: drf.boolean(),
  hidden: drf.boolean(),
  default_columns: z.array(drf.string()),
};

type Writable = { [K in keyof typeof writableFields]: z.output<(typeof writableFields)[K]> };

/** A validated update body: every field optional (absent keeps). */
export type EventDefinitionUpdate = Partial<Writable>;
/** A validated create body: `name` and the writable fields. */
export type EventDefinitionCreate = EventDefinitionUpdate & { name: string };

const optionalWritable = Object.fromEntries(
  Object.entries(writableFields).map(([key, schema]) => [key, schema.optional()]),
) as { [K in keyof typeof writableFields]: z.ZodOptional<(typeof writableFields)[K]> };

/**
 * `PATCH event_definitions/:id/` (and PUT): the enterprise serializer's writable fields. `name` is
 * read-only on update and ignored. Whether `hidden` and `verified` may go together is a rule of the
 * service (rules/verification.ts), as PostHog checks it in `validate`.
 */
export const updateEventDefinitionSchema = z.object(optionalWritable) as z.ZodType<EventDefinitionUpdate>;

/** `POST event_definitions/`: `name` (required, ≤ 400 characters, not blank) and the writable fields. */
export const createEventDefinitionSchema = z.object({
  name: drf.string({ maxLength: EVENT_NAME_MAX_LENGTH, allowBlank: false }),
  ...optionalWritable,
}) as z.ZodType<EventDefinitionCreate>;

/** A list of strings: as JSON text (REST's query string; anything but a JSON list is none) or as a list (GraphQL). */
const jsonStringList = z
  .union([z.array(z.string()), z.string()])
  .optional()
  .transform((value): string[] | undefined => {
    if (value === undefined || Array.isArray(value)) return value;
    try {
      const parsed: unknown = JSON.parse(value);
      // PostHog keeps the strings of a JSON list and ignores anything else (`_tags_filter_from_request`).
      return Array.isArray(parsed)
        ? parsed.filter((item): item is string => typeof item === "string")
        : undefined;
    } catch {
      return undefined;
    }
  });

/** Values given once, repeated, or comma-joined (DRF's `getlist` then `split(",")`), empty ones dropped. */
const commaList = z
  .union([z.array(z.string()), z.string()])
  .optional()
  .transform((value) =>
    (value === undefined ? [] : Array.isArray(value) ? value : [value])
      .flatMap((item) => item.split(","))
      .filter((item) => item !== ""),
  );

/** PostHog's `GET.get(name, "false").lower() == "true"` (REST) or a boolean (GraphQL). */
const trueFlag = z
  .union([z.boolean(), z.string()])
  .optional()
  .transform((value) => (typeof value === "string" ? value.toLowerCase() === "true" : (value ?? false)));

/** One sort key of the list: a field and its direction. */
export interface EventDefinitionOrder {
  field: OrderingField | "length(name)";
  descending: boolean;
}

/** Filters of the event-definition list, parsed by `eventDefinitionListFiltersSchema`. */
export interface EventDefinitionListFilters {
  /** Every term must be a case-insensitive substring of the name. */
  searchTerms: string[];
  eventType: EventType;
  /** The sort keys, tie-breaker included (see the schema). */
  ordering: EventDefinitionOrder[];
  excludeHidden: boolean;
  /** Leave out events last seen more than `STALE_EVENT_DAYS` ago (never-seen ones stay). */
  excludeStale: boolean;
  /** `true`: verified only; `false`: unverified only; unset: both. */
  verified?: boolean;
  /** Exact names to keep (empty: all). */
  names: string[];
  /** Keep events having any of these tags (empty: all). */
  tags: string[];
  /** Exact names to leave out. */
  excludedNames: string[];
}

/**
 * The list's filters under PostHog's query names, as both doors pass them (REST its query
 * parameters, `names` and `ordering` as every value given; GraphQL its filter input renamed):
 * - `search`: whitespace-separated terms, each a case-insensitive substring of the name; with no
 *   `ordering`, shorter names come first;
 * - `event_type`: `event` (default; `all` and `action_event` too), `event_custom` (names without a
 *   `$` prefix) or `event_posthog` (with one); anything else is a 400, attr `event_type`;
 * - `ordering`: fields of `ORDERING_FIELDS`, `-` for descending, unknown ones dropped; default
 *   `-last_seen_at::date, name`; `name` is appended as the tie-breaker when missing;
 * - `exclude_hidden`, `exclude_stale`: `true` (any case) turns them on;
 * - `verified`: `true` keeps verified events, any other value unverified ones;
 * - `names` (exact names), `tags` (JSON list: any of them), `excluded_properties` (JSON list of
 *   names to leave out).
 */
export const eventDefinitionListFiltersSchema = z
  .object({
    search: z.string().optional(),
    event_type: z
      .string()
      .refine((value) => (ACCEPTED_EVENT_TYPES as readonly string[]).includes(value), {
        message: `Not a valid event type. Use one of: ${EVENT_TYPES.join(", ")}.`,
      })
      .optional(),
    ordering: commaList,
    exclude_hidden: trueFlag,
    exclude_stale: trueFlag,
    verified: z.union([z.boolean(), z.string()]).optional(),
    names: commaList,
    tags: jsonStringList,
    excluded_properties: jsonStringList,
  })
  .transform((q): EventDefinitionListFilters => {
    const searchTerms = (q.search ?? "").split(/\s+/).filter((term) => term !== "");
    const requested = q.ordering.flatMap((raw): EventDefinitionOrder[] => {
      const field = raw.replaceAll("-", "");
      return (ORDERING_FIELDS as readonly string[]).includes(field)
        ? [{ field: field as OrderingField, descending: raw.includes("-") }]
        : [];
    });
    let ordering: EventDefinitionOrder[] =
      requested.length > 0
        ? requested
        : [
            { field: "last_seen_at::date", descending: true },
            { field: "name", descending: false },
          ];
    if (!ordering.some((order) => order.field === "name")) {
      ordering = [...ordering, { field: "name", descending: false }];
    }
    if (searchTerms.length > 0 && requested.length === 0) {
      ordering = [{ field: "length(name)", descending: false }, ...ordering];
    }
    const eventType = q.event_type === undefined || !isEventType(q.event_type) ? "event" : q.event_type;
    return {
      searchTerms,
      eventType,
      ordering,
      excludeHidden: q.exclude_hidden,
      excludeStale: q.exclude_stale,
      ...(q.verified === undefined
        ? {}
        : {
            verified: typeof q.verified === "boolean" ? q.verified : q.verified.toLowerCase() === "true",
          }),
      names: [...new Set(q.names)],
      tags: q.tags ?? [],
      excludedNames: [...new Set(q.excluded_properties ?? [])],
    };
  });

function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * The list's page (EventDefinitionQuerySerializer): `limit` ≥ 1 (default: the page size) and
 * `offset` ≥ 0 (default 0); unlike other lists, a bad value is a 400 naming it.
 */
export const eventDefinitionPageSchema = z.object({
  limit: drf.integer().pipe(z.int().min(1)).optional(),
  offset: drf.integer().pipe(z.int().min(0)).optional(),
});
