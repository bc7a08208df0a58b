/**
 * The local-evaluation payload on the REST door: `GET /api/projects/:project_id/feature_flags/local_evaluation/`
 * (posthog-behavior.md §2.10; spec row 16), authenticated by a personal API key with
 * `feature_flag:read` on the project. Its answers (ETag, 304) are the same bytes and tags as the
 * token-named paths SDKs poll on the SDK door (./local-evaluation.answers.ts,
 * ./local-evaluation.sdk.ts). The door's URL-derived ETags are off here (`conditional: false`): the
 * payload's tag is the same for every caller and URL.
 */
import { z } from "zod";
import type { RestModule } from "../../rest/route.js";
import { pathId } from "../../rest/routes.js";
import {
  localEvaluationAnswer,
  localEvaluationSchema,
  sendCohortsQuery,
  sendsCohorts,
} from "./local-evaluation.answers.js";

/** The local-evaluation route of the REST door. */
export const localEvaluationRoutes: RestModule = (services) => [
  {
    method: "GET",
    path: "/api/projects/:project_id/feature_flags/local_evaluation/",
    summary: "The flag definitions SDKs evaluate locally: flags, group type mapping, cohorts (ETag, 304).",
    scopes: ["feature_flag:read"],
    rateScope: "local_evaluation",
    request: { query: z.object({ send_cohorts: sendCohortsQuery }) },
    responses: { 200: localEvaluationSchema, 304: null },
    conditional: false,
    tag: "feature_flags",
    handler: async ({ params, query, headers, ctx }) =>
      localEvaluationAnswer(
        await services.flagDefinitions.localEvaluation(
          ctx,
          pathId(params, "project_id"),
          sendsCohorts(query, false),
        ),
        headers["if-none-match"],
      ),
  },
];
