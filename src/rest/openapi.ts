/**
 * The OpenAPI 3.1 document of the REST door, built from the route table alone (no server, no
 * database): one operation per `RestRoute` with its summary, path and query parameters, request body,
 * answers (src/rest/route-responses.ts) and the scopes a personal API key needs. PostHog serves its
 * drf-spectacular document at `/api/schema/`; this one follows its conventions: `{project_id}` path
 * parameters, `Paginated<Item>List` components, and `security: [{PersonalAPIKeyAuth: [scopes]}]`
 * with a bearer scheme (`posthog/api/documentation.py` `PersonalAPIKeyScheme`).
 *
 * OpenAPI 3.1 because its schema dialect is the JSON Schema zod emits (draft 2020-12: `type: [T, "null"]`,
 * `$defs`), so schemas pass through unchanged. Built directly rather than through @fastify/swagger:
 * the route table already holds everything, and fastify must not see the request schemas (the
 * services validate them, with DRF's messages).
 */
import { STATUS_CODES } from "node:http";
import { isDeepStrictEqual } from "node:util";
import type { FastifyInstance } from "fastify";
import type {
  InfoObject,
  OpenAPIObject,
  OperationObject,
  ParameterLocation,
  ParameterObject,
  PathsObject,
  ResponsesObject,
  ServerObject,
} from "openapi3-ts/oas31";
import { z } from "zod";
import { MethodNotAllowedError } from "../core/errors.js";
import { JSON_MEDIA_TYPE } from "../core/media-types.js";
import { type JsonSchema, tidy } from "./json-schema.js";
import type { HttpMethod, RestRoute } from "./route.js";
import { routeResponses } from "./route-responses.js";

/** What the document reads of a route: a REST route, or an SDK path PostHog's API schema documents. */
export type DocumentedRoute = Pick<
  RestRoute,
  "method" | "path" | "summary" | "scopes" | "request" | "responses" | "tag"
>;

/** The media types every write route takes (DRF's default parsers). */
const REQUEST_MEDIA_TYPES = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"];

/** Where the document is served (PostHog's path). */
export const OPENAPI_PATH = "/api/schema/";

/** The security scheme every operation names (PostHog's name). */
const SECURITY_SCHEME = "PersonalAPIKeyAuth";

const COMPONENTS = "#/components/schemas/";

/** A path parameter the route does not describe: an integer id, as `pathId` parses it. */
const INTEGER_ID: JsonSchema = { type: "integer", minimum: 1 };

/** The operationId suffix of each method (drf-spectacular's action names); GET is `list` or `retrieve`. */
const ACTIONS: Record<Exclude<HttpMethod, "GET">, string> = {
  POST: "create",
  PUT: "update",
  PATCH: "partial_update",
  DELETE: "destroy",
};

/** Rewrites zod's local `#/$defs/X` references to the document's `#/components/schemas/X`. */
function pointAtComponents(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pointAtComponents);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === "$ref" && typeof child === "string"
        ? child.replace("#/$defs/", COMPONENTS)
        : pointAtComponents(child),
    ]),
  );
}

/** The named schemas of the document, gathered as routes are converted. */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};

  /**
   * The JSON Schema of `schema`'s `io` side: a schema named with `.meta({id})` (and every named
   * part inside it) becomes a component, referenced with `$ref`.
   * @throws Error when two different schemas carry the same name.
   */
  convert(schema: z.ZodType, io: "input" | "output"): JsonSchema {
    const { $defs, ...top } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" });
    for (const [id, definition] of Object.entries($defs ?? {})) {
      const component = pointAtComponents(tidy(definition)) as JsonSchema;
      const known = this.schemas[id];
      if (known && !isDeepStrictEqual(known, component)) {
        throw new Error(`Two different schemas are named "${id}" in the OpenAPI document.`);
      }
      this.schemas[id] = component;
    }
    return pointAtComponents(tidy(top)) as JsonSchema;
  }
}

/** `/api/projects/:project_id/` → `/api/projects/{project_id}/`. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, "{$1}");
}

/**
 * The path's segments after `/api/` that name the resource: a path nested under one project
 * (`/api/projects/{project_id}/feature_flags/...`) starts at the resource inside it.
 */
function resourceSegments(path: string): string[] {
  const segments = openApiPath(path).split("/").filter(Boolean).slice(1);
  return segments[0] === "projects" && segments[1] === "{project_id}" && segments.length > 2
    ? segments.slice(2)
    : segments;
}

/**
 * The operation's tag, one per resource: `route.tag`, else the first segment of its path after the
 * project prefix of either family (`/api/projects/{project_id}/`, `/api/environments/{project_id}/`).
 */
function tagOf(route: DocumentedRoute): string {
  if (route.tag) return route.tag;
  const segments = openApiPath(route.path).split("/").filter(Boolean).slice(1);
  const scoped =
    (segments[0] === "projects" || segments[0] === "environments") &&
    segments[1] === "{project_id}" &&
    segments.length > 2;
  return (scoped ? segments[2] : segments[0]) ?? "api";
}

/**
 * A route's summary as OpenAPI wants it: `summary`, its first sentence (up to the first `.`, `;` or
 * `:` followed by a space, without it), and `description`, the whole text and the scopes it needs.
 */
function summaryAndDescription(route: DocumentedRoute): { summary: string; description: string } {
  const text = route.summary.trim();
  const first = /^(.+?)[.;:](?:\s|$)/.exec(text)?.[1] ?? text;
  const scopes = route.scopes.length
    ? ` Needs a personal API key with ${route.scopes.map((scope) => `\`${scope}\``).join(" and ")}.`
    : "";
  return { summary: first, description: `${text}${/[.!?]$/.test(text) ? "" : "."}${scopes}` };
}

/** drf-spectacular's style: `feature_flags_list`, `feature_flags_partial_update`, `users_me_retrieve`. */
function operationId(route: DocumentedRoute): string {
  const segments = resourceSegments(route.path);
  const names = segments.filter((s) => !s.startsWith("{")).map((s) => s.replace(/\W/g, ""));
  const endsInParameter = segments.at(-1)?.startsWith("{") ?? false;
  const action =
    route.method === "GET"
      ? route.request?.query && !endsInParameter
        ? "list"
        : "retrieve"
      : ACTIONS[route.method];
  return [...names, action].join("_");
}

/** One parameter per property of an object schema; a property's description becomes the parameter's. */
function parameters(
  location: ParameterLocation,
  schema: z.ZodObject | undefined,
  components: Components,
): Map<string, ParameterObject> {
  const result = new Map<string, ParameterObject>();
  if (!schema) return result;
  const converted = components.convert(schema, "input");
  const required = new Set((converted["required"] as string[] | undefined) ?? []);
  for (const [name, property] of Object.entries(
    (converted["properties"] ?? {}) as Record<string, JsonSchema>,
  )) {
    const { description, ...propertySchema } = property;
    result.set(name, {
      name,
      in: location,
      required: location === "path" || required.has(name),
      ...(typeof description === "string" ? { description } : {}),
      schema: propertySchema,
    });
  }
  return result;
}

function operation(route: DocumentedRoute, components: Components): OperationObject {
  const described = parameters("path", route.request?.params, components);
  const pathParameters = [...openApiPath(route.path).matchAll(/\{(\w+)\}/g)].map(
    ([, name]) =>
      described.get(name!) ?? { name: name!, in: "path" as const, required: true, schema: INTEGER_ID },
  );
  const queryParameters = [...parameters("query", route.request?.query, components).values()];
  const responses: ResponsesObject = {};
  for (const [status, body] of routeResponses(route)) {
    responses[String(status)] = {
      description: STATUS_CODES[status] ?? String(status),
      ...(body === null
        ? {}
        : { content: { "application/json": { schema: components.convert(body, "output") } } }),
    };
  }
  const body = route.request?.body;
  return {
    operationId: operationId(route),
    ...summaryAndDescription(route),
    tags: [tagOf(route)],
    ...(pathParameters.length + queryParameters.length > 0
      ? { parameters: [...pathParameters, ...queryParameters] }
      : {}),
    ...(body
      ? {
          requestBody: {
            // DRF's partial update takes an empty body as "no change".
            required: route.method !== "PATCH",
            // DRF's default parsers: JSON, and forms whose values are typed by the same schema
            // (rest/body-parsers.ts, core/form-body.ts).
            content: Object.fromEntries(
              REQUEST_MEDIA_TYPES.map((type) => [type, { schema: components.convert(body, "input") }]),
            ),
          },
        }
      : {}),
    responses,
    security: [{ [SECURITY_SCHEME]: [...route.scopes] }],
  };
}

/**
 * The OpenAPI 3.1 document of `routes`, served from `servers` (none: the document's host), its tags
 * one per resource in name order. Operation ids repeated by two routes get drf-spectacular's
 * `_2` suffix, in route-table order, so the document is the same for the same table.
 * @throws Error when two different schemas carry the same name.
 */
export function buildOpenApiDocument(
  routes: readonly DocumentedRoute[],
  info: InfoObject,
  servers: ServerObject[] = [],
): OpenAPIObject {
  const components = new Components();
  const paths: PathsObject = {};
  const seenIds = new Map<string, number>();
  for (const route of routes) {
    const op = operation(route, components);
    const repeats = (seenIds.get(op.operationId!) ?? 0) + 1;
    seenIds.set(op.operationId!, repeats);
    if (repeats > 1) op.operationId = `${op.operationId}_${repeats}`;
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: op };
  }
  const schemas = Object.fromEntries(
    Object.entries(components.schemas).sort(([a], [b]) => a.localeCompare(b)),
  );
  return {
    openapi: "3.1.0",
    info,
    ...(servers.length > 0 ? { servers } : {}),
    tags: [...new Set(routes.map(tagOf))].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description:
            "A personal API key (`phx_…`) as `Authorization: Bearer <key>`; PostHog also takes it as `personal_api_key` in the query or JSON body. An operation lists the scopes the key needs.",
        },
      },
    },
  };
}

/** The document as the checked-in `schema/openapi.json` holds it: indented JSON with a final newline. */
export function printOpenApiDocument(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * Serves `document` at `GET /api/schema/` as JSON, to anyone: PostHog's schema view asks for no
 * authentication (drf-spectacular's default `AllowAny`), and the document holds only the route
 * table, no project's data. Other methods answer 405.
 */
export function registerOpenApiRoute(app: FastifyInstance, document: OpenAPIObject): void {
  const text = JSON.stringify(document);
  app.route({
    method: "GET",
    url: OPENAPI_PATH,
    handler: async (_request, reply) => reply.type(JSON_MEDIA_TYPE).send(text),
  });
  app.route({
    method: ["POST", "PUT", "PATCH", "DELETE"],
    url: OPENAPI_PATH,
    handler: async (request) => {
      throw new MethodNotAllowedError(request.method);
    },
  });
}
