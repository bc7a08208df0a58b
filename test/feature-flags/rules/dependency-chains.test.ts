/**
 * The local-evaluation payload's flag dependencies (src/feature-flags/rules/dependency-chains.ts),
 * checked against the cases of PostHog's `TestFeatureFlagDependencyTransformation`
 * (`posthog/api/test/test_feature_flag_dependency_transformation.py`): ids read as keys, chains in
 * evaluation order, and empty chains for missing, self and circular dependencies.
 */
import { describe, expect, it } from "vitest";
import { type ChainFlag, withDependencyChains } from "../../../src/feature-flags/rules/dependency-chains.js";

function on(id: number | string, value: unknown = true): Record<string, unknown> {
  return { key: String(id), type: "flag", operator: "flag_evaluates_to", value };
}

function flag(id: number, key: string, ...dependencies: Record<string, unknown>[]): ChainFlag {
  return { id, key, filters: { groups: [{ properties: dependencies, rollout_percentage: 100 }] } };
}

/** The `flag` filters of each flag after the transformation, by flag key. */
function flagFiltersOf(flags: ChainFlag[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  withDependencyChains(flags).forEach((filters, index) => {
    const groups = filters["groups"] as Array<{ properties: unknown[] }>;
    out[flags[index]!.key] = groups.flatMap((group) => group.properties);
  });
  return out;
}

describe("withDependencyChains", () => {
  it("names dependencies by key with the chain to evaluate first, dependencies first", () => {
    const flags = [flag(1, "base"), flag(2, "middle", on(1)), flag(3, "top", on(2, "control"))];
    const result = flagFiltersOf(flags);
    expect(result["middle"]).toEqual([{ ...on("base"), dependency_chain: ["base"] }]);
    expect(result["top"]).toEqual([{ ...on("middle", "control"), dependency_chain: ["base", "middle"] }]);
    expect(result["base"]).toEqual([]);
  });

  it("shares dependencies in a diamond once, in depth-first order", () => {
    const flags = [flag(1, "a"), flag(2, "b", on(1)), flag(3, "c", on(1)), flag(4, "d", on(2), on(3))];
    const result = flagFiltersOf(flags);
    expect(result["d"]).toEqual([
      { ...on("b"), dependency_chain: ["a", "b"] },
      { ...on("c"), dependency_chain: ["a", "c"] },
    ]);
  });

  it("sends an empty chain for a missing flag, keeping its id as the key", () => {
    expect(flagFiltersOf([flag(1, "orphan", on(99))])["orphan"]).toEqual([
      { ...on("99"), dependency_chain: [] },
    ]);
  });

  it("sends an empty chain for a flag that depends on itself or on a cycle", () => {
    const flags = [flag(1, "self", on(1)), flag(2, "x", on(3)), flag(3, "y", on(2)), flag(4, "z", on(2))];
    const result = flagFiltersOf(flags);
    expect(result["self"]).toEqual([{ ...on("self"), dependency_chain: [] }]);
    expect(result["x"]).toEqual([{ ...on("y"), dependency_chain: [] }]);
    expect(result["z"]).toEqual([{ ...on("x"), dependency_chain: [] }]);
  });

  it("empties the chain of a dependency whose own dependency is missing", () => {
    const flags = [flag(1, "broken", on(42)), flag(2, "user", on(1))];
    expect(flagFiltersOf(flags)["user"]).toEqual([{ ...on("broken"), dependency_chain: [] }]);
  });

  it("reads a reference by key as PostHog does, and leaves flags without dependencies untouched", () => {
    const flags = [flag(1, "base"), flag(2, "by-key", on("base"))];
    const filters = withDependencyChains(flags);
    expect(filters[0]).toBe(flags[0]!.filters);
    expect((filters[1]!["groups"] as Array<{ properties: unknown[] }>)[0]!.properties).toEqual([
      { ...on("base"), dependency_chain: ["base"] },
    ]);
    expect(flags[1]!.filters).toEqual({ groups: [{ properties: [on("base")], rollout_percentage: 100 }] });
  });

  it("walks a long chain (each flag's chain lists all flags below it, so the payload grows as its square)", () => {
    const flags = [flag(0, "f0")];
    for (let id = 1; id < 2_000; id++) flags.push(flag(id, `f${id}`, on(id - 1)));
    const last = flagFiltersOf(flags)["f1999"]![0] as { dependency_chain: string[] };
    expect(last.dependency_chain).toHaveLength(1_999);
    expect(last.dependency_chain.slice(0, 2)).toEqual(["f0", "f1"]);
    expect(last.dependency_chain.at(-1)).toBe("f1998");
  });
});

describe("withDependencyChains on malformed stored filters", () => {
  it("keeps what is not a flag filter as it is, and reads a missing key as no flag", () => {
    const filters = {
      groups: [
        "not a group",
        { properties: "not a list" },
        {
          properties: [
            null,
            { key: "email", type: "person", value: "x" },
            { type: "flag", value: true },
            on(1),
          ],
        },
      ],
    };
    const [, result] = withDependencyChains([flag(1, "base"), { id: 2, key: "odd", filters }]);
    expect(result).toEqual({
      groups: [
        "not a group",
        { properties: "not a list" },
        {
          properties: [
            null,
            { key: "email", type: "person", value: "x" },
            { type: "flag", value: true, key: "", dependency_chain: [] },
            { ...on("base"), dependency_chain: ["base"] },
          ],
        },
      ],
    });
  });

  it("gives every flag depending on a self-dependent flag an empty chain", () => {
    const flags = [flag(1, "self", on(1)), flag(2, "x", on(1)), flag(3, "y", on(1))];
    const result = flagFiltersOf(flags);
    expect(result["x"]).toEqual([{ ...on("self"), dependency_chain: [] }]);
    expect(result["y"]).toEqual([{ ...on("self"), dependency_chain: [] }]);
  });

  it("reads filters without groups or with groups not a list as having no flag filters", () => {
    const flags: ChainFlag[] = [
      { id: 1, key: "a", filters: {} },
      { id: 2, key: "b", filters: { groups: { properties: [on(1)] } } },
    ];
    const result = withDependencyChains(flags);
    expect(result[0]).toBe(flags[0]!.filters);
    expect(result[1]).toBe(flags[1]!.filters);
  });
});

describe("withDependencyChains: walks and filters PostHog reads as empty", () => {
  it("lists a dependency shared further down once, in a chain through a diamond", () => {
    const flags = [
      flag(1, "a"),
      flag(2, "b", on(1)),
      flag(3, "c", on(1)),
      flag(4, "d", on(2), on(3)),
      flag(5, "e", on(4)),
    ];
    expect(flagFiltersOf(flags)["e"]).toEqual([{ ...on("d"), dependency_chain: ["a", "b", "c", "d"] }]);
  });

  it("skips a dependency's filter on itself below the root", () => {
    const flags = [flag(1, "top", on(2)), flag(2, "middle", on(3)), flag(3, "base", on(3))];
    expect(flagFiltersOf(flags)["top"]).toEqual([{ ...on("middle"), dependency_chain: ["base", "middle"] }]);
  });

  it("reads a condition without properties as no dependency", () => {
    const base: ChainFlag = { id: 1, key: "base", filters: { groups: [{ rollout_percentage: 100 }] } };
    expect(flagFiltersOf([base, flag(2, "top", on(1))])["top"]).toEqual([
      { ...on("base"), dependency_chain: ["base"] },
    ]);
  });

  it("sends a flag filter without a key with an empty key and an empty chain", () => {
    const keyless = { ...on(1), key: null };
    expect(flagFiltersOf([flag(1, "null"), flag(2, "top", keyless)])["top"]).toEqual([
      { ...keyless, key: "", dependency_chain: [] },
    ]);
  });
});
