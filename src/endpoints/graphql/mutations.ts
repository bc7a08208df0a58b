/**
 * `createEndpoint`, `updateEndpoint` and `deleteEndpoint`: REST's `POST endpoints/`, `PATCH :name/`
 * (with `?version=N`) and `DELETE :name/` for GraphQL, through the same service methods (inputs
 * re-encoded into REST's body, so the same rules and messages apply, decision 6). Mutations address
 * an endpoint by `id` (UUID or global id), as GraphQL addresses objects.
 */
import { NotFoundError, NotImplementedError, ValidationError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { mutationResult, WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { EndpointRef, parseEndpointId } from "./endpoint.type.js";

const PROJECT_ID_DESCRIPTION =
  "The endpoint's project: PostHog's integer id (REST's `:project_id`) or the project's global `id`.";
const ID_DESCRIPTION = "The endpoint: its UUID or its global `id`.";

/** The writable fields shared by create and update, with their PostHog names (`query`/`hogql` aside). */
const FIELD_NAMES = {
  description: "description",
  isActive: "is_active",
  cacheAgeSeconds: "cache_age_seconds",
  syncFrequency: "sync_frequency",
  isMaterialized: "is_materialized",
  derivedFromInsight: "derived_from_insight",
} as const;

/** plugin-errors options of mutation `name` (a write may also meet what is not built: 501's typed error). */
function result(name: string, verb: string) {
  return mutationResult({
    name,
    field: "endpoint",
    what: "The endpoint",
    verb,
    types: [...WRITE_ERRORS, NotImplementedError],
  });
}

/** The UUID of a mutation input's `id`. @throws NotFoundError for an id naming no endpoint. */
function mutationId(raw: string): { id: string } {
  const id = parseEndpointId(raw);
  if (id === null) throw new NotFoundError();
  return { id };
}

/**
 * REST's `query` from the input's `query` (any node) or `hogql` (text, made a `HogQLQuery`), absent
 * when neither is given. @throws ValidationError attr `query` when both are.
 */
function queryOf(input: { query?: unknown; hogql?: string | null }): Record<string, unknown> {
  const hasQuery = input.query !== null && input.query !== undefined;
  const hasText = input.hogql !== null && input.hogql !== undefined;
  if (hasQuery && hasText)
    throw new ValidationError("Give either `query` or `hogql`, not both.", { attr: "query" });
  if (hasText) return { query: { kind: "HogQLQuery", query: input.hogql } };
  return hasQuery ? { query: input.query } : {};
}

const CreateEndpointInput = builder.inputType("CreateEndpointInput", {
  description:
    "A new saved-query endpoint (REST `POST endpoints/`): its name and its query (`query` or `hogql`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    name: t.string({
      required: true,
      description:
        "URL-safe name: a letter, then letters, digits, `_` or `-`, at most 128 characters; unique in the project.",
    }),
    query: t.field({
      type: "JSON",
      description:
        "The query node: a `HogQLQuery` or an insight query (`TrendsQuery`, ...). Not with `hogql`.",
    }),
    hogql: t.string({ description: "HogQL text, stored as a `HogQLQuery` node. Not with `query`." }),
    description: t.string({ description: "Its description." }),
    isActive: t.boolean({ description: "Whether it may be run; true when absent." }),
    cacheAgeSeconds: t.int({ description: "Seconds a cached result stays fresh, 300–86400." }),
    syncFrequency: t.string({
      description: "Materialization interval (`5min` … `30day`, default `24hour`).",
    }),
    isMaterialized: t.boolean({
      description:
        "Materialize the result on a schedule (a materializable HogQL query is materialized unless false).",
    }),
    derivedFromInsight: t.string({ description: "The short id of the insight it was made from." }),
  }),
});

builder.mutationField("createEndpoint", (t) =>
  t.field({
    type: EndpointRef,
    nullable: true,
    description:
      "Creates a saved-query endpoint and its version 1 (REST `POST endpoints/`). Scope `endpoint:write`.",
    extensions: requiresScopes("endpoint:write"),
    args: { input: t.arg({ type: CreateEndpointInput, required: true, description: "The new endpoint." }) },
    errors: result("CreateEndpoint", "created"),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, name, query, hogql, ...fields } = input;
      const body = { name, ...queryOf({ query, hogql }), ...postHogFields(fields, FIELD_NAMES) };
      return ctx.services.endpoints.create(await ctx.serviceContext(), parseProjectId(projectId), body);
    },
  }),
);

const UpdateEndpointInput = builder.inputType("UpdateEndpointInput", {
  description:
    "Changes to an endpoint (REST `PATCH endpoints/:name/`): an absent field keeps its value. A changed query " +
    "makes a new version; description and cacheAgeSeconds apply to every version. With `version`, only that " +
    "version's isActive changes.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
    version: t.int({
      description: "A version number: change only that version's `isActive` (REST `?version=N`).",
    }),
    query: t.field({ type: "JSON", description: "A new query node. Not with `hogql`." }),
    hogql: t.string({ description: "New HogQL text, stored as a `HogQLQuery` node. Not with `query`." }),
    description: t.string({ description: "A new description (every version)." }),
    isActive: t.boolean({
      description: "Activate or deactivate the endpoint (or, with `version`, that version).",
    }),
    cacheAgeSeconds: t.int({
      description: "Seconds a cached result stays fresh, 300–86400 (every version); null clears.",
    }),
    syncFrequency: t.string({
      description: "A new materialization interval (`5min` … `30day`); enables materialization when off.",
    }),
    isMaterialized: t.boolean({
      description: "true materializes the current (or new) version; false stops materializing every version.",
    }),
  }),
});

builder.mutationField("updateEndpoint", (t) =>
  t.field({
    type: EndpointRef,
    nullable: true,
    description: "Changes a saved-query endpoint (REST `PATCH endpoints/:name/`). Scope `endpoint:write`.",
    extensions: requiresScopes("endpoint:write"),
    args: { input: t.arg({ type: UpdateEndpointInput, required: true, description: "The changes." }) },
    errors: result("UpdateEndpoint", "updated"),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, id, version, query, hogql, ...fields } = input;
      const serviceContext = await ctx.serviceContext();
      const project = parseProjectId(projectId);
      const body = { ...queryOf({ query, hogql }), ...postHogFields(fields, FIELD_NAMES) };
      const service = ctx.services.endpoints;
      if (version !== null && version !== undefined) {
        return (await service.setVersionActive(serviceContext, project, mutationId(id), version, body))
          .endpoint;
      }
      return service.update(serviceContext, project, mutationId(id), body);
    },
  }),
);

const DeleteEndpointInput = builder.inputType("DeleteEndpointInput", {
  description: "An endpoint to delete (REST `DELETE endpoints/:name/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
  }),
});

builder.mutationField("deleteEndpoint", (t) =>
  t.field({
    type: EndpointRef,
    nullable: true,
    description:
      "Deletes a saved-query endpoint and its versions; answers it as it was. Scope `endpoint:write`.",
    extensions: requiresScopes("endpoint:write"),
    args: { input: t.arg({ type: DeleteEndpointInput, required: true, description: "Which endpoint." }) },
    errors: result("DeleteEndpoint", "deleted"),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.endpoints.destroy(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationId(input.id),
      ),
  }),
);
