/**
 * REST paging as PostHog's clients expect it.
 * - Offset pages (DRF `LimitOffsetPagination`, posthog-behavior.md §1.2): `limit`/`offset` query
 *   parameters; a bad value falls back to the default as DRF does; `limit` is clamped to the
 *   configured maximum; `next`/`previous` are absolute URLs that keep the other parameters.
 * - Activity pages (§2.9): `limit` (default 10) and 1-based `page`; a bad value is a 400.
 */

import { z } from "zod";
import { DEFAULT_PAGE_SIZE, type Limits } from "../config.js";
import { activityPaging, DEFAULT_ACTIVITY_PAGE_SIZE } from "../core/activity-log.js";

/** An absolute page link, or null on the first or last page. */
const pageLink = z.url().nullable();

/**
 * DRF's offset page of `item`s (`{count, next, previous, results}`), named `id` in the OpenAPI
 * document (drf-spectacular's `Paginated<Item>List`). Call once per item schema, at module level.
 */
export function paginatedListSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      count: z.int().describe("Rows matching the request, over all pages."),
      next: pageLink,
      previous: pageLink,
      results: z.array(item),
    })
    .meta({ id });
}

/** The query parameters `parseOffsetPage` reads, for the OpenAPI document. */
export const offsetPageQuerySchema = z.object({
  limit: z.int().min(1).optional().describe("Rows per page; a bad value falls back to the default."),
  offset: z.int().min(0).optional().describe("Rows to skip."),
});

/** The query parameters `parseActivityPage` reads, for the OpenAPI document. */
export const activityPageQuerySchema = z.object({
  limit: z
    .int()
    .min(1)
    .optional()
    .describe(`Entries per page (default ${DEFAULT_ACTIVITY_PAGE_SIZE}); not a whole number ≥ 1: 400.`),
  page: z.int().min(1).optional().describe("1-based page number; not a whole number ≥ 1: 400."),
});

function positiveInt(raw: string | null, strict: boolean): number | null {
  if (raw === null || !/^\s*\d+\s*$/.test(raw)) return null;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || (strict && value === 0)) return null;
  return value;
}

/**
 * Reads `limit`/`offset` as DRF does: invalid or zero `limit` → `DEFAULT_PAGE_SIZE`, invalid
 * `offset` → 0; `limit` clamped to the configured `maxPageSize`.
 */
export function parseOffsetPage(
  query: URLSearchParams,
  limits: Pick<Limits, "maxPageSize">,
): { limit: number; offset: number } {
  const limit = Math.min(positiveInt(query.get("limit"), true) ?? DEFAULT_PAGE_SIZE, limits.maxPageSize);
  const offset = positiveInt(query.get("offset"), false) ?? 0;
  return { limit, offset };
}

function withParams(url: URL, set: Record<string, number>, remove: string[] = []): string {
  const next = new URL(url);
  for (const [name, value] of Object.entries(set)) next.searchParams.set(name, String(value));
  for (const name of remove) next.searchParams.delete(name);
  return next.toString();
}

/** DRF's `next`/`previous` links of an offset page of `count` rows. */
export function offsetPageLinks(
  url: URL,
  page: { limit: number; offset: number },
  count: number,
): { next: string | null; previous: string | null } {
  const next =
    page.offset + page.limit < count
      ? withParams(url, { limit: page.limit, offset: page.offset + page.limit })
      : null;
  let previous: string | null = null;
  if (page.offset > 0) {
    previous =
      page.offset - page.limit <= 0
        ? withParams(url, { limit: page.limit }, ["offset"])
        : withParams(url, { limit: page.limit, offset: page.offset - page.limit });
  }
  return { next, previous };
}

/**
 * A list route's body for one offset page, as DRF's `LimitOffsetPagination` writes it:
 * `{count, next, previous, results}`, each record of `found` serialised by `serialize`.
 */
export function offsetPageBody<R>(
  url: URL,
  page: { limit: number; offset: number },
  found: { count: number; results: readonly R[] },
  serialize: (record: R) => unknown,
): { count: number; next: string | null; previous: string | null; results: unknown[] } {
  return {
    count: found.count,
    ...offsetPageLinks(url, page, found.count),
    results: found.results.map(serialize),
  };
}

/**
 * Reads activity paging from the query (`limit`, `page`); see `activityPaging` for the rule.
 * @throws ValidationError for a value that is not a whole number ≥ 1.
 */
export function parseActivityPage(query: URLSearchParams, maxLimit: number): { limit: number; page: number } {
  const read = (name: string) => {
    const raw = query.get(name);
    if (raw === null) return undefined;
    return /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  };
  return activityPaging({ limit: read("limit"), page: read("page") }, maxLimit);
}

/** The activity page's `next`/`previous` links (`page=<p±1>&limit=<l>`). */
export function activityPageLinks(
  url: URL,
  paging: { limit: number; page: number },
  hasNext: boolean,
  hasPrevious: boolean,
): { next: string | null; previous: string | null } {
  return {
    next: hasNext ? withParams(url, { page: paging.page + 1, limit: paging.limit }) : null,
    previous: hasPrevious ? withParams(url, { page: paging.page - 1, limit: paging.limit }) : null,
  };
}

/**
 * The `next`/`previous` links of an offset page whose total is not counted (PostHog's person list,
 * `posthog/api/person.py` `list`): `next` when the page came back full (`hasMore`), `previous` when
 * a whole page fits before this one (`offset - limit >= 0`), each with `limit` and `offset` set.
 */
export function uncountedPageLinks(
  url: URL,
  page: { limit: number; offset: number },
  hasMore: boolean,
): { next: string | null; previous: string | null } {
  const back = page.offset - page.limit;
  return {
    next: hasMore ? withParams(url, { limit: page.limit, offset: page.offset + page.limit }) : null,
    previous: back >= 0 ? withParams(url, { limit: page.limit, offset: back }) : null,
  };
}

/** A DRF cursor page link (`?cursor=`, other parameters kept), or null without a cursor. */
export function cursorPageLink(url: URL, cursor: string | null): string | null {
  if (cursor === null) return null;
  const link = new URL(url);
  link.searchParams.set("cursor", cursor);
  return link.toString();
}
