/**
 * Saved-query endpoints on PostHog's REST paths (spec "Saved-query endpoints" rows, posthog-behavior.md
 * §4; `products/endpoints/backend/api.py` EndpointViewSet): every operation on both path families,
 * `/api/environments/:project_id/endpoints/` and `/api/projects/:project_id/endpoints/` (decision 3),
 * each with and without its trailing slash. Request parsing and PostHog's shapes only; behaviour
 * lives in endpoints.service.ts. `run` (GET and POST) runs the endpoint (./run/endpoint-run.ts).
 */
import { z } from "zod";
import { errorBodySchema } from "../core/error-body.js";
import { NotFoundError } from "../core/errors.js";
import { offsetPageLinks, offsetPageQuerySchema, parseOffsetPage } from "../rest/pagination.js";
import type { RestModule, RestRoute } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import type { EndpointRecord, EndpointVersionRecord } from "./endpoints.queries.js";
import {
  endpointPageSchema,
  endpointSchema,
  endpointVersionPageSchema,
  endpointVersionSchema,
  lastExecutionTimesSchema,
  materializationSchema,
  serializeEndpoint,
  serializeEndpointVersion,
  serializeLastExecutionTimes,
  serializeMaterialization,
  versionNotFoundSchema,
} from "./endpoints.responses.js";
import {
  endpointRequestSchema,
  lastExecutionTimesSchema as lastExecutionTimesBodySchema,
  parseVersionParam,
} from "./endpoints.schemas.js";
import { type EndpointService, VersionNotFoundError } from "./endpoints.service.js";
import { endpointRunRequestSchema } from "./run/run.schemas.js";
import { runErrorBody } from "./run/run-errors.js";

/** The two path families (decision 3): every operation is declared under both. */
const BASES = ["/api/environments/:project_id/endpoints/", "/api/projects/:project_id/endpoints/"] as const;

/** `:name` of an endpoint. */
const nameParams = z.object({ name: z.string().describe("The endpoint's name (its URL-safe key).") });

/** `:name` and `:version_number`. */
const versionParams = nameParams.extend({
  version_number: z.string().describe("The version number (digits)."),
});

/** `?version=N` of retrieve and update. */
const versionQuery = z.object({
  version: z
    .int()
    .optional()
    .describe("A version number: retrieve that version, or update only its `is_active`."),
});

/** The list's query parameters. */
const listQuery = offsetPageQuerySchema.extend({
  is_active: z.boolean().optional().describe("Only active (true) or inactive (false) endpoints."),
  created_by: z.int().optional().describe("Only endpoints created by this user id."),
});

/** PostHog's own 404 body for a version an endpoint does not have. */
const versionErrorBody = (error: unknown) =>
  error instanceof VersionNotFoundError ? { error: error.detail } : undefined;

/** A version number in the path: digits only, else the route does not match (404). */
function versionNumber(params: Record<string, string>): number {
  const raw = params["version_number"] ?? "";
  if (!/^\d{1,9}$/.test(raw)) throw new NotFoundError();
  return Number(raw);
}

/** The run body's schema for OpenAPI (the service parses it: unknown fields refused). */
const runBody = endpointRunRequestSchema;

/** `?version=N` of run. */
const runQuery = z.object({
  version: z.string().optional().describe("The version to run (an integer); the body's `version` wins."),
});

/** A run's answer: the engine's response for the query kind, shaped by the run (posthog-behavior.md §4.7). */
const runResponseSchema = z
  .looseObject({
    results: z.unknown(),
    hasMore: z.boolean(),
    is_cached: z.boolean(),
    last_refresh: z.string(),
    name: z.string(),
    execution_id: z.string(),
    endpoint_version: z.int(),
    endpoint_version_created_at: z.iso.datetime(),
  })
  .meta({ id: "EndpointRunResponse" })
  .describe(
    "The query's response (HogQL: results, columns, types, hasMore, limit, offset; Trends: one result per " +
      "series), `results` first, debug fields only with `debug: true`, plus the endpoint's name and version.",
  );

/** PostHog's own bodies of the run's version errors. */
const runErrorSchema = z
  .object({ error: z.string(), current_version: z.int().optional() })
  .meta({ id: "EndpointRunVersionError" });

/** The endpoint routes of one path family. */
function familyRoutes(base: string, endpoints: EndpointService, maxPageSize: number): RestRoute[] {
  const project = (params: Record<string, string>) => pathId(params, "project_id");
  const name = (params: Record<string, string>) => params["name"]!;
  const one = async (endpoint: EndpointRecord, url: URL) =>
    serializeEndpoint(endpoint, await endpoints.materialization(endpoint.current), url.origin);
  const versioned = async (view: { endpoint: EndpointRecord; version: EndpointVersionRecord }, url: URL) =>
    serializeEndpointVersion(
      view.endpoint,
      view.version,
      await endpoints.materialization(view.version),
      url.origin,
    );
  const updateRoute = (method: "PATCH" | "PUT"): RestRoute => ({
    method,
    path: `${base}:name/`,
    summary:
      "Change an endpoint (every field optional): a changed query makes a new version; description and " +
      "cache_age_seconds apply to every version; with `?version=N`, only that version's is_active changes.",
    scopes: ["endpoint:write"],
    request: { params: nameParams, query: versionQuery, body: endpointRequestSchema },
    responses: {
      200: z.union([endpointSchema, endpointVersionSchema]),
      404: z.union([versionNotFoundSchema, errorBodySchema]),
    },
    errorBody: versionErrorBody,
    handler: async ({ params, query, body, url, ctx }) => {
      const version = parseVersionParam(query.get("version"));
      if (version !== null) {
        return {
          body: await versioned(
            await endpoints.setVersionActive(ctx, project(params), name(params), version, body),
            url,
          ),
        };
      }
      return { body: await one(await endpoints.update(ctx, project(params), name(params), body), url) };
    },
  });
  return [
    {
      method: "GET",
      path: base,
      summary:
        "List the project's endpoints, newest first: is_active and created_by filters; limit/offset pages.",
      scopes: ["endpoint:read"],
      request: { query: listQuery },
      responses: { 200: endpointPageSchema },
      handler: async ({ params, query, url, ctx }) => {
        const page = parseOffsetPage(query, { maxPageSize });
        const { count, results } = await endpoints.list(
          ctx,
          project(params),
          Object.fromEntries(query),
          page,
        );
        return {
          body: {
            count,
            ...offsetPageLinks(url, page, count),
            results: await Promise.all(results.map((endpoint) => one(endpoint, url))),
          },
        };
      },
    },
    {
      method: "POST",
      path: base,
      summary:
        "Create an endpoint (version 1) from a HogQLQuery or an insight query; unknown fields are refused. " +
        "A materializable HogQL query is materialized (sync_frequency, default 24hour) unless is_materialized is false.",
      scopes: ["endpoint:write"],
      request: { body: endpointRequestSchema },
      responses: { 201: endpointSchema },
      handler: async ({ params, body, url, ctx }) => ({
        status: 201,
        body: await one(await endpoints.create(ctx, project(params), body), url),
      }),
    },
    {
      method: "POST",
      path: `${base}last_execution_times/`,
      summary:
        "When each named endpoint was last run with a personal API key in the past 6 months, as a query status.",
      scopes: ["endpoint:read"],
      request: { body: lastExecutionTimesBodySchema },
      responses: { 200: lastExecutionTimesSchema },
      handler: async ({ params, body, ctx }) => ({
        body: serializeLastExecutionTimes(await endpoints.lastExecutionTimes(ctx, project(params), body)),
      }),
    },
    {
      method: "GET",
      path: `${base}:name/`,
      summary: "One endpoint by name; with `?version=N`, that version's fields and the version's own.",
      scopes: ["endpoint:read"],
      request: { params: nameParams, query: versionQuery },
      responses: {
        200: z.union([endpointSchema, endpointVersionSchema]),
        404: z.union([versionNotFoundSchema, errorBodySchema]),
      },
      errorBody: versionErrorBody,
      handler: async ({ params, query, url, ctx }) => {
        const version = parseVersionParam(query.get("version"));
        if (version !== null) {
          return {
            body: await versioned(
              await endpoints.getVersion(ctx, project(params), name(params), version),
              url,
            ),
          };
        }
        return { body: await one(await endpoints.get(ctx, project(params), name(params)), url) };
      },
    },
    updateRoute("PATCH"),
    updateRoute("PUT"),
    {
      method: "DELETE",
      path: `${base}:name/`,
      summary: "Delete an endpoint and its versions, with their materialized results and refresh jobs.",
      scopes: ["endpoint:write"],
      request: { params: nameParams },
      responses: { 204: null },
      handler: async ({ params, ctx }) => {
        await endpoints.destroy(ctx, project(params), name(params));
        return { status: 204, body: undefined };
      },
    },
    {
      method: "GET",
      path: `${base}:name/materialization_status/`,
      summary:
        "The current version's materialization: status, last run, error and frequency while materialized; else whether it could be, and why not.",
      scopes: ["endpoint:read"],
      request: { params: nameParams },
      responses: { 200: materializationSchema },
      handler: async ({ params, ctx }) => ({
        body: serializeMaterialization(
          await endpoints.materializationStatus(ctx, project(params), name(params)),
        ),
      }),
    },
    {
      method: "GET",
      path: `${base}:name/versions/`,
      summary: "The endpoint's versions, highest first; limit/offset pages.",
      scopes: ["endpoint:read"],
      request: { params: nameParams, query: offsetPageQuerySchema },
      responses: { 200: endpointVersionPageSchema },
      handler: async ({ params, query, url, ctx }) => {
        const page = parseOffsetPage(query, { maxPageSize });
        const { count, endpoint, results } = await endpoints.versions(
          ctx,
          project(params),
          name(params),
          page,
        );
        return {
          body: {
            count,
            ...offsetPageLinks(url, page, count),
            results: await Promise.all(results.map((version) => versioned({ endpoint, version }, url))),
          },
        };
      },
    },
    {
      method: "GET",
      path: `${base}:name/versions/:version_number/`,
      summary: "One version of the endpoint by number.",
      scopes: ["endpoint:read"],
      request: { params: versionParams },
      responses: {
        200: endpointVersionSchema,
        404: z.union([versionNotFoundSchema, errorBodySchema]),
      },
      errorBody: versionErrorBody,
      handler: async ({ params, url, ctx }) => {
        const number = versionNumber(params);
        return {
          body: await versioned(await endpoints.getVersion(ctx, project(params), name(params), number), url),
        };
      },
    },
    ...(["GET", "POST"] as const).map(
      (method): RestRoute => ({
        method,
        path: `${base}:name/run/`,
        summary:
          method === "GET"
            ? "Run the endpoint's current version (or `?version=N`) with the default options; cached per PostHog's rules."
            : "Run the endpoint with options: variables, refresh (blocking, force_blocking), version, limit/offset " +
              "(HogQL), debug. Overrides are refused; results are cached per the version's cache_age_seconds.",
        scopes: ["endpoint:read"],
        request: {
          params: nameParams,
          query: runQuery,
          ...(method === "POST" ? { body: runBody } : {}),
        },
        responses: {
          200: runResponseSchema,
          400: z.union([runErrorSchema, errorBodySchema]),
          404: z.union([runErrorSchema, errorBodySchema]),
          429: errorBodySchema,
        },
        errorBody: runErrorBody,
        handler: async ({ params, query, body, ctx }) => {
          const result = await endpoints.run(ctx, project(params), name(params), {
            body: method === "POST" ? body : {},
            versionParam: query.get("version"),
          });
          return { body: result.body };
        },
      }),
    ),
  ];
}

/** The endpoint routes of both path families. */
export const endpointRoutes: RestModule = (services, limits) =>
  BASES.flatMap((base) => familyRoutes(base, services.endpoints, limits.maxPageSize));
