/**
 * Inputs of the endpoint operations in PostHog's field names (the REST contract; GraphQL re-encodes
 * its camelCase inputs into these). PostHog reads bodies with Pydantic models (`EndpointRequest`,
 * `EndpointLastExecutionTimesRequest`, `extra="forbid"`): unknown fields are refused, not ignored.
 * Rules beyond the field types (name pattern, query kinds, HogQL parse, cache age range,
 * materialization) are the service's, in PostHog's order.
 * Source: `products/endpoints/backend/api.py`, generated `posthog/schema.py`; posthog-behavior.md §4.
 */
import { z } from "zod";
import { ValidationError } from "../core/errors.js";
import { FormBody } from "../core/form-body.js";
import { drf } from "../core/validation.js";
import { SYNC_FREQUENCIES } from "./rules/materialization.js";

/** Shortest and longest `cache_age_seconds` (`MIN_CACHE_AGE_SECONDS`, `MAX_CACHE_AGE_SECONDS`). */
export const MIN_CACHE_AGE_SECONDS = 300;
export const MAX_CACHE_AGE_SECONDS = 86_400;

/** Longest `derived_from_insight` (an insight short id, `max_length=12`). */
export const INSIGHT_SHORT_ID_MAX_LENGTH = 12;

/** Fields of PostHog's `EndpointRequest`, each optional and nullable (null: not given). */
export const endpointRequestSchema = z.object({
  name: z.string().nullish(),
  query: z.record(z.string(), z.unknown()).nullish(),
  description: z.string().nullish(),
  is_active: drf.boolean().nullish(),
  cache_age_seconds: drf.integer().nullish(),
  /** One of `SYNC_FREQUENCIES`, checked by `checkSyncFrequency` after the text checks of `parseInput`. */
  sync_frequency: z
    .string()
    .nullish()
    .describe(
      `Materialization interval, one of ${SYNC_FREQUENCIES.join(", ")} (materialization answers 501: not built yet).`,
    ),
  is_materialized: drf.boolean().nullish(),
  derived_from_insight: drf.string({ maxLength: INSIGHT_SHORT_ID_MAX_LENGTH }).nullish(),
});

/** A parsed `EndpointRequest` body. */
export type EndpointRequest = z.output<typeof endpointRequestSchema>;

/** `POST last_execution_times/`'s body (`EndpointLastExecutionTimesRequest`): the names to look up. */
export const lastExecutionTimesSchema = z.object({ names: z.array(z.string()) });

/** The list's filters (`filterset_fields = ["is_active", "created_by"]`): unset ones do not filter. */
export const endpointListFiltersSchema = z.object({
  is_active: drf.boolean().optional(),
  created_by: drf.integer().optional(),
});

/** Parsed list filters. */
export type EndpointListFilters = z.output<typeof endpointListFiltersSchema>;

/**
 * Refuses fields `schema` does not name, as Pydantic's `extra="forbid"` does: 400 `Extra inputs are
 * not permitted`, `attr` the first unknown field. Bodies that are not JSON objects are left to
 * `parseInput`, which refuses them with DRF's message.
 */
export function forbidExtraFields(schema: z.ZodObject, body: unknown): void {
  if (body === null || typeof body !== "object" || Array.isArray(body) || body instanceof FormBody) return;
  const known = new Set(Object.keys(schema.shape));
  const extra = Object.keys(body).find((key) => !known.has(key));
  if (extra !== undefined) {
    throw new ValidationError("Extra inputs are not permitted", { attr: extra, code: "extra_forbidden" });
  }
}

/**
 * `sync_frequency` checked against PostHog's `DataWarehouseSyncInterval` values (after `parseInput`,
 * so a NUL in it is refused as in any text).
 * @throws ValidationError attr `sync_frequency`, DRF's `"<x>" is not a valid choice.`
 */
export function checkSyncFrequency(value: string | null | undefined): void {
  if (value === null || value === undefined) return;
  if (!(SYNC_FREQUENCIES as readonly string[]).includes(value)) {
    throw new ValidationError(`"${value}" is not a valid choice.`, {
      attr: "sync_frequency",
      code: "invalid_choice",
    });
  }
}

/**
 * A version number from `?version=` (or a GraphQL argument): an integer, else 400
 * `Invalid version parameter: <x>` attr `version` (PostHog's `_parse_version_param`); null when absent.
 */
export function parseVersionParam(raw: string | number | null | undefined): number | null {
  if (raw === null || raw === undefined) return null;
  const text = String(raw).trim();
  if (!/^-?\d{1,9}$/.test(text)) {
    throw new ValidationError(`Invalid version parameter: ${String(raw)}`, { attr: "version" });
  }
  return Number(text);
}
