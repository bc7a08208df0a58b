import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/core/errors.js";
import type { FiltersContext, FlagSummary } from "../../../src/feature-flags/rules/filter-types.js";
import { filtersForUpdate, validateFilters } from "../../../src/feature-flags/rules/filters.js";
import {
  checkActivationChange,
  checkDeletion,
  dependentFlags,
  referencedFlagIds,
} from "../../../src/feature-flags/rules/flag-dependencies.js";

function context(overrides: Partial<FiltersContext> = {}): FiltersContext {
  return {
    isCreate: true,
    flagId: null,
    flagKey: "new-flag",
    flags: new Map(),
    cohorts: new Map(),
    maxValuesPerProperty: 10,
    maxGroups: 20,
    maxVariants: 20,
    ...overrides,
  };
}

function rejection(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error("expected a ValidationError");
}

function expectRejected(
  run: () => unknown,
  expected: { detail: string; code?: string; attr?: string | null },
): void {
  const error = rejection(run);
  expect(error.detail).toBe(expected.detail);
  expect(error.code).toBe(expected.code ?? "invalid_input");
  expect(error.attr).toBe(expected.attr === undefined ? "filters" : expected.attr);
  expect(error.httpStatus).toBe(400);
}

function flag(id: number, key: string, filters: unknown = {}, state: Partial<FlagSummary> = {}): FlagSummary {
  return { id, key, active: true, deleted: false, filters, ...state };
}

function flagMap(...flags: FlagSummary[]): Map<number, FlagSummary> {
  return new Map(flags.map((f) => [f.id, f]));
}

function dependsOn(...ids: (number | string)[]) {
  return {
    groups: [
      {
        properties: ids.map((id) => ({
          key: String(id),
          type: "flag",
          value: true,
          operator: "flag_evaluates_to",
        })),
        rollout_percentage: 100,
      },
    ],
  };
}

const person = (key: string, value: unknown, operator = "exact") => ({
  key,
  type: "person",
  value,
  operator,
});
const onePropertyGroup = (property: unknown) => ({
  groups: [{ properties: [property], rollout_percentage: 100 }],
});

describe("validateFilters: shape", () => {
  it("accepts a simple person flag and returns it unchanged", () => {
    const filters = {
      groups: [{ properties: [person("email", "a@b.com")], rollout_percentage: 50, variant: null }],
      aggregation_group_type_index: null,
    };
    expect(validateFilters(filters, context())).toEqual(filters);
  });

  it("keeps unknown keys of the filters, groups and properties as sent", () => {
    const filters = {
      groups: [
        { properties: [{ ...person("plan", "pro"), label: "x" }], rollout_percentage: 10, extra: [1] },
      ],
      custom: { anything: true },
    };
    expect(validateFilters(filters, context())).toEqual(filters);
  });

  it("does not mutate its input", () => {
    const filters = { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: { a: 1 } } };
    const copy = structuredClone(filters);
    validateFilters(filters, context());
    expect(filters).toEqual(copy);
  });

  it("rejects filters that are not an object with DRF's DictField messages", () => {
    expectRejected(() => validateFilters([], context()), {
      detail: 'Expected a dictionary of items but got type "list".',
      code: "not_a_dict",
    });
    expectRejected(() => validateFilters("x", context()), {
      detail: 'Expected a dictionary of items but got type "str".',
      code: "not_a_dict",
    });
    expectRejected(() => validateFilters(null, context()), {
      detail: "This field may not be null.",
      code: "null",
    });
  });

  it("rejects a create without condition groups", () => {
    const detail = "Feature flags must have at least one condition set (group).";
    expectRejected(() => validateFilters({ groups: [] }, context()), { detail });
    expectRejected(() => validateFilters({}, context()), { detail });
    expectRejected(() => validateFilters({ groups: null }, context()), { detail });
  });

  it("allows an update to leave no condition groups", () => {
    expect(validateFilters({ groups: [] }, context({ isCreate: false, flagId: 1 }))).toEqual({ groups: [] });
  });

  it("names the offending field when a known key has the wrong type", () => {
    expectRejected(() => validateFilters({ groups: {} }, context()), {
      detail: "Filters are not valid (groups must be a list)",
    });
    expectRejected(
      () => validateFilters({ groups: [{ properties: [], rollout_percentage: "50" }] }, context()),
      {
        detail: "Filters are not valid (groups[0].rollout_percentage must be a number or null)",
      },
    );
    expectRejected(
      () => validateFilters({ groups: [{ properties: [{ type: "person", value: 1 }] }] }, context()),
      {
        detail: "Filters are not valid (groups[0].properties[0].key must be a string)",
      },
    );
    expectRejected(() => validateFilters({ groups: [{}], aggregation_group_type_index: 7 }, context()), {
      detail: "Filters are not valid (aggregation_group_type_index must be an integer from 0 to 4 or null)",
    });
    expectRejected(
      () =>
        validateFilters(
          { groups: [{}], multivariate: { variants: [{ rollout_percentage: 100 }] } },
          context(),
        ),
      { detail: "Filters are not valid (multivariate.variants[0].key must be a non-empty string)" },
    );
    expectRejected(
      () => validateFilters({ groups: [{}], holdout: { id: "1", exclusion_percentage: 10 } }, context()),
      {
        detail: "Filters are not valid (holdout.id must be an integer)",
      },
    );
  });

  it("rejects more condition groups than the configured limit", () => {
    const groups = Array.from({ length: 4 }, () => ({ properties: [], rollout_percentage: 100 }));
    expectRejected(() => validateFilters({ groups }, context({ maxGroups: 3 })), {
      detail: "Feature flags can have at most 3 condition sets (groups); got 4.",
      code: "max_length",
    });
    expect(validateFilters({ groups: groups.slice(0, 3) }, context({ maxGroups: 3 })).groups).toHaveLength(3);
  });

  it("rejects more variants than the configured limit", () => {
    const variants = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        key: `v${i}`,
        rollout_percentage: i === 0 ? 100 - (n - 1) : 1,
      }));
    const filters = (n: number) => ({
      groups: [{ properties: [] }],
      multivariate: { variants: variants(n) },
    });
    expectRejected(() => validateFilters(filters(4), context({ maxVariants: 3 })), {
      detail: "Feature flags can have at most 3 variants; got 4.",
      code: "max_length",
    });
    expect(validateFilters(filters(3), context({ maxVariants: 3 })).multivariate?.variants).toHaveLength(3);
  });

  it("rejects a property without a value unless the operator is is_set or is_not_set", () => {
    expectRejected(() => validateFilters(onePropertyGroup({ key: "email", type: "person" }), context()), {
      detail:
        "Filters are not valid (groups[0].properties[0].value must be set unless the operator is is_set or is_not_set)",
    });
    const isSet = onePropertyGroup({ key: "email", type: "person", operator: "is_set" });
    expect(validateFilters(isSet, context())).toEqual(isSet);
    const isNotSet = onePropertyGroup({ key: "email", type: "person", operator: "is_not_set" });
    expect(validateFilters(isNotSet, context())).toEqual(isNotSet);
    expectRejected(
      () =>
        validateFilters(
          onePropertyGroup({ key: "email", type: "person", operator: "exact", value: null }),
          context(),
        ),
      {
        detail:
          "Filters are not valid (groups[0].properties[0].value must be set unless the operator is is_set or is_not_set)",
      },
    );
  });

  it("stores integer property keys as strings", () => {
    const result = validateFilters(onePropertyGroup(person("x", 1)), context());
    expect(result.groups?.[0]?.properties?.[0]?.key).toBe("x");
    const numeric = validateFilters(onePropertyGroup({ key: 42, type: "person", value: 1 }), context());
    expect(numeric.groups?.[0]?.properties?.[0]?.key).toBe("42");
  });
});

describe("validateFilters: property types", () => {
  it("rejects event properties (or a missing type) on a person flag", () => {
    const detail = "Filters are not valid (can only use person, cohort, and flag properties)";
    expectRejected(
      () => validateFilters(onePropertyGroup({ key: "$browser", type: "event", value: "Chrome" }), context()),
      { detail },
    );
    expectRejected(() => validateFilters(onePropertyGroup({ key: "$browser", value: "Chrome" }), context()), {
      detail,
    });
  });

  it("rejects flag properties that do not use flag_evaluates_to", () => {
    const filters = onePropertyGroup({ key: "1", type: "flag", value: true, operator: "exact" });
    expectRejected(() => validateFilters(filters, context({ flags: flagMap(flag(1, "other")) })), {
      detail: "Flag properties must use the 'flag_evaluates_to' operator",
    });
  });

  it("accepts only group properties of the flag's group type on a group flag", () => {
    const detail = "Filters are not valid (can only use group properties)";
    const groupProperty = (index: number) => ({
      key: "name",
      type: "group",
      value: "acme",
      group_type_index: index,
    });
    const filters = (property: unknown) => ({
      ...onePropertyGroup(property),
      aggregation_group_type_index: 1,
    });
    expectRejected(() => validateFilters(filters(person("email", "x")), context()), { detail });
    expectRejected(() => validateFilters(filters(groupProperty(0)), context()), { detail });
    expect(validateFilters(filters(groupProperty(1)), context())).toEqual(filters(groupProperty(1)));
  });
});

describe("validateFilters: variants", () => {
  const multivariate = (...percentages: number[]) => ({
    groups: [{ properties: [], rollout_percentage: 100 }],
    multivariate: {
      variants: percentages.map((p, i) => ({ key: `v${i}`, name: null, rollout_percentage: p })),
    },
  });
  const detail = "Invalid variant definitions: Variant rollout percentages must sum to 100.";

  it("rejects variants whose rollout does not sum to 100", () => {
    expectRejected(() => validateFilters(multivariate(50, 25), context()), { detail });
    expectRejected(() => validateFilters(multivariate(50, 75), context()), { detail });
  });

  it("accepts variants summing to exactly 100, fractions included", () => {
    expect(validateFilters(multivariate(50, 50), context())).toEqual(multivariate(50, 50));
    expect(validateFilters(multivariate(33.33, 33.33, 33.34), context()).multivariate?.variants).toHaveLength(
      3,
    );
  });

  it("rejects a condition's variant override that is not a variant", () => {
    const filters = multivariate(100);
    const withOverride = (variant: string) => ({ ...filters, groups: [{ properties: [], variant }] });
    expectRejected(() => validateFilters(withOverride("missing"), context()), {
      detail: "Filters are not valid (variant override does not exist)",
    });
    expect(validateFilters(withOverride("v0"), context()).groups?.[0]?.variant).toBe("v0");
  });
});

describe("validateFilters: property values", () => {
  it("rejects a list value longer than the configured maximum", () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@x.com`);
    expectRejected(() => validateFilters(onePropertyGroup(person("email", values(11))), context()), {
      detail: "Property group expressions of type email cannot contain more than 10 values.",
    });
    expect(validateFilters(onePropertyGroup(person("email", values(10))), context())).toBeTruthy();
  });

  it("rejects a cohort that does not exist in the project", () => {
    const cohort = (value: unknown) => onePropertyGroup({ key: "id", type: "cohort", value });
    const five = new Map([[5, { name: "Five", isStatic: false, usesEvents: false }]]);
    expectRejected(() => validateFilters(cohort(98), context({ cohorts: five })), {
      detail: "Cohort with id 98 does not exist",
      code: "cohort_does_not_exist",
    });
    expect(validateFilters(cohort(5), context({ cohorts: five }))).toEqual(cohort(5));
    expect(validateFilters(cohort("5"), context({ cohorts: five }))).toEqual(cohort("5"));
  });

  it("rejects a dynamic cohort that uses events, but not a static one (behavioral_cohort_found)", () => {
    const cohort = onePropertyGroup({ key: "id", type: "cohort", value: 7 });
    const behavioral = new Map([[7, { name: "Buyers", isStatic: false, usesEvents: true }]]);
    expectRejected(() => validateFilters(cohort, context({ cohorts: behavioral })), {
      detail: "Cohort 'Buyers' with filters on events cannot be used in feature flags.",
      code: "behavioral_cohort_found",
    });
    const listed = new Map([[7, { name: "Buyers", isStatic: true, usesEvents: true }]]);
    expect(validateFilters(cohort, context({ cohorts: listed }))).toEqual(cohort);
    // A cohort without a name (the column is nullable) reads as Python's f-string prints None.
    const unnamed = new Map([[7, { name: null, isStatic: false, usesEvents: true }]]);
    expectRejected(() => validateFilters(cohort, context({ cohorts: unnamed })), {
      detail: "Cohort 'None' with filters on events cannot be used in feature flags.",
      code: "behavioral_cohort_found",
    });
  });

  it("rejects a date that does not exist: month 13 or 0, day 0 or 32, hour 24, minute or second 60", () => {
    // PostHog parses the value with dateutil (posthog/queries/base.py
    // `determine_parsed_date_for_property_matching`), which refuses each of these as out of range.
    for (const operator of ["is_date_before", "is_date_after"]) {
      for (const value of [
        "2025-13-01",
        "2025-00-10",
        "2025-01-00",
        "2025-01-32",
        "2025-04-31",
        "2025-02-29",
        "2025-01-31T24:00",
        "2025-01-31T23:60",
        "2025-01-31T23:59:60",
        "2025-01-31T12:30:00+0200x",
        "x2025-01-31",
      ]) {
        expectRejected(
          () => validateFilters(onePropertyGroup(person("signup", value, operator)), context()),
          {
            detail: `Invalid date value: ${value}`,
            code: "invalid_date",
          },
        );
      }
    }
  });

  it("accepts the edges of a real date and time, and relative offsets below 10000", () => {
    for (const value of [
      "2025-12-31T23:59:59.999999999Z",
      "2025-01-01T00:00:00+02:00",
      "2025-01-01 00:00:00-0530",
      "2025-01-01T00:00+02",
      "-9999d",
      "9999y",
    ]) {
      const dated = onePropertyGroup(person("signup", value, "is_date_after"));
      expect(validateFilters(dated, context())).toEqual(dated);
    }
    expectRejected(
      () => validateFilters(onePropertyGroup(person("signup", "10000h", "is_date_after")), context()),
      {
        detail: "Invalid date value: 10000h",
        code: "invalid_date",
      },
    );
  });

  it("does not check dates for other operators", () => {
    const exact = onePropertyGroup(person("signup", "2025-13-01", "exact"));
    expect(validateFilters(exact, context())).toEqual(exact);
  });

  it("rejects a date operator whose value is neither a date nor a relative date", () => {
    const dated = (value: unknown) => onePropertyGroup(person("signup", value, "is_date_before"));
    for (const value of ["yesterday", "2025-02-30", "-10000d", "-7x"]) {
      expectRejected(() => validateFilters(dated(value), context()), {
        detail: `Invalid date value: ${value}`,
        code: "invalid_date",
      });
    }
    for (const value of [
      "-7d",
      "24h",
      "-2w",
      "-1m",
      "-1y",
      "2025-01-31",
      "2025-01-31T12:30:00Z",
      "2024-02-29 08:00",
    ]) {
      expect(validateFilters(dated(value), context())).toEqual(dated(value));
    }
  });

  it("rejects a list for icontains but accepts the same list written as a string", () => {
    expectRejected(
      () => validateFilters(onePropertyGroup(person("email", ["@posthog.com"], "icontains")), context()),
      {
        detail: "Invalid value for operator icontains: ['@posthog.com']",
        code: "invalid_value",
      },
    );
    const asString = onePropertyGroup(person("email", '["@posthog.com"]', "icontains"));
    expect(validateFilters(asString, context())).toEqual(asString);
  });

  it("rejects a number for a comparison operator", () => {
    expectRejected(() => validateFilters(onePropertyGroup(person("age", 5, "gt")), context()), {
      detail: "Invalid value for operator gt: 5",
      code: "invalid_value",
    });
  });

  it("rejects in and not_in outside cohort properties", () => {
    expectRejected(() => validateFilters(onePropertyGroup(person("email", "x", "in")), context()), {
      detail: "The 'in' operator is only valid for cohort properties, not 'person' properties.",
      code: "invalid_operator",
    });
    expectRejected(() => validateFilters(onePropertyGroup(person("email", "x", "not_in")), context()), {
      detail: "The 'not_in' operator is only valid for cohort properties, not 'person' properties.",
      code: "invalid_operator",
    });
    const cohort = onePropertyGroup({ key: "id", type: "cohort", value: 3, operator: "not_in" });
    const three = new Map([[3, { name: "Three", isStatic: false, usesEvents: false }]]);
    expect(validateFilters(cohort, context({ cohorts: three }))).toEqual(cohort);
  });
});

describe("validateFilters: payloads", () => {
  const boolean = (payloads: unknown) => ({
    groups: [{ properties: [], rollout_percentage: 100 }],
    payloads,
  });

  it("rejects payloads that are not an object", () => {
    for (const payloads of [[], "x", null]) {
      expectRejected(() => validateFilters(boolean(payloads), context()), {
        detail: "Payloads must be passed as a dictionary",
      });
    }
  });

  it("rejects a string payload that is not valid JSON", () => {
    expectRejected(() => validateFilters(boolean({ true: "{not json" }), context()), {
      detail: "Payload value is not valid JSON",
    });
  });

  it("stores object payloads as JSON strings the way Python's json.dumps writes them", () => {
    const result = validateFilters(boolean({ true: { a: 1, b: [true, null], c: "é" } }), context());
    expect(result.payloads).toEqual({ true: '{"a": 1, "b": [true, null], "c": "\\u00e9"}' });
  });

  it("rejects a payload JSON cannot hold", () => {
    expectRejected(() => validateFilters(boolean({ true: { at: new Date(0) } }), context()), {
      detail: "Payload value is not valid JSON",
    });
  });

  it("keeps string, list and scalar payloads as sent", () => {
    for (const value of ['{"a":1}', "42", [1, 2], 7, false]) {
      expect(validateFilters(boolean({ true: value }), context()).payloads).toEqual({ true: value });
    }
  });

  it("rejects payload keys other than 'true' on a boolean flag", () => {
    const detail = "Payload keys must be 'true' for boolean flags";
    expectRejected(() => validateFilters(boolean({ false: "1" }), context()), { detail });
    expectRejected(() => validateFilters(boolean({ true: "1", other: "2" }), context()), { detail });
    // An empty multivariate object is a boolean flag, as Python's truthiness has it.
    expectRejected(() => validateFilters({ ...boolean({ v1: "1" }), multivariate: {} }, context()), {
      detail,
    });
  });

  it("rejects payload keys that are not variant keys on a multivariate flag", () => {
    const filters = (payloads: unknown) => ({
      ...boolean(payloads),
      multivariate: { variants: [{ key: "control", rollout_percentage: 100 }] },
    });
    expectRejected(() => validateFilters(filters({ true: "1" }), context()), {
      detail: "Payload keys must match a variant key for multivariate flags",
    });
    expect(validateFilters(filters({ control: { x: 1 } }), context()).payloads).toEqual({
      control: '{"x": 1}',
    });
  });
});

describe("validateFilters: flag dependencies", () => {
  it("rejects a dependency written as a flag key instead of an id", () => {
    expectRejected(() => validateFilters(dependsOn("beta-feature"), context()), {
      detail:
        "Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: 'beta-feature'",
    });
  });

  it("rejects a dependency on a missing or deleted flag", () => {
    const flags = flagMap(flag(2, "gone", {}, { deleted: true }));
    for (const id of [2, 9]) {
      expectRejected(() => validateFilters(dependsOn(id), context({ flags })), {
        detail: `Flag dependency references non-existent flag with ID ${id}`,
      });
    }
  });

  it("rejects a dependency on a disabled flag", () => {
    const flags = flagMap(flag(3, "paused", {}, { active: false }));
    expectRejected(() => validateFilters(dependsOn(3), context({ flags })), {
      detail:
        "Cannot create dependency on disabled flag 'paused' (ID: 3). Flag dependencies must reference active flags only.",
    });
  });

  it("rejects a flag that depends on itself", () => {
    const flags = flagMap(flag(4, "self-ref"));
    expectRejected(
      () =>
        validateFilters(dependsOn(4), context({ isCreate: false, flagId: 4, flagKey: "self-ref", flags })),
      {
        detail: "Feature flag 'self-ref' cannot depend on itself",
      },
    );
  });

  it("rejects a circular dependency, naming the cycle by flag keys", () => {
    // a (1) is being updated to depend on b (2), which already depends on a.
    const flags = flagMap(flag(1, "a"), flag(2, "b", dependsOn(1)));
    expectRejected(
      () => validateFilters(dependsOn(2), context({ isCreate: false, flagId: 1, flagKey: "a", flags })),
      {
        detail: "Circular dependency detected: a → b → a",
      },
    );
  });

  it("finds longer cycles through stored dependencies", () => {
    const flags = flagMap(flag(1, "a"), flag(2, "b", dependsOn(3)), flag(3, "c", dependsOn(1)));
    expectRejected(
      () => validateFilters(dependsOn(2), context({ isCreate: false, flagId: 1, flagKey: "a", flags })),
      {
        detail: "Circular dependency detected: a → b → c → a",
      },
    );
  });

  it("rejects a dependency on a flag of the same key or id, whichever matches", () => {
    expectRejected(
      () => validateFilters(dependsOn(1), context({ flagKey: "a", flags: flagMap(flag(1, "a")) })),
      { detail: "Feature flag 'a' cannot depend on itself" },
    );
    expectRejected(
      () =>
        validateFilters(
          dependsOn(1),
          context({ isCreate: false, flagId: 1, flagKey: "b", flags: flagMap(flag(1, "a")) }),
        ),
      { detail: "Feature flag 'b' cannot depend on itself" },
    );
  });

  it("finds a cycle through a later dependency after an earlier one without", () => {
    const flags = flagMap(flag(1, "a"), flag(2, "b"), flag(3, "c", dependsOn(1)));
    expectRejected(
      () => validateFilters(dependsOn(2, 3), context({ isCreate: false, flagId: 1, flagKey: "a", flags })),
      { detail: "Circular dependency detected: a → c → a" },
    );
  });

  it("reports a cycle further down the graph that does not pass through the flag", () => {
    const flags = flagMap(flag(2, "b", dependsOn(3)), flag(3, "c", dependsOn(2)));
    expectRejected(() => validateFilters(dependsOn(2), context({ flags })), {
      detail: "Circular dependency detected: b → c → b",
    });
  });

  it("accepts shared dependencies that form no cycle", () => {
    const flags = flagMap(
      flag(2, "b", dependsOn(4)),
      flag(3, "c", dependsOn(4)),
      flag(4, "d", dependsOn(99)),
    );
    expect(validateFilters(dependsOn(2, 3), context({ flags }))).toEqual(dependsOn(2, 3));
  });

  it("uses the new filters, not the stored ones, for the flag being updated", () => {
    // Stored: a depends on b. New: a depends on nothing, and b depends on a — no cycle any more.
    const flags = flagMap(flag(1, "a", dependsOn(2)), flag(2, "b", dependsOn(1)));
    const filters = { groups: [{ properties: [], rollout_percentage: 100 }] };
    expect(validateFilters(filters, context({ isCreate: false, flagId: 1, flagKey: "a", flags }))).toEqual(
      filters,
    );
  });

  it("canonicalises only flag keys, in a group that mixes them with other properties", () => {
    const flags = flagMap(flag(7, "seven"));
    const sent = {
      groups: [
        {
          properties: [
            { key: " 42", type: "person", value: "x", operator: "exact" },
            { key: " 7", type: "flag", value: true, operator: "flag_evaluates_to" },
          ],
          rollout_percentage: 100,
        },
        {
          properties: [{ key: " 8", type: "person", value: "y", operator: "exact" }],
          rollout_percentage: 50,
        },
      ],
    };
    const keys = validateFilters(sent, context({ flags })).groups?.map((g) =>
      g.properties?.map((p) => p.key),
    );
    expect(keys).toEqual([[" 42", "7"], [" 8"]]);
  });

  it("stores dependency keys as canonical id strings", () => {
    const flags = flagMap(flag(7, "seven"));
    const sent = onePropertyGroup({ key: " 7", type: "flag", value: true, operator: "flag_evaluates_to" });
    expect(validateFilters(sent, context({ flags })).groups?.[0]?.properties?.[0]?.key).toBe("7");
    const numeric = onePropertyGroup({ key: 7, type: "flag", value: "test", operator: "flag_evaluates_to" });
    expect(validateFilters(numeric, context({ flags })).groups?.[0]?.properties?.[0]?.key).toBe("7");
  });
});

describe("referencedFlagIds", () => {
  it("lists each referenced flag id once, in order, skipping unparseable keys", () => {
    const filters = {
      groups: [
        {
          properties: [
            { key: "3", type: "flag" },
            { key: "email", type: "person" },
          ],
        },
        {
          properties: [
            { key: 1, type: "flag" },
            { key: "3", type: "flag" },
            { key: "x", type: "flag" },
          ],
        },
      ],
    };
    expect(referencedFlagIds(filters)).toEqual([3, 1]);
    expect(referencedFlagIds({})).toEqual([]);
    expect(referencedFlagIds("garbage")).toEqual([]);
  });
});

describe("filtersForUpdate", () => {
  const stored = { groups: [{ properties: [], rollout_percentage: 30 }] };

  it("keeps the stored filters when a PATCH sends filters without groups", () => {
    expect(filtersForUpdate(stored, { payloads: { true: "1" } })).toEqual({
      keepStored: true,
      filters: stored,
    });
  });

  it("passes filters with groups, or anything that is not an object, on to validation", () => {
    const incoming = { groups: [] };
    expect(filtersForUpdate(stored, incoming)).toEqual({ keepStored: false, filters: incoming });
    expect(filtersForUpdate(stored, null)).toEqual({ keepStored: false, filters: null });
  });
});

describe("dependentFlags", () => {
  it("lists active, non-deleted flags depending on the flag, ordered by key", () => {
    const flags = [
      flag(1, "base"),
      flag(2, "zeta", dependsOn(1)),
      flag(3, "alpha", dependsOn(5, 1)),
      flag(4, "off", dependsOn(1), { active: false }),
      flag(5, "gone", dependsOn(1), { deleted: true }),
      flag(6, "unrelated", dependsOn(11)),
      flag(7, "numeric", onePropertyGroup({ key: 1, type: "flag", value: true })),
    ];
    expect(dependentFlags(1, flags).map((f) => f.key)).toEqual(["alpha", "numeric", "zeta"]);
  });

  it("leaves out the flag itself and properties that are not flags", () => {
    const flags = [
      flag(1, "base", dependsOn(1)),
      flag(2, "person", onePropertyGroup({ key: "1", type: "person", value: true })),
      flag(3, "child", dependsOn(1)),
    ];
    expect(dependentFlags(1, flags).map((f) => f.key)).toEqual(["child"]);
  });

  it("does not count a flag filter whose key is a list, whose text is not the id", () => {
    const flags = [
      flag(1, "base"),
      flag(2, "listed", onePropertyGroup({ key: ["1"], type: "flag", value: true })),
    ];
    expect(dependentFlags(1, flags)).toEqual([]);
  });

  it("orders many dependents by key whatever their order", () => {
    const keys = ["m", "c", "x", "a", "q", "b", "z", "k", "d", "y", "e"];
    const flags = keys.map((key, i) => flag(10 + i, key, dependsOn(1)));
    expect(dependentFlags(1, flags).map((f) => f.key)).toEqual([...keys].sort());
  });
});

describe("checkActivationChange and checkDeletion", () => {
  const base = flag(1, "base");
  const dependents = Array.from({ length: 7 }, (_, i) => flag(10 + i, `dep-${i}`, dependsOn(1)));

  it("refuses to disable a flag other flags depend on", () => {
    expectRejected(() => checkActivationChange(base, false, [base, ...dependents.slice(0, 2)]), {
      detail:
        "Cannot disable this feature flag because other flags depend on it: dep-0 (ID: 10), dep-1 (ID: 11). " +
        "Please update or disable the dependent flags first.",
      attr: null,
    });
  });

  it("lists at most five dependents, then how many more", () => {
    expectRejected(() => checkActivationChange(base, false, [base, ...dependents]), {
      detail:
        "Cannot disable this feature flag because other flags depend on it: dep-0 (ID: 10), dep-1 (ID: 11), " +
        "dep-2 (ID: 12), dep-3 (ID: 13), dep-4 (ID: 14), and 2 more. " +
        "Please update or disable the dependent flags first.",
      attr: null,
    });
  });

  it("refuses to delete a flag other flags depend on", () => {
    expectRejected(() => checkDeletion(1, [base, ...dependents]), {
      detail:
        "Cannot delete this feature flag because other flags depend on it: dep-0 (ID: 10), dep-1 (ID: 11), " +
        "dep-2 (ID: 12), dep-3 (ID: 13), dep-4 (ID: 14), and 2 more. " +
        "Please update or delete the dependent flags first.",
      attr: null,
    });
  });

  it("refuses to enable a flag that depends on disabled flags", () => {
    const disabled = flag(1, "child", dependsOn(3, 2), { active: false });
    const flags = [
      disabled,
      flag(2, "parent-b", {}, { active: false }),
      flag(3, "parent-a", {}, { active: false }),
    ];
    expectRejected(() => checkActivationChange(disabled, true, flags), {
      detail:
        "Cannot enable this feature flag because it depends on disabled flags: parent-a (ID: 3), parent-b (ID: 2). " +
        "Please enable the dependency flags first.",
      attr: null,
    });
  });

  it("lists exactly five dependents without a count of more", () => {
    expectRejected(() => checkDeletion(1, [base, ...dependents.slice(0, 5)]), {
      detail:
        "Cannot delete this feature flag because other flags depend on it: dep-0 (ID: 10), dep-1 (ID: 11), " +
        "dep-2 (ID: 12), dep-3 (ID: 13), dep-4 (ID: 14). " +
        "Please update or delete the dependent flags first.",
      attr: null,
    });
  });

  it("does not check the dependencies of a flag that stays enabled", () => {
    const parent = flag(2, "parent", {}, { active: false });
    expect(() => checkActivationChange(flag(1, "child", dependsOn(2)), true, [parent])).not.toThrow();
  });

  it("allows changes that break no dependency", () => {
    expect(() => checkActivationChange(base, false, [base])).not.toThrow();
    expect(() => checkActivationChange(base, true, [base, ...dependents])).not.toThrow();
    expect(() =>
      checkActivationChange(flag(1, "x", dependsOn(2), { active: false }), true, [flag(2, "y")]),
    ).not.toThrow();
    expect(() => checkDeletion(2, [base, ...dependents])).not.toThrow();
  });
});

describe("validateFilters: conditions without properties, filters without groups", () => {
  it("accepts a condition without a properties list, as PostHog's get('properties', [])", () => {
    const filters = { groups: [{ rollout_percentage: 50 }] };
    expect(validateFilters(filters, context())).toEqual(filters);
  });

  it("adds no groups to filters sent without them on update", () => {
    expect(validateFilters({}, context({ isCreate: false }))).toEqual({});
  });

  it("refuses a group flag with a property of another type, even one carrying the group type index", () => {
    const filters = {
      aggregation_group_type_index: 0,
      groups: [
        {
          properties: [
            { key: "name", type: "group", group_type_index: 0, value: "acme", operator: "exact" },
            { key: "email", type: "person", group_type_index: 0, value: "a@b.com", operator: "exact" },
          ],
          rollout_percentage: 100,
        },
      ],
    };
    expectRejected(() => validateFilters(filters, context()), {
      detail: "Filters are not valid (can only use group properties)",
    });
  });
});
