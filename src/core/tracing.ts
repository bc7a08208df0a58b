/**
 * The marks the service makes on a request's trace where it learns what the HTTP layer cannot see:
 * the project the request names (core/auth/access.ts, as it authorizes it), the route template of
 * a request answered before fastify's routing (sdk/known-answers.ts), and the GraphQL door's
 * tracing plugins (graphql/server.ts).
 *
 * Each is a no-op until traces start (src/observability/tracing-sdk.ts installs the real marks), so
 * this module loads nothing of OpenTelemetry and, with tracing off, a mark costs one null check.
 */
import type { YogaServerOptions } from "graphql-yoga";

/** A plugin a yoga server takes (an envelop plugin, whatever its context: yoga accepts any). */
export type GraphQLPlugin = NonNullable<YogaServerOptions<object, object>["plugins"]>[number];

/** What tracing does at each mark (installed by src/observability/tracing-sdk.ts). */
export interface RequestTracing {
  /**
   * Records project `projectId` on the request's server span as `signalbox.project_id` (on the
   * active span when there is no HTTP request, a GraphQL WebSocket operation); the first project a
   * request names is kept.
   */
  projectNamed(projectId: number): void;
  /** Names the request's server span by `template`, its route (`/api/projects/:project_id/...`). */
  routeMatched(template: string): void;
  /** The envelop plugins that give each GraphQL operation a span (one set per yoga server). */
  graphqlPlugins(): GraphQLPlugin[];
}

let installed: RequestTracing | null = null;

/** Installs `tracing`'s marks (null: back to the no-ops); called once traces start. */
export function installRequestTracing(tracing: RequestTracing | null): void {
  installed = tracing;
}

/** Marks the current request as acting on project `projectId` (see `RequestTracing.projectNamed`). */
export function traceProject(projectId: number): void {
  installed?.projectNamed(projectId);
}

/** Marks the current request's route template (see `RequestTracing.routeMatched`). */
export function traceRoute(template: string): void {
  installed?.routeMatched(template);
}

/** The GraphQL tracing plugins for a new yoga server: none while tracing is off. */
export function tracingGraphQLPlugins(): GraphQLPlugin[] {
  return installed ? installed.graphqlPlugins() : [];
}
