/**
 * The `Endpoint` object type (a node, keyed by its UUID), its `EndpointVersion`s and the
 * `EndpointMaterialization` check: records as the endpoint service reads them (endpoints.queries.ts).
 * Field names are camelCase versions of REST's (posthog-behavior.md §4.2).
 */

import { NotFoundError } from "../../core/errors.js";
import { isUuid } from "../../core/validation.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { decodeGlobalId, parseProjectOwnedLocalId, projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { UserRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { EndpointRecord, EndpointVersionRecord } from "../endpoints.queries.js";
import type { MaterializationView } from "../endpoints.service.js";

/** An endpoint version's materialization (REST `materialization_status`, posthog-behavior.md §4.6). */
export const EndpointMaterializationRef = builder
  .objectRef<MaterializationView>("EndpointMaterialization")
  .implement({
    description:
      "An endpoint version's materialization: while materialized, its refresh status, last run, error and " +
      "frequency (`isMaterialized` true); otherwise whether its query could be materialized, and why not.",
    fields: (t) => ({
      isMaterialized: t.boolean({
        description: "Whether the version is materialized (its result refreshed on a schedule).",
        resolve: (view) => view.materialized !== null,
      }),
      canMaterialize: t.exposeBoolean("canMaterialize", {
        description: "Whether the query could be materialized (true while it is).",
      }),
      reason: t.exposeString("reason", { nullable: true, description: "Why not; null when it can." }),
      status: t.string({
        nullable: true,
        description:
          "The last refresh's status (`Running`, `Completed`, `Failed`, `Modified`; `Unknown` before one); null when not materialized.",
        resolve: (view) => view.materialized?.status ?? null,
      }),
      lastMaterializedAt: t.field({
        type: "DateTime",
        nullable: true,
        description: "When the last successful refresh started; null before one or when not materialized.",
        resolve: (view) => view.materialized?.lastMaterializedAt ?? null,
      }),
      error: t.string({
        nullable: true,
        description: "The last failed refresh's error (empty when none); null when not materialized.",
        resolve: (view) => view.materialized?.error ?? null,
      }),
      syncFrequency: t.string({
        nullable: true,
        description: "How often it is refreshed (`5min` … `30day`); null when not materialized.",
        resolve: (view) => view.materialized?.syncFrequency ?? null,
      }),
    }),
  });

/** One version of an endpoint. */
export const EndpointVersionRef = builder.objectRef<EndpointVersionRecord>("EndpointVersion").implement({
  description:
    "One version of a saved-query endpoint: an immutable query snapshot, made when the query changes.",
  fields: (t) => ({
    uuid: t.exposeString("id", { description: "The version's UUID (REST's `version_id`)." }),
    version: t.exposeInt("version", { description: "Its number, from 1." }),
    query: t.expose("query", {
      type: "JSON",
      description: "The query node as stored when the version was made.",
    }),
    description: t.exposeString("description", { description: "The description (shared by every version)." }),
    cacheAgeSeconds: t.exposeInt("cacheAgeSeconds", {
      nullable: true,
      description: "Seconds a cached result stays fresh (300–86400); null for the default.",
    }),
    isMaterialized: t.exposeBoolean("isMaterialized", {
      description: "Whether this version's result is materialized (refreshed on a schedule).",
    }),
    isActive: t.exposeBoolean("isActive", { description: "Whether this version may be run." }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the version was made." }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who made the version.",
      resolve: (version) => version.createdBy,
    }),
    materialization: t.field({
      type: EndpointMaterializationRef,
      description: "Whether this version's query could be materialized.",
      resolve: (version, _args, ctx) => ctx.services.endpoints.materialization(version),
    }),
  }),
});

/** The `Endpoint` object type. */
export const EndpointRef = builder.objectRef<EndpointRecord>("Endpoint").implement({
  description:
    "A saved-query endpoint (PostHog's Endpoint): a named, versioned HogQL or insight query callers run over HTTP.",
  extensions: requiresScopes("endpoint:read"),
  fields: (t) => ({
    uuid: t.exposeString("id", { description: "PostHog's UUID of the endpoint." }),
    name: t.exposeString("name", {
      description: "Its URL-safe name (REST's `:name`), unique in the project.",
    }),
    description: t.string({
      description: "The current version's description.",
      resolve: (endpoint) => endpoint.current.description,
    }),
    query: t.field({
      type: "JSON",
      description: "The current version's query node, as stored.",
      resolve: (endpoint) => endpoint.current.query,
    }),
    isActive: t.exposeBoolean("isActive", { description: "Whether the endpoint may be run." }),
    cacheAgeSeconds: t.int({
      nullable: true,
      description: "Seconds a cached result stays fresh (300–86400); null for the default.",
      resolve: (endpoint) => endpoint.current.cacheAgeSeconds,
    }),
    endpointPath: t.string({
      description: "The REST run path, `/api/projects/<project>/endpoints/<name>/run`.",
      resolve: (endpoint) => `/api/projects/${endpoint.projectId}/endpoints/${endpoint.name}/run`,
    }),
    isMaterialized: t.boolean({
      description: "Whether its current version is materialized.",
      resolve: (endpoint) => endpoint.current.isMaterialized,
    }),
    currentVersion: t.exposeInt("currentVersion", {
      description: "The number of the version runs use by default.",
    }),
    versionsCount: t.exposeInt("versionsCount", { description: "How many versions it has." }),
    derivedFromInsight: t.exposeString("derivedFromInsight", {
      nullable: true,
      description: "The short id of the insight it was made from, if any.",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was created." }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When it last changed." }),
    lastExecutedAt: t.expose("lastExecutedAt", {
      type: "DateTime",
      nullable: true,
      description: "When a personal API key last ran it; null until then.",
    }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who created it.",
      resolve: (endpoint) => endpoint.createdBy,
    }),
    materialization: t.field({
      type: EndpointMaterializationRef,
      description: "Its current version's materialization (REST `materialization_status`).",
      resolve: (endpoint, _args, ctx) => ctx.services.endpoints.materialization(endpoint.current),
    }),
    currentVersionDetail: t.field({
      type: EndpointVersionRef,
      description: "Its current version.",
      resolve: (endpoint) => endpoint.current,
    }),
    version: t.field({
      type: EndpointVersionRef,
      nullable: true,
      description: "Its version numbered `number` (REST `versions/:version_number/`); null when it has none.",
      args: { number: t.arg.int({ required: true, description: "The version number." }) },
      resolve: async (endpoint, args, ctx) => {
        const found = await ctx.services.endpoints
          .getVersion(await ctx.serviceContext(), endpoint.projectId, { id: endpoint.id }, args.number)
          .catch((error: unknown) => {
            if (error instanceof NotFoundError) return null;
            throw error;
          });
        return found?.version ?? null;
      },
    }),
    versions: t.connection(
      {
        type: EndpointVersionRef,
        description: "Its versions, highest number first (REST `versions/`).",
        resolve: async (endpoint, args, ctx) => {
          const serviceContext = await ctx.serviceContext();
          return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
            ctx.services.endpoints.versions(serviceContext, endpoint.projectId, { id: endpoint.id }, page),
          );
        },
      },
      {
        name: "EndpointVersionConnection",
        description: "A page of endpoint versions.",
        fields: (c) => ({
          totalCount: c.int({
            description: "Versions on all pages together.",
            resolve: connectionTotalCount,
          }),
        }),
      },
      { name: "EndpointVersionEdge", description: "A version in a page of versions." },
    ),
  }),
});

implementNode(EndpointRef, {
  localId: (endpoint) => projectOwnedLocalId(endpoint.projectId, endpoint.id),
  // Scope `endpoint:read` and the project check, as `Project.endpoint`.
  load: projectOwnedLoader(
    (key) => (isUuid(key) ? key.toLowerCase() : null),
    (ctx, serviceContext, projectId, ids) => ctx.services.endpoints.getMany(serviceContext, projectId, ids),
  ),
});

/** The UUID in an endpoint id input: the UUID itself or the endpoint's global id; null otherwise. */
export function parseEndpointId(raw: string): string | null {
  if (isUuid(raw)) return raw.toLowerCase();
  const global = decodeGlobalId(raw);
  if (global === null || global.typename !== "Endpoint") return null;
  const owned = parseProjectOwnedLocalId(global.localId);
  return owned !== null && isUuid(owned.key) ? owned.key.toLowerCase() : null;
}
