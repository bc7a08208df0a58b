/**
 * The body of `run` (PostHog's `EndpointRunRequest`, `extra="forbid"`; posthog-behavior.md §4.7, the
 * spec's "Run request body" table) and its `refresh` modes.
 * Source: `products/endpoints/backend/api.py` (`run`, `validate_run_request`), generated `posthog/schema.py`.
 */
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { ownValue } from "../../core/own-keys.js";

/** Refresh modes that compute synchronously: `blocking` (use a fresh cached result) and `force_blocking`. */
export const SYNC_REFRESH_MODES = ["blocking", "force_blocking"] as const;

/** Older `EndpointRefreshMode` names, accepted as aliases: `cache` → `blocking`, `force` → `force_blocking`. */
export const REFRESH_ALIASES: Readonly<Record<string, (typeof SYNC_REFRESH_MODES)[number]>> = {
  cache: "blocking",
  force: "force_blocking",
};

/** PostHog's asynchronous (or cache-only) `RefreshType`s: refused, `Only sync modes are supported (refresh param)`. */
export const ASYNC_REFRESH_MODES = [
  "async",
  "lazy_async",
  "force_async",
  "async_except_on_cache_miss",
  "force_cache",
] as const;

/** `direct` bypasses a materialized result: valid only for materialized endpoints. */
export const DIRECT_REFRESH = "direct";

/** Every `refresh` value the body may carry. */
export const REFRESH_VALUES = [
  ...SYNC_REFRESH_MODES,
  ...Object.keys(REFRESH_ALIASES),
  DIRECT_REFRESH,
  ...ASYNC_REFRESH_MODES,
] as const;

/** `EndpointRunRequest`: every field optional and nullable (null: not given). */
export const endpointRunRequestSchema = z.object({
  client_query_id: z
    .string()
    .nullish()
    .describe("The caller's id for the query (accepted; runs are synchronous)."),
  refresh: z
    .string()
    .nullish()
    .describe(
      "`blocking` (default: a fresh cached result is reused) or `force_blocking` (always compute); the older " +
        "`cache`/`force` are aliases. `direct` is only for materialized endpoints; async modes are refused.",
    ),
  variables: z
    .record(z.string(), z.unknown())
    .nullish()
    .describe(
      "HogQL endpoints: `{code_name: value}` for the query's variables. Insight endpoints: `date_from`, " +
        "`date_to` and the breakdown property's name.",
    ),
  filters_override: z.unknown().optional().describe("Refused: use variables instead."),
  query_override: z.unknown().optional().describe("Refused: use variables instead."),
  version: z.int().nullish().describe("The version to run; the current one when absent."),
  debug: z.boolean().nullish().describe("Keep the debug fields (timings, hogql, modifiers, ...)."),
  limit: z
    .int()
    .min(1)
    .nullish()
    .describe("HogQL endpoints only: rows per page (default 100, at most 50,000)."),
  offset: z.int().min(0).nullish().describe("HogQL endpoints only: rows to skip."),
});

/** A parsed run body. */
export type EndpointRunRequest = z.output<typeof endpointRunRequestSchema>;

/** A synchronous refresh mode, aliases resolved; `direct` computes past a materialized result (as `blocking` otherwise). */
export type RefreshMode = (typeof SYNC_REFRESH_MODES)[number] | typeof DIRECT_REFRESH;

/**
 * `refresh` checked: a sync mode (aliases resolved; absent → `blocking`), or `direct` for a
 * materialized version.
 * @throws ValidationError attr `refresh`: DRF's `"<x>" is not a valid choice.` for an unknown value,
 *   PostHog's `direct` message for a version that is not materialized, `Only sync modes are supported
 *   (refresh param)`.
 */
export function refreshMode(raw: string | null | undefined, materialized: boolean): RefreshMode {
  if (raw === null || raw === undefined) return "blocking";
  if ((SYNC_REFRESH_MODES as readonly string[]).includes(raw)) return raw as RefreshMode;
  const alias = ownValue(REFRESH_ALIASES, raw);
  if (alias) return alias;
  if (raw === DIRECT_REFRESH) {
    if (materialized) return DIRECT_REFRESH;
    throw new ValidationError(
      "'direct' refresh mode is only valid for materialized endpoints. Use 'cache' or 'force' instead, or " +
        "enable materialization on this endpoint.",
      { attr: "refresh" },
    );
  }
  if ((ASYNC_REFRESH_MODES as readonly string[]).includes(raw)) {
    throw new ValidationError("Only sync modes are supported (refresh param)", { attr: "refresh" });
  }
  throw new ValidationError(`"${raw}" is not a valid choice.`, { attr: "refresh", code: "invalid_choice" });
}
