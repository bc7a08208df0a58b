/** Builders for the engine's pure tests: flags, definitions and subjects with sensible defaults. */
import { compileDefinitions, evaluateFlags } from "../../../src/feature-flags/evaluation/engine/evaluate.js";
import { rolloutHash } from "../../../src/feature-flags/evaluation/engine/hash.js";
import type {
  EvaluationCohort,
  EvaluationFlag,
  EvaluationSubject,
  FlagEvaluation,
} from "../../../src/feature-flags/evaluation/engine/types.js";

/** The fixed instant relative dates are measured from in these tests. */
export const NOW = new Date("2025-06-15T12:00:00Z");

let nextId = 1000;

/** A flag: active, person-aggregated, with the given key and filters. */
export function flag(key: string, filters: unknown, extra: Partial<EvaluationFlag> = {}): EvaluationFlag {
  return {
    id: nextId++,
    key,
    active: true,
    filters,
    ensureExperienceContinuity: false,
    bucketingIdentifier: null,
    ...extra,
  };
}

/** A subject with only a distinct id unless more is given. */
export function subject(extra: Partial<EvaluationSubject> = {}): EvaluationSubject {
  return {
    distinctId: "user-1",
    deviceId: null,
    personProperties: {},
    groups: {},
    groupProperties: {},
    staticCohortIds: new Set(),
    hashKeyOverrides: {},
    ...extra,
  };
}

/**
 * Evaluates `flags` (and `cohorts`) for a subject; the group type mapping is 0 → company, 1 → team
 * unless `groupTypeMapping` is given.
 */
export function evaluate(
  flags: EvaluationFlag[],
  who: EvaluationSubject = subject(),
  options: {
    cohorts?: EvaluationCohort[];
    keys?: string[];
    now?: Date;
    groupTypeMapping?: Record<string, string>;
  } = {},
): Map<string, FlagEvaluation> {
  const compiled = compileDefinitions({
    flags,
    groupTypeMapping: options.groupTypeMapping ?? { "0": "company", "1": "team" },
    cohorts: new Map((options.cohorts ?? []).map((cohort) => [cohort.id, cohort])),
  });
  return evaluateFlags(compiled, who, { now: options.now ?? NOW, keys: options.keys });
}

/** Evaluates a single flag and returns its result. */
export function evaluateOne(
  one: EvaluationFlag,
  who: EvaluationSubject = subject(),
  options: { cohorts?: EvaluationCohort[]; now?: Date } = {},
): FlagEvaluation {
  return evaluate([one], who, options).get(one.key)!;
}

/**
 * The first identifier `prefix0`, `prefix1`, … whose rollout hash for `flagKey` satisfies `accept`
 * (the hash itself is pinned by the golden vectors in hash.test.ts).
 */
export function identifierWhere(flagKey: string, accept: (hash: number) => boolean, prefix = "id-"): string {
  for (let i = 0; i < 10_000; i++) {
    if (accept(rolloutHash(flagKey, `${prefix}${i}`))) return `${prefix}${i}`;
  }
  throw new Error("no identifier found");
}

/** A person filter. */
export function person(key: string, operator: string | null, value?: unknown): Record<string, unknown> {
  return { key, type: "person", operator, ...(value === undefined ? {} : { value }) };
}
