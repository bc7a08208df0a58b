/**
 * The answers of the local-evaluation paths, whichever door serves them (the project's path on the
 * REST door: ./local-evaluation.rest.ts; the token-named paths SDKs poll on the SDK door:
 * ./local-evaluation.sdk.ts; their event streams): the payload's bytes, serialised once per
 * (project, revision, send_cohorts) (./definitions.ts) and served as they are, with a weak `ETag` of
 * their content and `Cache-Control: private, must-revalidate` (what PostHog sends:
 * rust/feature-flags/src/api/flag_definitions.rs); `If-None-Match` naming it (read as PostHog reads
 * it: `bareTag`) answers 304 with no body. The tag is the same for every caller and URL, so an
 * SDK's tag survives a change of key. posthog-behavior.md §2.10; spec row 16.
 */
import { z } from "zod";
import { JSON_MEDIA_TYPE } from "../../core/media-types.js";
import type { LocalEvaluationBytes } from "../evaluation/project-definitions.js";
import { minimalFlagSchema } from "../feature-flags.responses.js";
import type { DefinitionsAtRevision } from "./definitions.js";
import { countFlagRequest } from "./delivery-metrics.js";

/** What PostHog sends with the payload and its 304s (rust/feature-flags flag_definitions.rs). */
const CACHE_CONTROL = "private, must-revalidate";

/** A PostHog property group as sent in `cohorts` (§3.6): `{}` when empty. */
const propertyGroupSchema = z
  .record(z.string(), z.unknown())
  .describe('`{"type": "AND"|"OR", "values": [PropertyFilter or group, ...]}`, or `{}` when empty.');

/** The payload's shape, for the OpenAPI document (the bytes are written by ./local-evaluation.ts). */
export const localEvaluationSchema = z
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

/** The `send_cohorts` query parameter, for the OpenAPI document. */
export const sendCohortsQuery = z
  .string()
  .optional()
  .describe("Present (even empty): send cohorts by id instead of inlining simple ones into flags.");

/** The `token` query parameter of the token-named paths, for the OpenAPI document. */
export const tokenQuery = z.string().describe("The project's public API token (`phc_…`): which project.");

/**
 * Whether a request sends cohorts: `send_cohorts` present (any value, even empty), or always on
 * `/flags/definitions`, as PostHog's Rust service serves only the with-cohorts payload.
 */
export function sendsCohorts(query: URLSearchParams, always: boolean): boolean {
  return always || query.has("send_cohorts");
}

/**
 * An entity tag as PostHog's `extract_etag_from_header` reads `If-None-Match` (issue 26 A3): spaces
 * trimmed, a leading `W/` dropped, the quotes stripped. So a bare tag names the same payload as its
 * quoted and weak forms, and neither `*` nor a list of tags matches one.
 */
function bareTag(value: string): string {
  const trimmed = value.trim();
  return (trimmed.startsWith("W/") ? trimmed.slice(2) : trimmed).replace(/^"+|"+$/g, "");
}

/** A poll's answer: 200 with the payload's bytes, or 304 without a body; its headers. */
export interface LocalEvaluationAnswer {
  status?: number;
  body: Buffer | undefined;
  /** The body's media type (none on a 304). */
  contentType?: string;
  headers: Record<string, string>;
}

/** The 200 or 304 answer of `payload` to a request whose `If-None-Match` is `ifNoneMatch`. */
export function localEvaluationAnswer(
  payload: LocalEvaluationBytes,
  ifNoneMatch: string | string[] | undefined,
): LocalEvaluationAnswer {
  countFlagRequest("local");
  const headers = { ETag: payload.etag, "Cache-Control": CACHE_CONTROL };
  // The tag as sent (what SDKs send back) is the common case, compared before it is read as PostHog reads it.
  if (
    typeof ifNoneMatch === "string" &&
    (ifNoneMatch === payload.etag || bareTag(ifNoneMatch) === bareTag(payload.etag))
  ) {
    return { status: 304, body: undefined, headers };
  }
  return { body: payload.body, contentType: JSON_MEDIA_TYPE, headers };
}

/** A `Last-Event-ID` as a revision: a non-negative integer, else null (then everything is sent). */
export function revisionOf(lastEventId: string | string[] | undefined): bigint | null {
  return typeof lastEventId === "string" && /^\d{1,19}$/.test(lastEventId.trim())
    ? BigInt(lastEventId.trim())
    : null;
}

/**
 * The definitions stream's events: each payload as it comes, its `id` the project's revision and its
 * data the bytes the polling path serves at that revision.
 */
export async function* definitionEvents(
  payloads: AsyncIterable<DefinitionsAtRevision>,
): AsyncIterable<{ id: string; data: Buffer }> {
  for await (const { revision, payload } of payloads) yield { id: String(revision), data: payload.body };
}
