/**
 * The local-evaluation payload as a Server-Sent Events stream on the REST door, for server SDKs that
 * would rather be told than poll (issue 12 item 3):
 * `GET /api/projects/:project_id/feature_flags/local_evaluation/stream[?send_cohorts]`, authenticated
 * as the polling path (a personal API key with `feature_flag:read` on the project). The token-named
 * streams are the SDK door's (./local-evaluation.sdk.ts). Each event's `id` is the project's revision
 * and its data the payload's bytes, exactly what the polling path serves at that revision
 * (serialised once per revision for every caller): the current payload on connect, then each newer
 * one. `Last-Event-ID` (an `EventSource` sends it when it reconnects) resumes: the current payload at
 * once if the revision moved past it, nothing if it did not. Heartbeats: core/event-stream.ts.
 */
import type { EventStreamModule } from "../../rest/event-streams.js";
import { pathId } from "../../rest/routes.js";
import { definitionEvents, revisionOf, sendsCohorts } from "./local-evaluation.answers.js";

/** The definitions stream route of the REST door. */
export const localEvaluationStreamRoutes: EventStreamModule = (services) => [
  {
    path: "/api/projects/:project_id/feature_flags/local_evaluation/stream",
    summary:
      "The project's local-evaluation payload as an event stream: the payload now, then at each new revision.",
    scopes: ["feature_flag:read"],
    open: async ({ params, query, lastEventId, signal, ctx }) =>
      definitionEvents(
        await services.flagDefinitions.stream(ctx, pathId(params, "project_id"), {
          sendCohorts: sendsCohorts(query, false),
          since: revisionOf(lastEventId),
          signal,
        }),
      ),
  },
];
