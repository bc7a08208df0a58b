/**
 * The local-evaluation payload on its three REST paths (posthog-behavior.md §2.10; spec row 16):
 * - `GET /api/projects/:project_id/feature_flags/local_evaluation/` (the project in the path);
 * - `GET /flags/definitions?token=<phc_…>` (what posthog-node 5 polls; PostHog's Rust service
 *   `rust/feature-flags/src/api/flag_definitions.rs`, a token required);
 * - `GET /api/feature_flag/local_evaluation?token=<phc_…>` (older SDKs, posthog-python; PostHog's
 *   legacy path, whose project is the user's current one when no token is given).
 * All three are on the REST door, not the SDK door, although SDKs call two of them: they are
 * authenticated by a personal API key (`Authorization: Bearer phx_…`) with `feature_flag:read` and
 * access to the project, exactly the REST door's rules (key limits, scopes, membership, PostHog's
 * error bodies); the token only names the project (`RestRoute.projectFromToken`).
 *
 * `send_cohorts` present (any value, even empty) sends cohorts; `/flags/definitions` always does, as
 * PostHog's Rust service serves only the with-cohorts payload. Bytes are serialised once per
 * (project, revision, send_cohorts) (delivery/definitions.ts) and served as they are, with a weak
 * `ETag` of their content and `Cache-Control: private, must-revalidate` (what PostHog sends);
 * `If-None-Match` naming it (read as PostHog reads it: `bareTag`) answers 304 with no body. The REST door's own URL-derived ETags are
 * off here (`conditional: false`): the payload's tag is the same for every caller and URL, so an
 * SDK's tag survives a change of key.
 */
import { z } from "zod";
import { andThen } from "../../core/maybe-promise.js";
import type { RestModule, RestReply, RestRoute } from "../../rest/route.js";
import { pathId } from "../../rest/routes.js";
import type { LocalEvaluationBytes } from "../evaluation/project-definitions.js";
import { minimalFlagSchema } from "../feature-flags.responses.js";
import { countFlagRequest } from "./delivery-metrics.js";

/** What PostHog sends with the payload and its 304s (rust/feature-flags flag_definitions.rs). */
const CACHE_CONTROL = "private, must-revalidate";

/** A PostHog property group as sent in `cohorts` (§3.6): `{}` when empty. */
const propertyGroupSchema = z
  .record(z.string(), z.unknown())
  .describe('`{"type": "AND"|"OR", "values": [PropertyFilter or group, ...]}`, or `{}` when empty.');

/** The payload's shape, for the OpenAPI document (the bytes are written by ./local-evaluation.ts). */
const localEvaluationSchema = z
  .object({
    flags: z.array(minimalFlagSchema),
    group_type_mapping: z
      .record(z.string(), z.string())
      .describe('Group type index (as a string) → group type name, e.g. `{"0": "company"}`.'),
    cohorts: z
      .record(z.string(), propertyGroupSchema)
      .describe("With `send_cohorts`: each non-static cohort the flags reach, by id; else `{}`."),
  })
  .meta({ id: "LocalEvaluation" });

const sendCohortsQuery = z
  .string()
  .optional()
  .describe("Present (even empty): send cohorts by id instead of inlining simple ones into flags.");
const tokenQuery = z.string().describe("The project's public API token (`phc_…`): which project.");

/**
 * An entity tag as PostHog's `extract_etag_from_header` reads `If-None-Match` (issue 26 A3): spaces
 * trimmed, a leading `W/` dropped, the quotes stripped. So a bare tag names the same payload as its
 * quoted and weak forms, and neither `*` nor a list of tags matches one.
 */
function bareTag(value: string): string {
  const trimmed = value.trim();
  return (trimmed.startsWith("W/") ? trimmed.slice(2) : trimmed).replace(/^"+|"+$/g, "");
}

/** The 200 or 304 answer of `payload` to a request with `headers`. */
function answer(payload: LocalEvaluationBytes, ifNoneMatch: string | undefined): RestReply {
  countFlagRequest("local");
  const headers = { ETag: payload.etag, "Cache-Control": CACHE_CONTROL };
  if (ifNoneMatch !== undefined && bareTag(ifNoneMatch) === bareTag(payload.etag)) {
    return { status: 304, body: undefined, headers };
  }
  return { body: payload.body, headers };
}

/** The local-evaluation routes. */
export const localEvaluationRoutes: RestModule = (services) => {
  const definitions = services.flagDefinitions;
  const route = (
    path: string,
    summary: string,
    query: z.ZodObject,
    options: Pick<RestRoute, "projectFromToken"> & { alwaysCohorts?: boolean } = {},
  ): RestRoute => {
    const sendCohorts = (query: URLSearchParams) =>
      options.alwaysCohorts === true || query.has("send_cohorts");
    return {
      method: "GET",
      path,
      summary,
      scopes: ["feature_flag:read"],
      rateScope: "local_evaluation",
      request: { query },
      responses: { 200: localEvaluationSchema, 304: null },
      conditional: false,
      tag: "feature_flags",
      ...(options.projectFromToken ? { projectFromToken: options.projectFromToken } : {}),
      // What SDKs poll every 30 s: answered before routing once the key and the payload are held.
      answersFromMemory: true,
      handler: ({ params, query, headers, ctx }) =>
        andThen(
          definitions.localEvaluation(ctx, pathId(params, "project_id"), sendCohorts(query)),
          (payload) => answer(payload, headers["if-none-match"]),
        ),
    };
  };
  return [
    route(
      "/api/projects/:project_id/feature_flags/local_evaluation/",
      "The flag definitions SDKs evaluate locally: flags, group type mapping, cohorts (ETag, 304).",
      z.object({ send_cohorts: sendCohortsQuery }),
    ),
    route(
      "/flags/definitions/",
      "posthog-node's polling path: the definitions with cohorts of the project `token` names (ETag, 304).",
      z.object({ token: tokenQuery, send_cohorts: sendCohortsQuery }),
      { projectFromToken: { whenMissing: "required" }, alwaysCohorts: true },
    ),
    route(
      "/api/feature_flag/local_evaluation/",
      "Older SDKs' path: the definitions of the project `token` names, else the user's current one (ETag, 304).",
      z.object({ token: tokenQuery.optional(), send_cohorts: sendCohortsQuery }),
      { projectFromToken: { whenMissing: "current_project" } },
    ),
  ];
};
