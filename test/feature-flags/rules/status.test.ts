/**
 * Flag status and the older "simple flag" fields (rules/status.ts) as PostHog's
 * `FeatureFlagStatusChecker` and `FeatureFlagSerializer` give them (posthog-behavior.md §2.2, §2.8).
 */
import { describe, expect, it } from "vitest";
import {
  flagStatus,
  flagStatusValue,
  isFullyRolledOut,
  isSimpleFlag,
  simpleRolloutPercentage,
} from "../../../src/feature-flags/rules/status.js";

const NOW = new Date("2025-11-15T12:00:00Z");
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 24 * 60 * 60 * 1000);
const fullyRolledOut = { groups: [{ properties: [], rollout_percentage: 100 }] };
const partlyRolledOut = { groups: [{ properties: [], rollout_percentage: 40 }] };

function status(flag: Partial<Parameters<typeof flagStatus>[0]>) {
  return flagStatus(
    {
      deleted: false,
      active: true,
      lastCalledAt: null,
      createdAt: daysAgo(1),
      filters: partlyRolledOut,
      ...flag,
    },
    NOW,
  );
}

describe("flagStatus", () => {
  it("reports a deleted flag as DELETED", () => {
    expect(status({ deleted: true, active: false })).toEqual({
      status: "DELETED",
      reason: "Flag has been deleted",
    });
  });

  it("does not judge a disabled flag's staleness", () => {
    expect(status({ active: false, lastCalledAt: daysAgo(90), createdAt: daysAgo(100) })).toEqual({
      status: "ACTIVE",
      reason: "Flag is disabled (not evaluated for staleness)",
    });
  });

  it("reports a flag called within 30 days as ACTIVE with how long ago", () => {
    expect(status({ lastCalledAt: daysAgo(0.5) })).toEqual({
      status: "ACTIVE",
      reason: "Flag was called today",
    });
    expect(status({ lastCalledAt: daysAgo(1) }).reason).toBe("Flag was last called 1 day ago");
    expect(status({ lastCalledAt: daysAgo(12.9) }).reason).toBe("Flag was last called 12 days ago");
    expect(status({ lastCalledAt: daysAgo(30) })).toEqual({
      status: "ACTIVE",
      reason: "Flag was last called 30 days ago",
    });
  });

  it("treats a call time in the future as today", () => {
    expect(status({ lastCalledAt: daysAgo(-0.1) }).reason).toBe("Flag was called today");
  });

  it("reports a flag not called for more than 30 days as STALE, whatever its rollout", () => {
    expect(status({ lastCalledAt: daysAgo(31), createdAt: daysAgo(200) })).toEqual({
      status: "STALE",
      reason: "Flag has not been called in 31 days",
    });
  });

  it("lets recent usage win over a fully rolled-out configuration", () => {
    expect(
      status({ lastCalledAt: daysAgo(2), createdAt: daysAgo(200), filters: fullyRolledOut }).status,
    ).toBe("ACTIVE");
  });

  it("reports an old, never-called, fully rolled-out boolean flag as STALE", () => {
    expect(status({ createdAt: daysAgo(31), filters: fullyRolledOut })).toEqual({
      status: "STALE",
      reason: 'This boolean flag will always evaluate to "true"',
    });
  });

  it("reports an old, never-called multivariate flag with one variant at 100% as STALE", () => {
    const filters = {
      ...fullyRolledOut,
      multivariate: {
        variants: [
          { key: "control", rollout_percentage: 0 },
          { key: "test", rollout_percentage: 100 },
        ],
      },
    };
    expect(status({ createdAt: daysAgo(45), filters })).toEqual({
      status: "STALE",
      reason: 'This flag will always use the variant "test"',
    });
  });

  it("names the override variant of a fully rolled-out condition", () => {
    const filters = {
      groups: [{ properties: [], rollout_percentage: 100, variant: "control" }],
      multivariate: {
        variants: [
          { key: "control", rollout_percentage: 50 },
          { key: "test", rollout_percentage: 50 },
        ],
      },
    };
    expect(status({ createdAt: daysAgo(45), filters }).reason).toBe(
      'This flag will always use the variant "control"',
    );
  });

  it("names an empty variant key as PostHog does, and skips an empty override for the 100% variant", () => {
    // Stored data only (validateFilters refuses empty keys): PostHog's `override or key or ""`
    // (posthog/models/feature_flag/flag_status.py) prints it as "".
    const variants = (key: string) => [
      { key, rollout_percentage: 100 },
      { key: "other", rollout_percentage: 0 },
    ];
    const empty = {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: variants("") },
    };
    expect(status({ createdAt: daysAgo(45), filters: empty })).toEqual({
      status: "STALE",
      reason: 'This flag will always use the variant ""',
    });
    const emptyOverride = {
      groups: [{ properties: [], rollout_percentage: 100, variant: "" }],
      multivariate: { variants: variants("test") },
    };
    expect(status({ createdAt: daysAgo(45), filters: emptyOverride }).reason).toBe(
      'This flag will always use the variant "test"',
    );
  });

  it("reports a never-called flag as having no usage data when it is new or not fully rolled out", () => {
    const noUsage = { status: "ACTIVE", reason: "Flag has no usage data yet" };
    expect(status({ createdAt: daysAgo(29), filters: fullyRolledOut })).toEqual(noUsage);
    // Exactly 30 days old is not yet stale: only a creation before the cutoff is.
    expect(status({ createdAt: daysAgo(30), filters: fullyRolledOut })).toEqual(noUsage);
    expect(status({ createdAt: daysAgo(90), filters: partlyRolledOut })).toEqual(noUsage);
  });
});

describe("isFullyRolledOut", () => {
  it("counts empty filters and a 100% condition without properties for boolean flags", () => {
    expect(isFullyRolledOut({})).toBe(true);
    expect(isFullyRolledOut(fullyRolledOut)).toBe(true);
    expect(isFullyRolledOut({ ...fullyRolledOut, multivariate: {} })).toBe(true);
    expect(isFullyRolledOut(partlyRolledOut)).toBe(false);
    expect(
      isFullyRolledOut({ groups: [{ properties: [{ key: "email", value: "x" }], rollout_percentage: 100 }] }),
    ).toBe(false);
    expect(isFullyRolledOut({ groups: [] })).toBe(false);
  });

  it("requires a 100% condition and a 100% variant or override for multivariate flags", () => {
    const split = {
      variants: [
        { key: "a", rollout_percentage: 50 },
        { key: "b", rollout_percentage: 50 },
      ],
    };
    expect(isFullyRolledOut({ ...fullyRolledOut, multivariate: split })).toBe(false);
    const allB = { variants: [{ key: "b", rollout_percentage: 100 }] };
    expect(isFullyRolledOut({ ...partlyRolledOut, multivariate: allB })).toBe(false);
    expect(isFullyRolledOut({ ...fullyRolledOut, multivariate: allB })).toBe(true);
  });
});

describe("isSimpleFlag and simpleRolloutPercentage", () => {
  it("treats a single condition without properties on a person flag as simple", () => {
    expect(isSimpleFlag(partlyRolledOut)).toBe(true);
    expect(simpleRolloutPercentage(partlyRolledOut)).toBe(40);
    expect(simpleRolloutPercentage({ groups: [{ properties: [], rollout_percentage: null }] })).toBeNull();
  });

  it("does not treat conditions with properties, several conditions or group flags as simple", () => {
    const cases = [
      { groups: [{ properties: [{ key: "email", type: "person", value: "x" }], rollout_percentage: 10 }] },
      { groups: [...partlyRolledOut.groups, ...fullyRolledOut.groups] },
      { ...partlyRolledOut, aggregation_group_type_index: 0 },
      { groups: [] },
    ];
    for (const filters of cases) {
      expect(isSimpleFlag(filters)).toBe(false);
      expect(simpleRolloutPercentage(filters)).toBeNull();
    }
  });

  it("reads legacy filters without groups as one condition with the legacy rollout", () => {
    expect(isSimpleFlag({})).toBe(true);
    expect(simpleRolloutPercentage({}, 25)).toBe(25);
    expect(simpleRolloutPercentage({})).toBeNull();
    expect(isSimpleFlag({ properties: [{ key: "email", type: "person", value: "x" }] })).toBe(false);
  });
});

describe("status readers of malformed stored filters", () => {
  it("reads no filters at all as rolled out to everyone", () => {
    expect(isFullyRolledOut(null)).toBe(true);
    expect(isFullyRolledOut(undefined)).toBe(true);
    expect(isFullyRolledOut([])).toBe(false);
  });

  it("skips variants that are not objects", () => {
    const filters = {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: [null, { key: "test", rollout_percentage: 100 }] },
    };
    expect(status({ createdAt: daysAgo(45), filters }).reason).toBe(
      'This flag will always use the variant "test"',
    );
  });

  it("has no rollout percentage for a simple flag whose group has none", () => {
    expect(simpleRolloutPercentage({ groups: [{ properties: [] }] })).toBeNull();
    expect(simpleRolloutPercentage({ groups: [{ properties: [], rollout_percentage: 30 }] })).toBe(30);
  });
});

describe("flagStatusValue and legacy filters without groups", () => {
  it("answers GET :id/status with the status's enum value", () => {
    expect(flagStatusValue("ACTIVE")).toBe("active");
    expect(flagStatusValue("STALE")).toBe("stale");
  });

  it("reads legacy filters without properties as one condition for everyone, a simple flag", () => {
    expect(isSimpleFlag({})).toBe(true);
    expect(simpleRolloutPercentage({}, 30)).toBe(30);
  });
});
