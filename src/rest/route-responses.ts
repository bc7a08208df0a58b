/**
 * Every answer a REST route gives, by status: the ones it declares, and the errors the door gives
 * every route of its kind. One list for both readers: fastify writes each body with its schema
 * (src/rest/routes.ts) and the OpenAPI document lists them (src/rest/openapi.ts).
 */
import type { z } from "zod";
import { errorBodySchema } from "../core/error-body.js";
import { type JsonSchema, serializerSchema } from "./json-schema.js";
import type { RestRoute } from "./route.js";

/** A response body's schema, or null for an answer without a body. */
export type ResponseBody = z.ZodType | null;

/** Whether the route's path has parameters (`:project_id`, `:id`, ...). */
function hasPathParameters(route: Pick<RestRoute, "path">): boolean {
  return route.path.includes(":");
}

/**
 * The route's answers, ascending by status. PostHog's error body is added where the door gives it:
 * 401 on every route (each authenticates); 403 where scopes are needed or a path names a project or
 * organization (a key limited to others is refused); 404 where the path has parameters; 400 where a
 * body or query is read; 413 and 415 where a body is read. A status the route declares wins.
 */
export function routeResponses(
  route: Pick<RestRoute, "path" | "request" | "scopes" | "responses">,
): Array<[status: number, body: ResponseBody]> {
  const answers = new Map<number, ResponseBody>();
  const implied = (status: number, applies: boolean) => {
    if (applies) answers.set(status, errorBodySchema);
  };
  const body = route.request?.body !== undefined;
  implied(400, body || route.request?.query !== undefined);
  implied(401, true);
  implied(403, route.scopes.length > 0 || hasPathParameters(route));
  implied(404, hasPathParameters(route));
  implied(413, body);
  implied(415, body);
  for (const [status, schema] of Object.entries(route.responses)) {
    if (schema !== undefined) answers.set(Number(status), schema);
  }
  return [...answers].sort(([a], [b]) => a - b);
}

/** Each zod schema's serialiser schema, converted once for every route and status that answers with it. */
const converted = new WeakMap<z.ZodType, JsonSchema>();

/** fastify's `response` schemas of a route: one per status with a body. */
export function responseSchemas(route: RestRoute): Record<number, JsonSchema> {
  const schemas: Record<number, JsonSchema> = {};
  for (const [status, body] of routeResponses(route)) {
    if (body === null) continue;
    const schema = converted.get(body) ?? serializerSchema(body);
    converted.set(body, schema);
    schemas[status] = schema;
  }
  return schemas;
}
