/**
 * The OFREP mapping (src/feature-flags/delivery/ofrep.ts), pure: every PostHog reason the engine
 * gives, from a real evaluation, to its OFREP reason per the module's table; values, variants,
 * metadata and payloads; failures and error answers; the bulk ETag.
 */
import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  MethodNotAllowedError,
  ParseError,
  PayloadTooLargeError,
  ValidationError,
} from "../../../src/core/errors.js";
import {
  bulkEtag,
  ofrepErrorReply,
  ofrepReason,
  ofrepResult,
  ofrepSuccess,
} from "../../../src/feature-flags/delivery/ofrep.js";
import type { EvaluationFlag, FlagEvaluation } from "../../../src/feature-flags/evaluation/engine/types.js";
import { evaluate, evaluateOne, flag, subject } from "../evaluation/support.js";

/** A flag's success at version 3. */
const asOfrep = (one: EvaluationFlag, evaluation: FlagEvaluation) =>
  ofrepSuccess({ ...one, version: 3 }, evaluation);
const variants = {
  variants: [
    { key: "a", rollout_percentage: 50 },
    { key: "b", rollout_percentage: 50 },
  ],
};

/** The first distinct id among u0…u99 for which `one` evaluates to something other than false. */
function matchingSubject(one: EvaluationFlag) {
  for (let i = 0; i < 100; i++) {
    const who = subject({ distinctId: `u${i}` });
    if (evaluateOne(one, who).value !== false) return who;
  }
  throw new Error("no subject matches");
}

describe("PostHog's reasons as OFREP's", () => {
  const cases: Array<[string, EvaluationFlag, ReturnType<typeof subject>, string, string]> = [
    [
      "a condition with property filters",
      flag("t", {
        groups: [{ properties: [{ key: "plan", value: "pro", type: "person" }], rollout_percentage: 100 }],
      }),
      subject({ personProperties: { plan: "pro" } }),
      "condition_match",
      "TARGETING_MATCH",
    ],
    [
      "everyone at 100%",
      flag("s", { groups: [{ rollout_percentage: 100 }] }),
      subject(),
      "condition_match",
      "STATIC",
    ],
    [
      "everyone, a rollout of null",
      flag("n", { groups: [{ rollout_percentage: null }] }),
      subject(),
      "condition_match",
      "STATIC",
    ],
    [
      "a variant override at 100%",
      flag("o", { groups: [{ rollout_percentage: 100, variant: "b" }], multivariate: variants }),
      subject(),
      "condition_match",
      "STATIC",
    ],
    [
      "a hashed variant",
      flag("v", { groups: [{ rollout_percentage: 100 }], multivariate: variants }),
      subject(),
      "condition_match",
      "SPLIT",
    ],
    [
      "inside a partial rollout",
      flag("p", { groups: [{ rollout_percentage: 50 }] }),
      subject(),
      "condition_match",
      "SPLIT",
    ],
    [
      "outside the rollout",
      flag("r", { groups: [{ rollout_percentage: 0 }] }),
      subject(),
      "out_of_rollout_bound",
      "SPLIT",
    ],
    [
      "no condition matched",
      flag("m", { groups: [{ properties: [{ key: "plan", value: "pro", type: "person" }] }] }),
      subject(),
      "no_condition_match",
      "DEFAULT",
    ],
    ["no conditions at all", flag("e", { groups: [] }), subject(), "no_group_type", "DEFAULT"],
    [
      "a group flag without the group",
      flag("g", { aggregation_group_type_index: 0, groups: [{ rollout_percentage: 100 }] }),
      subject(),
      "no_group_type",
      "DEFAULT",
    ],
    [
      "an inactive flag",
      flag("d", { groups: [{ rollout_percentage: 100 }] }, { active: false }),
      subject(),
      "flag_disabled",
      "DISABLED",
    ],
    [
      "early-access enrolment",
      flag("ea", { feature_enrollment: true, groups: [] }),
      subject({ personProperties: { "$feature_enrollment/ea": true } }),
      "super_condition_value",
      "TARGETING_MATCH",
    ],
    [
      "a holdout",
      flag("h", { holdout: { id: 7, exclusion_percentage: 100 }, groups: [{ rollout_percentage: 100 }] }),
      subject(),
      "holdout_condition_value",
      "SPLIT",
    ],
    [
      "a missing dependency",
      flag("x", {
        groups: [
          {
            properties: [{ key: "424242", type: "flag", value: true, operator: "flag_evaluates_to" }],
            rollout_percentage: 100,
          },
        ],
      }),
      subject(),
      "missing_dependency",
      "ERROR",
    ],
  ];
  for (const [what, one, who, posthog, expected] of cases) {
    it(`${what}: ${posthog} → ${expected}`, () => {
      const evaluation = evaluateOne(one, what === "inside a partial rollout" ? matchingSubject(one) : who);
      expect(evaluation.reason).toBe(posthog);
      expect(ofrepReason({ ...one, version: 1 }, evaluation)).toBe(expected);
    });
  }
});

describe("an OFREP success", () => {
  it("carries PostHog's value, the variant of a multivariate value, and metadata in PostHog's terms", () => {
    const multivariate = flag("mv", {
      groups: [{ rollout_percentage: 100 }],
      multivariate: variants,
      payloads: { a: '{"x":1}', b: { y: 2 } },
    });
    const [a, b] = [0, 1].map((i) => {
      for (let n = 0; ; n++) {
        const who = subject({ distinctId: `p${n}` });
        if (evaluateOne(multivariate, who).variant === ["a", "b"][i]) return evaluateOne(multivariate, who);
      }
    });
    expect(asOfrep(multivariate, a!)).toStrictEqual({
      key: "mv",
      value: "a",
      variant: "a",
      reason: "SPLIT",
      metadata: {
        flagId: multivariate.id,
        version: 3,
        reason: "condition_match",
        conditionIndex: 0,
        payload: '{"x":1}',
      },
    });
    // A payload stored as an object (not PostHog's JSON text) is sent as JSON text: metadata holds no objects.
    expect(asOfrep(multivariate, b!).metadata["payload"]).toBe('{"y":2}');

    const boolean = flag("bool", { groups: [{ rollout_percentage: 0 }], payloads: { true: "1" } });
    expect(asOfrep(boolean, evaluateOne(boolean))).toStrictEqual({
      key: "bool",
      value: false,
      reason: "SPLIT",
      metadata: { flagId: boolean.id, version: 3, reason: "out_of_rollout_bound", conditionIndex: 0 },
    });
    const disabled = flag("off", {}, { active: false });
    expect(asOfrep(disabled, evaluateOne(disabled)).metadata).not.toHaveProperty("conditionIndex");
  });

  it("is a GENERAL failure when the flag could not be evaluated", () => {
    const one = flag("f", {});
    expect(ofrepResult({ ...one, version: 1 }, null)).toEqual({
      key: "f",
      errorCode: "GENERAL",
      errorDetails: expect.stringContaining("could not be evaluated"),
    });
    const [evaluation] = evaluate([one]).values();
    expect(ofrepResult({ ...one, version: 1 }, evaluation!)).toHaveProperty("value", false);
  });
});

describe("OFREP's error answers", () => {
  it("maps each failure to its status and OFREP code, with the key on the single-flag path", () => {
    const missing = new ValidationError("no key", { code: "TARGETING_KEY_MISSING" });
    expect(ofrepErrorReply(missing, "k")).toEqual({
      status: 400,
      body: { key: "k", errorCode: "TARGETING_KEY_MISSING", errorDetails: "no key" },
    });
    expect(ofrepErrorReply(missing, null).body).toEqual({
      errorCode: "TARGETING_KEY_MISSING",
      errorDetails: "no key",
    });
    expect(ofrepErrorReply(new ValidationError("bad", { code: "invalid" }), null)).toMatchObject({
      status: 400,
      body: { errorCode: "INVALID_CONTEXT" },
    });
    expect(ofrepErrorReply(new ParseError("not json"), "k")).toMatchObject({
      status: 400,
      body: { errorCode: "PARSE_ERROR" },
    });
    expect(ofrepErrorReply(new AuthenticationError(), "k")).toEqual({
      status: 401,
      body: { errorDetails: "Authentication credentials were not provided." },
    });
    expect(ofrepErrorReply(new PayloadTooLargeError(10), null)).toMatchObject({
      status: 413,
      body: { errorCode: "GENERAL" },
    });
    expect(ofrepErrorReply(new MethodNotAllowedError("GET"), "k")).toMatchObject({
      status: 405,
      body: { key: "k", errorCode: "GENERAL" },
    });
    expect(ofrepErrorReply(null, "k")).toEqual({
      status: 500,
      body: { key: "k", errorCode: "GENERAL", errorDetails: "A server error occurred." },
    });
  });
});

describe("the bulk ETag", () => {
  it("is a weak tag of the answer's bytes: equal answers, equal tags", () => {
    expect(bulkEtag('{"flags":[]}')).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    expect(bulkEtag('{"flags":[]}')).toBe(bulkEtag('{"flags":[]}'));
    expect(bulkEtag('{"flags":[]}')).not.toBe(bulkEtag('{"flags":[{}]}'));
  });
});
