/**
 * The list route of a project's records as DRF's `LimitOffsetPagination` answers it: `GET <path>`
 * reads the page from the query (`parseOffsetPage`, or the kind's own rule), has the loader read it
 * for the path's project, and answers `{count, next, previous, results}` (`offsetPageBody`).
 */
import type { z } from "zod";
import type { Limits } from "../config.js";
import type { Scope } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import type { OffsetPage } from "../core/paging.js";
import { offsetPageBody, parseOffsetPage } from "./pagination.js";
import type { RestRoute } from "./route.js";
import { pathId } from "./routes.js";

/** What a list's loader reads a page for: the caller, the path's `:project_id`, the query and the path's parameters. */
export interface ListRequest {
  ctx: ServiceContext;
  projectId: number;
  query: URLSearchParams;
  params: Record<string, string>;
}

/** One offset-paged list route of records `R` (see the module comment). */
export interface OffsetListRoute<R> {
  /** The path, naming `:project_id` (e.g. `/api/projects/:project_id/webhooks/`). */
  path: string;
  summary: string;
  scopes: readonly Scope[];
  /** The query's parameters, for the OpenAPI document: `offsetPageQuerySchema`, with the filters it reads. */
  query: z.ZodObject;
  /** The page's body schema (`paginatedListSchema` of the record's). */
  pageSchema: z.ZodType;
  /** Reads one page, `{count, results}`: the service's list, with the filters it takes from the query. */
  load(request: ListRequest, page: OffsetPage): Promise<{ count: number; results: readonly R[] }>;
  /** One record's answer. */
  serialize(record: R, ctx: ServiceContext): unknown;
  /** The page from the query, for a kind stricter than DRF's default (which `parseOffsetPage` reads). */
  page?(query: URLSearchParams, ctx: ServiceContext): OffsetPage;
  /** False for a list of rows that do not move the project's revision (see `RestRoute.conditional`). */
  conditional?: false;
}

/**
 * The `GET` route of `list`, `limit` clamped to `limits.maxPageSize`. Its errors are the page rule's,
 * the loader's and the path's (`ProjectNotFoundError` for a `:project_id` that is not an id).
 */
export function offsetListRoute<R>(limits: Pick<Limits, "maxPageSize">, list: OffsetListRoute<R>): RestRoute {
  const readPage = list.page ?? ((query: URLSearchParams) => parseOffsetPage(query, limits));
  return {
    method: "GET",
    path: list.path,
    summary: list.summary,
    scopes: list.scopes,
    request: { query: list.query },
    responses: { 200: list.pageSchema },
    ...(list.conditional === false ? { conditional: false } : {}),
    handler: async ({ params, query, url, ctx }) => {
      const page = readPage(query, ctx);
      const found = await list.load({ ctx, projectId: pathId(params, "project_id"), query, params }, page);
      return { body: offsetPageBody(url, page, found, (record) => list.serialize(record, ctx)) };
    },
  };
}
