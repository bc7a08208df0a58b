/**
 * The flag definitions server SDKs poll for local evaluation, on the SDK door with a personal API
 * key (`Authorization: Bearer phx_…` with `feature_flag:read` and access to the project; the
 * query's `token` only names the project: sdk/personal-key.ts), posthog-behavior.md §2.10:
 * - `GET /flags/definitions?token=<phc_…>`: what posthog-node 5 polls (PostHog's Rust service,
 *   rust/feature-flags/src/api/flag_definitions.rs): a token required, cohorts always sent;
 * - `GET /api/feature_flag/local_evaluation?token=<phc_…>[&send_cohorts]`: older SDKs and
 *   posthog-python (PostHog's legacy Django path): without a token, the user's current project.
 * Both are answered from memory before routing once the key and the payload are held
 * (sdk/known-answers.ts), with the bytes and tags of ./local-evaluation.answers.ts.
 *
 * Their event streams, for server SDKs that would rather be told than poll (issue 12 item 3):
 * `/flags/definitions/stream` and `/api/feature_flag/local_evaluation/stream`, the same key and
 * token; each event's `id` is the project's revision and its data the payload's bytes at that
 * revision: the current payload on connect, then each newer one. `Last-Event-ID` resumes: the
 * current payload at once if the revision moved past it, nothing if it did not.
 */
import { z } from "zod";
import { andThen } from "../../core/maybe-promise.js";
import type { PersonalKeyAccess, SdkModule, SdkRoute } from "../../sdk/route.js";
import {
  definitionEvents,
  localEvaluationAnswer,
  localEvaluationSchema,
  revisionOf,
  sendCohortsQuery,
  sendsCohorts,
  tokenQuery,
} from "./local-evaluation.answers.js";

/** A GET carries no body worth more than its credential (`personal_api_key`). */
const BODY_LIMIT_BYTES = 64 * 1024;

/** The scope every definitions path needs. */
const SCOPES = ["feature_flag:read"] as const;

/** The definitions routes of the SDK door. */
export const localEvaluationSdkRoutes: SdkModule = (services) => {
  const definitions = services.flagDefinitions;
  /** The polling path and its stream for one path prefix. */
  const paths = (
    path: string,
    summaries: { poll: string; stream: string },
    options: { whenNoToken: PersonalKeyAccess["whenNoToken"]; alwaysCohorts: boolean },
  ): SdkRoute[] => {
    const personalKey: PersonalKeyAccess = { scopes: SCOPES, whenNoToken: options.whenNoToken };
    const token = options.whenNoToken === "required" ? tokenQuery : tokenQuery.optional();
    return [
      {
        methods: ["GET"],
        path: `${path}/`,
        summary: summaries.poll,
        bodyLimitBytes: BODY_LIMIT_BYTES,
        personalKey,
        rateScope: "local_evaluation",
        answersFromMemory: true,
        documented: {
          query: z.object({ token, send_cohorts: sendCohortsQuery }),
          responses: { 200: localEvaluationSchema, 304: null },
          tag: "feature_flags",
        },
        handler: ({ ctx, projectId, query, headers }) =>
          andThen(
            definitions.localEvaluation(ctx!, projectId, sendsCohorts(query, options.alwaysCohorts)),
            (bytes) => localEvaluationAnswer(bytes, headers["if-none-match"]),
          ),
      },
      {
        methods: ["GET"],
        path: `${path}/stream`,
        summary: summaries.stream,
        bodyLimitBytes: BODY_LIMIT_BYTES,
        personalKey,
        eventStream: true,
        handler: async ({ ctx, projectId, query, headers, signal }) => ({
          body: undefined,
          events: definitionEvents(
            await definitions.stream(ctx!, projectId, {
              sendCohorts: sendsCohorts(query, options.alwaysCohorts),
              since: revisionOf(headers["last-event-id"]),
              signal: signal!,
            }),
          ),
        }),
      },
    ];
  };
  return [
    ...paths(
      "/flags/definitions",
      {
        poll: "posthog-node's polling path: the definitions with cohorts of the project `token` names (ETag, 304).",
        stream:
          "posthog-node's definitions with cohorts as an event stream: the payload now, then at each new revision.",
      },
      { whenNoToken: "required", alwaysCohorts: true },
    ),
    ...paths(
      "/api/feature_flag/local_evaluation",
      {
        poll: "Older SDKs' path: the definitions of the project `token` names, else the user's current one (ETag, 304).",
        stream:
          "The local-evaluation payload of the project `token` names (else the user's current one) as an event stream.",
      },
      { whenNoToken: "current_project", alwaysCohorts: false },
    ),
  ];
};
