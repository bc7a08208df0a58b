/**
 * `flagsResponseBytes` writes the same JSON text as `JSON.stringify(flagsResponseBody(...))` in every
 * shape, whatever it kept of the flags' entries from earlier answers: the same flag with another
 * outcome, a flag that failed, keys JSON must escape, a new definition object for the same key.
 */
import { describe, expect, it } from "vitest";
import {
  type FlagsAnswer,
  type FlagsResponseShape,
  flagsResponseBody,
  flagsResponseBytes,
} from "../../../src/feature-flags/delivery/flags-response.js";
import type { FlagEvaluation } from "../../../src/feature-flags/evaluation/engine/types.js";
import type { FlagResult } from "../../../src/feature-flags/evaluation/evaluation.service.js";
import type { DefinitionFlag } from "../../../src/feature-flags/evaluation/project-definitions.js";

const flag = (id: number, key: string, version = 1): DefinitionFlag => ({
  id,
  key,
  active: true,
  filters: {},
  ensureExperienceContinuity: false,
  bucketingIdentifier: null,
  name: "",
  version,
  isRemoteConfiguration: false,
  hasEncryptedPayloads: false,
  evaluationRuntime: "all",
  evaluationTags: [],
});

const evaluation = (
  key: string,
  value: FlagEvaluation["value"],
  reason: FlagEvaluation["reason"],
  conditionIndex: number | null,
  payload: unknown = null,
): FlagEvaluation => ({
  key,
  value,
  variant: typeof value === "string" ? value : null,
  reason,
  conditionIndex,
  payload,
});

const SHAPES: FlagsResponseShape[] = ["flags-v2", "flags-v1", "decide-v2", "decide-v1"];

const answer = (results: FlagResult[], config: Record<string, unknown> | null = null): FlagsAnswer => ({
  results,
  errorsWhileComputingFlags: results.some((result) => result.evaluation === null),
  requestId: "0190f2c4-3b7a-7000-8000-000000000001",
  evaluatedAt: new Date("2026-11-29T12:00:00.000Z"),
  config,
});

describe("flagsResponseBytes", () => {
  const plain = flag(1, "plain");
  const variants = flag(2, "multi");
  const odd = flag(3, 'quo"te\\ \u2028 é __proto__');
  const proto = flag(4, "__proto__");

  it("writes the bytes JSON.stringify writes of the body, in every shape, as the flags' outcomes change", () => {
    const rounds: FlagResult[][] = [
      [
        { flag: plain, evaluation: evaluation("plain", true, "condition_match", 0, { a: [1, "x"] }) },
        { flag: variants, evaluation: evaluation("multi", "control", "condition_match", 1) },
        { flag: odd, evaluation: evaluation(odd.key, false, "no_condition_match", null) },
        { flag: proto, evaluation: evaluation("__proto__", true, "condition_match", 0) },
      ],
      // The same flags again with other outcomes: a kept entry is never served for another outcome.
      [
        { flag: plain, evaluation: evaluation("plain", false, "out_of_rollout_bound", 0) },
        { flag: variants, evaluation: evaluation("multi", "test", "condition_match", 1, "payload") },
        { flag: odd, evaluation: null },
        { flag: proto, evaluation: evaluation("__proto__", true, "condition_match", 2) },
      ],
      // A variant named "true" is not the boolean `true`.
      [{ flag: variants, evaluation: evaluation("multi", "true", "condition_match", 0) }],
      [{ flag: variants, evaluation: evaluation("multi", true, "condition_match", 0) }],
      // A new definition (the next revision) of the same key writes its own metadata.
      [{ flag: flag(2, "multi", 7), evaluation: evaluation("multi", true, "condition_match", 0) }],
      [],
    ];
    for (const results of rounds) {
      for (const config of [
        null,
        { supportedCompression: ["gzip"], config: { enable_collect_everything: true } },
      ]) {
        for (const shape of SHAPES) {
          const expected = JSON.stringify(flagsResponseBody(shape, answer(results, config)));
          expect(flagsResponseBytes(shape, answer(results, config)).toString()).toBe(expected);
          // Asked again, from what it kept.
          expect(flagsResponseBytes(shape, answer(results, config)).toString()).toBe(expected);
        }
      }
    }
  });
});
