/**
 * The local-evaluation payload as a Server-Sent Events stream, for server SDKs that would rather be
 * told than poll (issue 12 item 3), beside the polling paths (./local-evaluation.rest.ts, unchanged):
 * - `GET /flags/definitions/stream?token=<phc_…>` (cohorts always sent, as `/flags/definitions`);
 * - `GET /api/feature_flag/local_evaluation/stream?token=<phc_…>[&send_cohorts]`;
 * - `GET /api/projects/:project_id/feature_flags/local_evaluation/stream[?send_cohorts]`.
 * Same authentication as the polling paths (a personal API key with `feature_flag:read` on the
 * project; the token names the project). Each event's `id` is the project's revision and its data
 * the payload's bytes, exactly what the polling path serves at that revision (serialised once per
 * revision for every caller): the current payload on connect, then each newer one. `Last-Event-ID`
 * (an `EventSource` sends it when it reconnects) resumes: the current payload at once if the
 * revision moved past it, nothing if it did not. Heartbeats: rest/event-streams.ts.
 */
import type { EventStreamModule, EventStreamRoute } from "../../rest/event-streams.js";
import type { ProjectFromToken } from "../../rest/route.js";
import { pathId } from "../../rest/routes.js";

/** A `Last-Event-ID` as a revision: a non-negative integer, else null (then everything is sent). */
function revisionOf(lastEventId: string | undefined): bigint | null {
  return lastEventId !== undefined && /^\d{1,19}$/.test(lastEventId.trim())
    ? BigInt(lastEventId.trim())
    : null;
}

/** The definitions stream routes. */
export const localEvaluationStreamRoutes: EventStreamModule = (services) => {
  const route = (
    path: string,
    summary: string,
    options: { projectFromToken?: ProjectFromToken; alwaysCohorts?: boolean } = {},
  ): EventStreamRoute => ({
    path,
    summary,
    scopes: ["feature_flag:read"],
    ...(options.projectFromToken ? { projectFromToken: options.projectFromToken } : {}),
    open: async ({ params, query, lastEventId, signal, ctx }) => {
      const payloads = await services.flagDefinitions.stream(ctx, pathId(params, "project_id"), {
        sendCohorts: options.alwaysCohorts === true || query.has("send_cohorts"),
        since: revisionOf(lastEventId),
        signal,
      });
      return (async function* () {
        for await (const { revision, payload } of payloads)
          yield { id: String(revision), data: payload.body };
      })();
    },
  });
  return [
    route(
      "/flags/definitions/stream",
      "posthog-node's definitions with cohorts as an event stream: the payload now, then at each new revision.",
      { projectFromToken: { whenMissing: "required" }, alwaysCohorts: true },
    ),
    route(
      "/api/feature_flag/local_evaluation/stream",
      "The local-evaluation payload of the project `token` names (else the user's current one) as an event stream.",
      { projectFromToken: { whenMissing: "current_project" } },
    ),
    route(
      "/api/projects/:project_id/feature_flags/local_evaluation/stream",
      "The project's local-evaluation payload as an event stream: the payload now, then at each new revision.",
    ),
  ];
};
