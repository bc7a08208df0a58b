/**
 * Endpoints as the REST door answers them (PostHog's `EndpointViewSet._serialize`,
 * `products/endpoints/backend/api.py` late 2025; posthog-behavior.md §4.2, §4.8, §4.9), written once
 * as zod schemas: the serialisers return their types, fastify writes bodies with them, OpenAPI names them.
 */
import { z } from "zod";
import { drfDateTime, drfDateTimeOrNull } from "../rest/date-time.js";
import { paginatedListSchema } from "../rest/pagination.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";
import type { EndpointRecord, EndpointVersionRecord } from "./endpoints.queries.js";
import type { LastExecutionTimes, MaterializationView } from "./endpoints.service.js";

/** `materialization` / `materialization_status` of an endpoint that is not materialized. */
export const materializationCheckSchema = z
  .object({
    can_materialize: z
      .boolean()
      .describe("Whether the query could be materialized (PostHog's `can_materialize()`)."),
    reason: z.string().nullable().describe("Why not; null when it can."),
  })
  .meta({ id: "EndpointMaterializationCheck" });

/** `materialization` / `materialization_status` of a materialized endpoint (§4.6). */
export const materializedSchema = z
  .object({
    status: z
      .string()
      .describe(
        "The last refresh's status: `Running`, `Completed`, `Failed`, `Modified`; `Unknown` before one.",
      ),
    can_materialize: z.literal(true),
    last_materialized_at: z.iso
      .datetime()
      .nullable()
      .describe("When the last successful refresh started; null before one."),
    error: z.string().describe("The last failed refresh's error; empty when none."),
    sync_frequency: z.string().describe("How often it is refreshed: `5min` … `30day`."),
  })
  .meta({ id: "EndpointMaterializationStatus" });

/** Either shape (PostHog's `materialization_status`). */
export const materializationSchema = z
  .union([materializedSchema, materializationCheckSchema])
  .meta({ id: "EndpointMaterialization" });

const queryNode = z
  .record(z.string(), z.unknown())
  .describe("The query node as stored: a `HogQLQuery` or an insight node such as `TrendsQuery`.");

const endpointFields = {
  id: z.uuid(),
  name: z.string(),
  description: z.string().describe("The current version's description."),
  query: queryNode,
  is_active: z.boolean(),
  cache_age_seconds: z
    .number()
    .nullable()
    .describe("Seconds a cached result stays fresh; null: the default."),
  endpoint_path: z.string().describe("The run path, `/api/projects/<project>/endpoints/<name>/run`."),
  url: z.string().nullable().describe("The absolute run URL."),
  ui_url: z
    .string()
    .nullable()
    .describe("The absolute URL of the endpoint in PostHog's app, `/project/<project>/endpoints/<name>`."),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  created_by: userBasicSchema.nullable(),
  is_materialized: z.boolean(),
  current_version: z.int(),
  versions_count: z.int(),
  derived_from_insight: z.string().nullable(),
  materialization: materializationSchema,
};

/** An endpoint in PostHog's response shape (§4.2). */
export const endpointSchema = z.object(endpointFields).meta({ id: "Endpoint" });

/** An endpoint with one of its versions (`?version=N`, `versions/`, `versions/:n/`): the version's fields win. */
export const endpointVersionSchema = z
  .object({
    ...endpointFields,
    is_active: z.boolean().describe("Whether this version may be run."),
    version: z.int(),
    version_id: z.uuid(),
    endpoint_is_active: z.boolean(),
    version_created_at: z.iso.datetime(),
    version_created_by: userBasicSchema.nullable(),
  })
  .meta({ id: "EndpointVersion" });

/** DRF pages of endpoints and of versions (decision 4). */
export const endpointPageSchema = paginatedListSchema(endpointSchema, "PaginatedEndpointList");
export const endpointVersionPageSchema = paginatedListSchema(
  endpointVersionSchema,
  "PaginatedEndpointVersionList",
);

/** PostHog's body for a version an endpoint does not have: `{"error": "Version N not found"}`. */
export const versionNotFoundSchema = z.object({ error: z.string() }).meta({ id: "EndpointVersionNotFound" });

/** `last_execution_times`' answer: PostHog's `QueryStatusResponse` (the spec's execution status object). */
export const lastExecutionTimesSchema = z
  .object({
    query_status: z.object({
      complete: z.boolean(),
      dashboard_id: z.int().nullable(),
      end_time: z.iso.datetime().nullable(),
      error: z.boolean(),
      error_message: z.string().nullable(),
      expiration_time: z.iso.datetime().nullable(),
      id: z.string(),
      insight_id: z.int().nullable(),
      labels: z.array(z.string()).nullable(),
      pickup_time: z.iso.datetime().nullable(),
      query_async: z.boolean(),
      query_progress: z.object({
        active_cpu_time: z.number(),
        bytes_read: z.number(),
        estimated_rows_total: z.number(),
        rows_read: z.number(),
        time_elapsed: z.number(),
      }),
      results: z
        .array(z.tuple([z.string(), z.string()]))
        .nullable()
        .describe(
          "`[name, last executed at (ISO)]` per name run by a personal API key in the last 6 months; null when `names` is empty.",
        ),
      start_time: z.iso.datetime().nullable(),
      task_id: z.string().nullable(),
      team_id: z.int(),
    }),
  })
  .meta({ id: "QueryStatusResponse" });

/** Where absolute URLs start (the request's origin or the configured public URL). */
export type Origin = string;

function endpointPath(endpoint: EndpointRecord): string {
  return `/api/projects/${endpoint.projectId}/endpoints/${endpoint.name}/run`;
}

/** The `materialization` object (schema: `materializationSchema`): the status while materialized, else the check. */
export function serializeMaterialization(view: MaterializationView): z.output<typeof materializationSchema> {
  if (view.materialized) {
    return {
      status: view.materialized.status,
      can_materialize: true,
      last_materialized_at: drfDateTimeOrNull(view.materialized.lastMaterializedAt),
      error: view.materialized.error,
      sync_frequency: view.materialized.syncFrequency,
    };
  }
  return { can_materialize: view.canMaterialize, reason: view.canMaterialize ? null : view.reason };
}

/**
 * An endpoint in PostHog's shape (schema: `endpointSchema`); `origin` makes `url` and `ui_url`
 * absolute; `materialization` is its current version's check.
 */
export function serializeEndpoint(
  endpoint: EndpointRecord,
  materialization: MaterializationView,
  origin: Origin,
): z.output<typeof endpointSchema> {
  const path = endpointPath(endpoint);
  return {
    id: endpoint.id,
    name: endpoint.name,
    description: endpoint.current.description,
    query: endpoint.current.query,
    is_active: endpoint.isActive,
    cache_age_seconds: endpoint.current.cacheAgeSeconds,
    endpoint_path: path,
    url: new URL(path, origin).toString(),
    ui_url: new URL(`/project/${endpoint.projectId}/endpoints/${endpoint.name}`, origin).toString(),
    created_at: drfDateTime(endpoint.createdAt),
    updated_at: drfDateTime(endpoint.updatedAt),
    created_by: endpoint.createdBy ? serializeUserBasic(endpoint.createdBy) : null,
    is_materialized: endpoint.current.isMaterialized,
    current_version: endpoint.currentVersion,
    versions_count: endpoint.versionsCount,
    derived_from_insight: endpoint.derivedFromInsight,
    materialization: serializeMaterialization(materialization),
  };
}

/** An endpoint with one of its versions (schema: `endpointVersionSchema`). */
export function serializeEndpointVersion(
  endpoint: EndpointRecord,
  version: EndpointVersionRecord,
  materialization: MaterializationView,
  origin: Origin,
): z.output<typeof endpointVersionSchema> {
  return {
    ...serializeEndpoint(endpoint, materialization, origin),
    description: version.description,
    query: version.query,
    is_active: version.isActive,
    cache_age_seconds: version.cacheAgeSeconds,
    is_materialized: version.isMaterialized,
    version: version.version,
    version_id: version.id,
    endpoint_is_active: endpoint.isActive,
    version_created_at: drfDateTime(version.createdAt),
    version_created_by: version.createdBy ? serializeUserBasic(version.createdBy) : null,
  };
}

/** `last_execution_times`' answer (schema: `lastExecutionTimesSchema`): a complete, synchronous query status. */
export function serializeLastExecutionTimes(
  times: LastExecutionTimes,
): z.output<typeof lastExecutionTimesSchema> {
  return {
    query_status: {
      complete: true,
      dashboard_id: null,
      end_time: null,
      error: false,
      error_message: null,
      expiration_time: null,
      id: "",
      insight_id: null,
      labels: null,
      pickup_time: null,
      query_async: false,
      query_progress: {
        active_cpu_time: 0,
        bytes_read: 0,
        estimated_rows_total: 0,
        rows_read: 0,
        time_elapsed: 0,
      },
      results: times.results?.map(([name, at]) => [name, drfDateTime(at)]) ?? null,
      start_time: null,
      task_id: null,
      team_id: times.projectId,
    },
  };
}
