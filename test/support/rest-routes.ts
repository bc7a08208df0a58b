/**
 * The REST routes as the route tables declare them (src/composition.ts `REST_MODULES`), for tests
 * that walk every route instead of a hand list, and their paths filled from fixtures.
 */
import { createServices, REST_MODULES } from "../../src/composition.js";
import { loadConfig } from "../../src/config.js";
import type { RestRoute } from "../../src/rest/route.js";
import type { PersonalKeyAccess } from "../../src/sdk/route.js";
import { SDK_ROUTES } from "./sdk-routes.js";

/** Every route of every REST module, in registration order. */
export const ROUTES: readonly RestRoute[] = REST_MODULES.flatMap((module) =>
  module(createServices(), loadConfig({}).limits),
);

/**
 * A route a personal API key is checked on, as the route-walking tests read it: a REST route, or an
 * SDK path that takes a key (`projectFromToken`: the query's `token` names its project, and what a
 * request without one gets).
 */
export type KeyRoute = Pick<
  RestRoute,
  "method" | "path" | "scopes" | "responses" | "request" | "emptyBodyOn" | "errorBody"
> & { projectFromToken?: PersonalKeyAccess["whenNoToken"] };

/** The SDK door's personal-key paths that answer one body (the definitions polls; not their streams). */
export const SDK_KEY_ROUTES: readonly KeyRoute[] = SDK_ROUTES.flatMap((route) =>
  route.personalKey && !route.eventStream
    ? [
        {
          method: "GET" as const,
          path: route.path,
          scopes: route.personalKey.scopes,
          responses: route.documented?.responses ?? {},
          projectFromToken: route.personalKey.whenNoToken,
        },
      ]
    : [],
);

/** Every route a personal API key is checked on: the REST door's, then the SDK door's (`SDK_KEY_ROUTES`). */
export const KEY_ROUTES: readonly KeyRoute[] = [...ROUTES, ...SDK_KEY_ROUTES];

/** The names of a path's parameters (`project_id`, `id`, ...). */
export function params(path: string): Set<string> {
  return new Set([...path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!));
}

/** The collection an `:id` parameter indexes (the path segment before it), e.g. `feature_flags`. */
export function collectionOf(path: string): string {
  const segments = path.split("/");
  return segments[segments.indexOf(":id") - 1] ?? "";
}

/** Path parameter values of one request. */
export interface PathValues {
  project_id: number;
  organization_id: string;
  /** `:id` values by collection (`feature_flags`: a flag id; `event_definitions`: a UUID). */
  ids: Record<string, number | string>;
  /** `:name` (saved-query endpoints are addressed by name): an endpoint's name. */
  name?: string;
  /** `:version_number` of an endpoint version. */
  version_number?: number;
}

/**
 * `path` with its parameters filled.
 * @throws Error for a parameter no fixture fills: add one, so the route-walking tests cover the new route.
 */
export function fillPath(path: string, values: PathValues): string {
  return path.replace(/:([a-z_]+)/g, (_, name: string) => {
    const value =
      name === "id" ? values.ids[collectionOf(path)] : (values as unknown as Record<string, unknown>)[name];
    if (value === undefined) {
      throw new Error(`no fixture for :${name} of ${path}: add one to test/support/rest-routes.ts's callers`);
    }
    return String(value);
  });
}

/** Whether requests of `method` carry a body. */
export const hasBody = (method: string) => method === "POST" || method === "PUT" || method === "PATCH";
