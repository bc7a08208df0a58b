/**
 * Which two distinct ids an `$identify`, `$create_alias` or `$merge_dangerously` event asks to tie
 * together, and whether the persons behind them may be merged. PostHog's rules, from
 * `nodejs/src/worker/ingestion/persons/person-merge-service.ts` (`handleIdentifyOrAlias`, `merge`,
 * `isDistinctIdIllegal`, `isMergeAllowed`) in PostHog/posthog.
 */
import type { IngestEvent } from "../ingest-event.js";

/** Ids refused whatever their case (also single- or double-quoted), as PostHog's merge service lists them. */
const BARE_CASE_INSENSITIVE_ILLEGAL_IDS = [
  "anonymous",
  "guest",
  "distinctid",
  "distinct_id",
  "id",
  "not_authenticated",
  "email",
  "undefined",
  "true",
  "false",
];

/** Ids refused only in this exact case (`NaN` is refused, `nan` is not). */
const BARE_CASE_SENSITIVE_ILLEGAL_IDS = ["[object Object]", "NaN", "None", "none", "null", "0", "undefined"];

function withQuotedForms(ids: readonly string[]): Set<string> {
  return new Set(ids.flatMap((id) => [id, `'${id}'`, `"${id}"`]));
}

const CASE_INSENSITIVE_ILLEGAL_IDS = withQuotedForms(BARE_CASE_INSENSITIVE_ILLEGAL_IDS);
const CASE_SENSITIVE_ILLEGAL_IDS = withQuotedForms(BARE_CASE_SENSITIVE_ILLEGAL_IDS);

/** Longest distinct id the `person_distinct_ids` table holds (`VARCHAR(400)`, as PostHog's column). */
export const MAX_DISTINCT_ID_LENGTH = 400;

/**
 * True when `id` may not take part in a merge: blank, one of PostHog's generic ids that stem from a
 * client bug (`anonymous`, `null`, `0`, `undefined`, ..., also quoted), or longer than the column holds
 * (our addition: PostHog's insert would fail on it).
 */
export function isDistinctIdIllegal(id: string): boolean {
  return (
    id.trim() === "" ||
    id.length > MAX_DISTINCT_ID_LENGTH ||
    CASE_INSENSITIVE_ILLEGAL_IDS.has(id.toLowerCase()) ||
    CASE_SENSITIVE_ILLEGAL_IDS.has(id)
  );
}

/** Two distinct ids to tie to one person: `otherDistinctId`'s person merges into `mergeIntoDistinctId`'s. */
export interface MergeRequest {
  /** The anonymous id (`$anon_distinct_id`) or the alias (`alias`): its person is the one that goes. */
  otherDistinctId: string;
  /** The event's own `distinct_id`: its person survives and its properties win on conflicts. */
  mergeIntoDistinctId: string;
}

/**
 * The merge an event asks for, or null when it asks none: `$create_alias` and `$merge_dangerously`
 * with a truthy `alias` property, `$identify` with a `$anon_distinct_id` property (values are
 * stringified as PostHog does, so `null` becomes the illegal id `"null"`). Also null, as in
 * PostHog's `merge`, when both ids are equal (posthog-node aliases a user to itself) or either is
 * illegal; such an event then updates its own person without marking it identified.
 */
export function mergeRequest(event: IngestEvent): MergeRequest | null {
  const props = event.properties;
  let other: string;
  if ((event.event === "$create_alias" || event.event === "$merge_dangerously") && props["alias"]) {
    other = String(props["alias"]);
  } else if (event.event === "$identify" && "$anon_distinct_id" in props) {
    other = String(props["$anon_distinct_id"]);
  } else {
    return null;
  }
  const into = event.distinctId;
  if (into === other || isDistinctIdIllegal(into) || isDistinctIdIllegal(other)) return null;
  return { otherDistinctId: other, mergeIntoDistinctId: into };
}

/**
 * Whether the person of the other id may be merged away: always for `$merge_dangerously`; for
 * `$identify` and `$create_alias` only when that person is not identified yet (PostHog refuses, with
 * the ingestion warning `cannot_merge_already_identified`, and keeps both persons).
 */
export function isMergeAllowed(eventName: string, otherPersonIsIdentified: boolean): boolean {
  return eventName === "$merge_dangerously" || !otherPersonIsIdentified;
}
