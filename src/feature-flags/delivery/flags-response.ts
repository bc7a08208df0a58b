/**
 * The answers of `/flags` and `/decide` in each shape PostHog's flags service sends
 * (rust/feature-flags/src/api/types.rs, endpoint.rs `get_versioned_response`), from one evaluation:
 * - `flags-v2` (`/flags?v=2` and up, `/decide?v=4` and up): `flags` keyed by flag key, each
 *   `{key, enabled, variant, reason: {code, condition_index, description}, metadata: {id, version,
 *   description, payload, has_experiment}}` (plus `failed: true` for a flag that could not be computed);
 * - `flags-v1` (`/flags` v1 or no `v` with `config` given, `/decide?v=3`): `featureFlags` (key → value)
 *   and `featureFlagPayloads` (key → payload, only flags with one);
 * - `decide-v2` (`/decide?v=2`): `featureFlags` of the enabled flags only, key → value;
 * - `decide-v1` (`/decide` v1 or none): `featureFlags`, the keys of the enabled flags.
 * Every shape has `requestId` and `evaluatedAt` (ms since the epoch); the flags shapes also
 * `errorsWhileComputingFlags`; config fields (`config=true`) are merged at the top level. Pure.
 */
import type { EvaluationReason, FlagEvaluation } from "../evaluation/engine/types.js";
import type { FlagResult } from "../evaluation/evaluation.service.js";
import type { DefinitionFlag } from "../evaluation/project-definitions.js";

/** The four shapes (see the module comment). */
export type FlagsResponseShape = "flags-v2" | "flags-v1" | "decide-v2" | "decide-v1";

/** A flag in the `flags-v2` shape. */
export interface FlagDetails {
  key: string;
  enabled: boolean;
  variant: string | null;
  failed?: true;
  reason: { code: string; condition_index: number | null; description: string };
  metadata: {
    id: number;
    version: number;
    description: null;
    payload: unknown;
    has_experiment: boolean;
  };
}

/** What an answer is built from. */
export interface FlagsAnswer {
  results: readonly FlagResult[];
  errorsWhileComputingFlags: boolean;
  /** The request's id (a UUID). */
  requestId: string;
  /** When the flags were evaluated. */
  evaluatedAt: Date;
  /** Config fields to merge at the top level; null without `config=true`. */
  config: Record<string, unknown> | null;
}

/**
 * The shape a request gets: for `/decide`, v1 (or none) → `decide-v1`, 2 → `decide-v2`, 3 →
 * `flags-v1`, 4 and up → `flags-v2`; for `/flags`, 2 and up → `flags-v2`, else `flags-v1`. `v` is
 * read as an integer; text that is not one counts as 1 (endpoint.rs).
 */
export function responseShape(fromDecide: boolean, version: number | null): FlagsResponseShape {
  if (fromDecide) {
    if (version === 2) return "decide-v2";
    if (version === 3) return "flags-v1";
    if (version !== null && version >= 4) return "flags-v2";
    return "decide-v1";
  }
  return version !== null && version >= 2 ? "flags-v2" : "flags-v1";
}

/** The flags service's description of a reason (types.rs `get_reason_description`). */
function describe(reason: EvaluationReason, conditionIndex: number | null): string {
  switch (reason) {
    case "condition_match":
      return `Matched condition set ${(conditionIndex ?? 0) + 1}`;
    case "no_condition_match":
      return "No matching condition set";
    case "out_of_rollout_bound":
      return "Out of rollout bound";
    case "no_group_type":
      return "No group type";
    case "super_condition_value":
      return "Super condition value";
    case "holdout_condition_value":
      return "Holdout condition value";
    case "flag_disabled":
      return "Feature flag is disabled";
    case "missing_dependency":
      return "Flag cannot be evaluated due to missing dependency";
  }
}

/** A flag's value: its variant, else whether it is enabled. */
function flagValue(evaluation: FlagEvaluation | null): boolean | string {
  return evaluation?.value ?? false;
}

/** A result as `FlagDetails`; a flag that could not be computed is disabled and `failed` (types.rs `create_error`). */
export function flagDetails({ flag, evaluation }: FlagResult): FlagDetails {
  const metadata = {
    id: flag.id,
    version: flag.version,
    description: null,
    payload: evaluation?.payload ?? null,
    has_experiment: false,
  };
  if (evaluation === null) {
    return {
      key: flag.key,
      enabled: false,
      variant: null,
      failed: true,
      reason: {
        code: "database_error",
        condition_index: null,
        description: "Database connection error during evaluation",
      },
      metadata,
    };
  }
  return {
    key: flag.key,
    enabled: evaluation.value !== false,
    variant: evaluation.variant,
    reason: {
      code: evaluation.reason,
      condition_index: evaluation.conditionIndex,
      description: describe(evaluation.reason, evaluation.conditionIndex),
    },
    metadata,
  };
}

/** The fields every shape ends with: `requestId`, `evaluatedAt` (ms since the epoch), the config's. */
const commonFields = (answer: FlagsAnswer): Record<string, unknown> => ({
  requestId: answer.requestId,
  evaluatedAt: answer.evaluatedAt.getTime(),
  ...answer.config,
});

/** The answer body of `shape` (see the module comment). */
export function flagsResponseBody(shape: FlagsResponseShape, answer: FlagsAnswer): Record<string, unknown> {
  const common = commonFields(answer);
  const enabled = answer.results.filter(({ evaluation }) => flagValue(evaluation) !== false);
  switch (shape) {
    case "flags-v2":
      return {
        errorsWhileComputingFlags: answer.errorsWhileComputingFlags,
        flags: Object.fromEntries(answer.results.map((result) => [result.flag.key, flagDetails(result)])),
        ...common,
      };
    case "flags-v1": {
      const payloads: Record<string, unknown> = {};
      for (const { flag, evaluation } of answer.results) {
        if (evaluation?.payload != null) payloads[flag.key] = evaluation.payload;
      }
      return {
        errorsWhileComputingFlags: answer.errorsWhileComputingFlags,
        featureFlags: Object.fromEntries(
          answer.results.map(({ flag, evaluation }) => [flag.key, flagValue(evaluation)]),
        ),
        featureFlagPayloads: payloads,
        ...common,
      };
    }
    case "decide-v2":
      return {
        featureFlags: Object.fromEntries(
          enabled.map(({ flag, evaluation }) => [flag.key, flagValue(evaluation)]),
        ),
        ...common,
      };
    case "decide-v1":
      return { featureFlags: enabled.map(({ flag }) => flag.key), ...common };
  }
}

/** A flag's `flags-v2` entry for one outcome, as UTF-8 JSON (`"key":{…}`). */
interface V2Entry {
  value: FlagEvaluation["value"];
  reason: FlagEvaluation["reason"];
  conditionIndex: number | null;
  bytes: Buffer;
}

/**
 * Each flag's `flags-v2` entries, one per outcome met, kept beside the flag's definition: a flag has
 * few outcomes (its values × reasons × condition indexes) and its definition object lives for one
 * project revision, so most answers are assembled from kept bytes, not serialised.
 */
const v2Entries = new WeakMap<DefinitionFlag, V2Entry[]>();

/** `result`'s `flags-v2` entry written anew: `JSON.stringify` of the key and of `flagDetails`. */
const writeV2Entry = (result: FlagResult): Buffer =>
  Buffer.from(`${JSON.stringify(result.flag.key)}:${JSON.stringify(flagDetails(result))}`);

/** `result` as its `flags-v2` entry's bytes, kept per flag and outcome (`v2Entries`). */
function v2EntryBytes(result: FlagResult): Buffer {
  const { flag, evaluation } = result;
  if (evaluation === null) return writeV2Entry(result);
  let entries = v2Entries.get(flag);
  if (entries === undefined) {
    entries = [];
    v2Entries.set(flag, entries);
  }
  // The variant and the payload follow from the flag and its value (engine/evaluate.ts `payloadOf`).
  const { value, reason, conditionIndex } = evaluation;
  for (const entry of entries) {
    if (entry.value === value && entry.reason === reason && entry.conditionIndex === conditionIndex) {
      return entry.bytes;
    }
  }
  const bytes = writeV2Entry(result);
  entries.push({ value, reason, conditionIndex, bytes });
  return bytes;
}

const V2_OPEN = [
  Buffer.from('{"errorsWhileComputingFlags":false,"flags":{'),
  Buffer.from('{"errorsWhileComputingFlags":true,"flags":{'),
];
const COMMA = Buffer.from(",");

/**
 * The answer of `shape` as UTF-8 JSON: the same bytes as `JSON.stringify(flagsResponseBody(shape,
 * answer))`, the `flags-v2` ones assembled from each flag's kept entry (`v2EntryBytes`).
 */
export function flagsResponseBytes(shape: FlagsResponseShape, answer: FlagsAnswer): Buffer {
  if (shape !== "flags-v2") return Buffer.from(JSON.stringify(flagsResponseBody(shape, answer)));
  const parts: Buffer[] = [V2_OPEN[answer.errorsWhileComputingFlags ? 1 : 0]!];
  for (const result of answer.results) {
    if (parts.length > 1) parts.push(COMMA);
    parts.push(v2EntryBytes(result));
  }
  // The closing brace of `flags`, a comma, then the common fields without their opening brace.
  parts.push(Buffer.from(`},${JSON.stringify(commonFields(answer)).slice(1)}`));
  return Buffer.concat(parts);
}
