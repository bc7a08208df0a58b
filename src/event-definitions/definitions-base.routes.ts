/**
 * The REST rows event and property definitions answer alike (PostHog's EventDefinitionViewSet and
 * PropertyDefinitionViewSet: list, retrieve, update, partial update, destroy): the door half of the
 * definitions' shared base, used by event-definitions.rest.ts and
 * property-definitions/property-definitions.rest.ts. Each kind gives its path, scopes, schemas,
 * serialiser, service, summaries and how it reads a list's filters (and its page, when stricter than
 * DRF's) from the query; what only one kind has (create, `by_name`, code, metrics, `seen_together`)
 * stays in its own route table.
 */
import { z } from "zod";
import type { Limits } from "../config.js";
import type { Scope } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import type { OffsetPage } from "../core/paging.js";
import { offsetListRoute } from "../rest/list-route.js";
import type { RestRoute } from "../rest/route.js";
import { pathId } from "../rest/routes.js";

/** What a kind of definition gives its shared rows. */
export interface DefinitionRoutes<R> {
  /** The list path, e.g. `/api/projects/:project_id/event_definitions/`. */
  base: string;
  /** The kind in prose, e.g. `event definition` (for `:id`'s description and the read's summary). */
  noun: string;
  /** The scope of its reads (PostHog's `<scope_object>:read`, e.g. `event_definition:read`). */
  read: Scope;
  /** The scope of its writes (`<scope_object>:write`). */
  write: Scope;
  /** The response schema of one definition, of a page of them, and the serialiser. */
  schema: z.ZodType;
  pageSchema: z.ZodType;
  serialize(definition: R): unknown;
  /** The kind's service operations (ids as the path gives them; the service parses the filters). */
  service: {
    list(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, unknown>,
      page: OffsetPage,
    ): Promise<{ count: number; results: R[] }>;
    get(ctx: ServiceContext, projectId: number, id: string): Promise<R>;
    update(ctx: ServiceContext, projectId: number, id: string, body: unknown): Promise<R>;
    destroy(ctx: ServiceContext, projectId: number, id: string): Promise<R>;
  };
  /** The list's summary and query parameters (for the OpenAPI document). */
  listSummary: string;
  listQuery: z.ZodObject;
  /** The list's page from the query, for a kind stricter than DRF's default (`parseOffsetPage`'s). */
  page?(query: URLSearchParams, ctx: ServiceContext): OffsetPage;
  /** The list's filters from the query, under PostHog's names, for the service to parse. */
  filters(query: URLSearchParams): Record<string, unknown>;
  /** The update's body schema (PATCH and PUT alike: absent fields keep their value) and summary. */
  updateBody: z.ZodType;
  updateSummary: string;
  deleteSummary: string;
}

/**
 * `GET <base>`: one page of the project's definitions with DRF's `{count, next, previous, results}`,
 * `limit` clamped to `limits.maxPageSize`.
 */
export function definitionListRoute<R>(
  kind: DefinitionRoutes<R>,
  limits: Pick<Limits, "maxPageSize">,
): RestRoute {
  return offsetListRoute(limits, {
    path: kind.base,
    summary: kind.listSummary,
    scopes: [kind.read],
    query: kind.listQuery,
    pageSchema: kind.pageSchema,
    page: kind.page,
    load: ({ ctx, projectId, query }, page) => kind.service.list(ctx, projectId, kind.filters(query), page),
    serialize: kind.serialize,
  });
}

/**
 * The `:id/` rows of a kind of definition, in table order: `GET` (one definition by UUID), `PATCH`
 * and `PUT` (the same partial update), `DELETE` (204, empty body). `:id` is a UUID; anything else
 * answers 404, as DRF's `get_object_or_404` does.
 */
export function definitionItemRoutes<R>(kind: DefinitionRoutes<R>): RestRoute[] {
  const path = `${kind.base}:id/`;
  const params = z.object({ id: z.string().describe(`The ${kind.noun}'s UUID.`) });
  const updateRoute = (method: "PATCH" | "PUT"): RestRoute => ({
    method,
    path,
    summary: kind.updateSummary,
    scopes: [kind.write],
    request: { params, body: kind.updateBody },
    responses: { 200: kind.schema },
    handler: async ({ params, body, ctx }) => ({
      body: kind.serialize(await kind.service.update(ctx, pathId(params, "project_id"), params["id"]!, body)),
    }),
  });
  return [
    {
      method: "GET",
      path,
      summary: `One ${kind.noun}, by UUID.`,
      scopes: [kind.read],
      request: { params },
      responses: { 200: kind.schema },
      handler: async ({ params, ctx }) => ({
        body: kind.serialize(await kind.service.get(ctx, pathId(params, "project_id"), params["id"]!)),
      }),
    },
    updateRoute("PATCH"),
    updateRoute("PUT"),
    {
      method: "DELETE",
      path,
      summary: kind.deleteSummary,
      scopes: [kind.write],
      request: { params },
      responses: { 204: null },
      handler: async ({ params, ctx }) => {
        await kind.service.destroy(ctx, pathId(params, "project_id"), params["id"]!);
        return { status: 204, body: undefined };
      },
    },
  ];
}
