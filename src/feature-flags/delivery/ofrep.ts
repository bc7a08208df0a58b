/**
 * OpenFeature's Remote Evaluation Protocol (OFREP, open-feature/protocol `service/openapi.yaml`) in
 * PostHog's terms: how one flag's evaluation by our engine is written as an OFREP answer, how a
 * failure is, and the bulk answer's ETag. Pure; the routes are ./ofrep.sdk.ts, the request's context
 * is read by ../evaluation.schemas.ts `readOfrepRequest`.
 *
 * A success is `{key, value, reason, variant?, metadata}` (`evaluationSuccess`):
 * - `value`: PostHog's value as is: `true`/`false` for a boolean flag, the variant key (a string) for
 *   a multivariate flag that matched, `false` for one that did not (a client asking for a string then
 *   gets its own default with `TYPE_MISMATCH`, as PostHog's SDKs answer `false`);
 * - `variant`: the variant key of a multivariate value; absent for a boolean value;
 * - `reason`, from PostHog's reason (../engine/types.ts `EvaluationReason`, posthog-behavior.md §3.4):
 *
 *   | PostHog reason            | OFREP reason      | why |
 *   |---------------------------|-------------------|-----|
 *   | `condition_match`         | `TARGETING_MATCH` | the matched condition has property filters (users, cohorts, flags) |
 *   |                           | `SPLIT`           | it has none, and its rollout is under 100% or the variant was hashed |
 *   |                           | `STATIC`          | it has none, at 100%, with a boolean value or the condition's variant override: everyone gets it |
 *   | `super_condition_value`   | `TARGETING_MATCH` | early-access enrolment: a person property decided |
 *   | `holdout_condition_value` | `SPLIT`           | the holdout is a hash of the subject |
 *   | `out_of_rollout_bound`    | `SPLIT`           | a condition matched but the hash fell outside its rollout |
 *   | `no_condition_match`      | `DEFAULT`         | no condition matched: the flag's off value |
 *   | `no_group_type`           | `DEFAULT`         | the subject has none of the flag's groups (or the flag has no conditions) |
 *   | `flag_disabled`           | `DISABLED`        | the flag is inactive: `false` |
 *   | `missing_dependency`      | `ERROR`           | a flag it depends on is missing or cyclic: `false`, as PostHog answers |
 *
 * - `metadata` (OpenFeature's flag metadata: string, number and boolean values only): `flagId`,
 *   `version` (the flag's), `reason` (PostHog's reason code), `conditionIndex` (PostHog's condition
 *   index, when a condition decided) and `payload` (the matched value's payload, `filters.payloads`, as
 *   JSON text, when there is one: PostHog stores payloads as JSON text already, and metadata cannot
 *   hold an object).
 *
 * A failure is `{key, errorCode, errorDetails}` (`evaluationFailure`, `flagNotFound`): a flag whose
 * evaluation could not be computed (the subject's stored data could not be read) is `GENERAL`; an
 * unknown key, on the single-flag path, `FLAG_NOT_FOUND` (404); bad requests `PARSE_ERROR` (a body
 * that is not JSON), `TARGETING_KEY_MISSING` or `INVALID_CONTEXT` (400); a missing or unknown
 * token is a 401 `{errorDetails}` (`generalErrorResponse`), as is any other failure with its status.
 */
import { createHash } from "node:crypto";
import {
  AuthenticationError,
  type DomainError,
  ParseError,
  SERVER_ERROR_DETAIL,
  ValidationError,
} from "../../core/errors.js";
import type { FlagEvaluation } from "../evaluation/engine/types.js";

/** OpenFeature's resolution reasons that OFREP answers carry (OpenFeature spec, "Resolution Details"). */
export type OfrepReason = "TARGETING_MATCH" | "SPLIT" | "STATIC" | "DEFAULT" | "DISABLED" | "ERROR";

/** OFREP's error codes (`evaluationFailure`, `flagNotFound`, `bulkEvaluationFailure`). */
export type OfrepErrorCode =
  | "PARSE_ERROR"
  | "TARGETING_KEY_MISSING"
  | "INVALID_CONTEXT"
  | "FLAG_NOT_FOUND"
  | "GENERAL";

/** OpenFeature flag metadata: string, number or boolean values. */
export type OfrepMetadata = Record<string, string | number | boolean>;

/** One flag's successful OFREP evaluation (`evaluationSuccess`). */
export interface OfrepSuccess {
  key: string;
  value: boolean | string;
  reason: OfrepReason;
  variant?: string;
  metadata: OfrepMetadata;
}

/** One flag's failed OFREP evaluation (`evaluationFailure`). */
export interface OfrepFailure {
  key: string;
  errorCode: OfrepErrorCode;
  errorDetails: string;
}

/** What the mapping reads of a flag: the stored row's fields beside its evaluation. */
export interface OfrepFlag {
  id: number;
  key: string;
  version: number;
  /** The flag's stored `filters` (read tolerantly: anything odd is "no property filters"). */
  filters: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * How the condition that matched decided, for `condition_match` (see the table in the header):
 * targeting when it has property filters, else a split when its rollout is under 100% or the variant
 * was hashed, else static.
 */
function conditionMatchReason(flag: OfrepFlag, evaluation: FlagEvaluation): OfrepReason {
  const filters = isRecord(flag.filters) ? flag.filters : {};
  const groups = Array.isArray(filters["groups"]) ? filters["groups"] : [];
  const condition = evaluation.conditionIndex === null ? undefined : groups[evaluation.conditionIndex];
  if (!isRecord(condition)) return "TARGETING_MATCH";
  if (Array.isArray(condition["properties"]) && condition["properties"].length > 0) return "TARGETING_MATCH";
  const rollout = condition["rollout_percentage"];
  const partial = rollout !== null && rollout !== undefined && Number(rollout) < 100;
  const hashedVariant = evaluation.variant !== null && condition["variant"] !== evaluation.variant;
  return partial || hashedVariant ? "SPLIT" : "STATIC";
}

/** The OFREP reason of one evaluation (the table in the header). */
export function ofrepReason(flag: OfrepFlag, evaluation: FlagEvaluation): OfrepReason {
  switch (evaluation.reason) {
    case "condition_match":
      return conditionMatchReason(flag, evaluation);
    case "super_condition_value":
      return "TARGETING_MATCH";
    case "holdout_condition_value":
    case "out_of_rollout_bound":
      return "SPLIT";
    case "no_condition_match":
    case "no_group_type":
      return "DEFAULT";
    case "flag_disabled":
      return "DISABLED";
    case "missing_dependency":
      return "ERROR";
  }
}

/** A payload as metadata text: stored JSON text as is, anything else serialised. */
function payloadText(payload: unknown): string {
  return typeof payload === "string" ? payload : JSON.stringify(payload);
}

/** One flag's evaluation as an OFREP success (see the module header for each field). */
export function ofrepSuccess(flag: OfrepFlag, evaluation: FlagEvaluation): OfrepSuccess {
  const metadata: OfrepMetadata = { flagId: flag.id, version: flag.version, reason: evaluation.reason };
  if (evaluation.conditionIndex !== null) metadata["conditionIndex"] = evaluation.conditionIndex;
  if (evaluation.payload !== null && evaluation.payload !== undefined) {
    metadata["payload"] = payloadText(evaluation.payload);
  }
  return {
    key: flag.key,
    value: evaluation.value,
    reason: ofrepReason(flag, evaluation),
    ...(evaluation.variant === null ? {} : { variant: evaluation.variant }),
    metadata,
  };
}

/** One flag's outcome: its success, or `GENERAL` when it could not be evaluated. */
export function ofrepResult(flag: OfrepFlag, evaluation: FlagEvaluation | null): OfrepSuccess | OfrepFailure {
  if (evaluation !== null) return ofrepSuccess(flag, evaluation);
  return {
    key: flag.key,
    errorCode: "GENERAL",
    errorDetails: "The flag could not be evaluated: the subject's stored data could not be read",
  };
}

/** The single-flag path's answer for a key the project has no (non-deleted) flag under. */
export function flagNotFound(key: string): OfrepFailure {
  return { key, errorCode: "FLAG_NOT_FOUND", errorDetails: `Flag "${key}" was not found` };
}

/**
 * The weak ETag of a bulk answer: `W/"<22 base64url characters of the SHA-256 of its JSON>"`. It is
 * taken from the evaluated results themselves, so it changes exactly when an answer would: a flag
 * edited, added or removed, or the subject's data (stored properties, cohorts, groups, or the
 * request's context) changing a value, a reason or a payload (open-feature/protocol ADR 0005:
 * the provider polls with `If-None-Match` and keeps its cache on 304).
 */
export function bulkEtag(body: string): string {
  const digest = createHash("sha256").update(body).digest("base64url").slice(0, 22);
  return `W/"${digest}"`;
}

/** An OFREP error answer: its status and body. */
export interface OfrepErrorReply {
  status: number;
  body: { key?: string; errorCode?: OfrepErrorCode; errorDetails: string };
}

/** The request error codes `readOfrepRequest` sets on its `ValidationError`s. */
const CONTEXT_CODES: ReadonlySet<string> = new Set<OfrepErrorCode>([
  "TARGETING_KEY_MISSING",
  "INVALID_CONTEXT",
]);

/**
 * A failure of an OFREP request in OFREP's shapes (`evaluationFailure` with the flag's `key` on the
 * single-flag path, `bulkEvaluationFailure` without on the bulk path, `generalErrorResponse`):
 * - `ParseError` (a body that is not JSON) → 400 `PARSE_ERROR`;
 * - `ValidationError` → 400 with its OFREP code (`TARGETING_KEY_MISSING`), else `INVALID_CONTEXT`;
 * - `AuthenticationError` (no token, an unknown one) → 401 `{errorDetails}`;
 * - any other domain error (413, 405) → its status, `GENERAL`;
 * - an unexpected error (`null`) → 500 `GENERAL`, its cause not shown.
 */
export function ofrepErrorReply(error: DomainError | null, key: string | null): OfrepErrorReply {
  const withKey = (errorCode: OfrepErrorCode, errorDetails: string) =>
    key === null ? { errorCode, errorDetails } : { key, errorCode, errorDetails };
  if (error === null) return { status: 500, body: withKey("GENERAL", SERVER_ERROR_DETAIL) };
  if (error instanceof AuthenticationError) return { status: 401, body: { errorDetails: error.detail } };
  if (error instanceof ParseError) return { status: 400, body: withKey("PARSE_ERROR", error.detail) };
  if (error instanceof ValidationError) {
    const code = CONTEXT_CODES.has(error.code) ? (error.code as OfrepErrorCode) : "INVALID_CONTEXT";
    return { status: 400, body: withKey(code, error.detail) };
  }
  return { status: error.httpStatus, body: withKey("GENERAL", error.detail) };
}
