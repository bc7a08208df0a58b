/** How dependent flags are shown (posthog/api/feature_flag.py `has_active_dependents`, §2.6). */
import { describe, expect, it } from "vitest";
import {
  dependentFlagEntry,
  dependentsWarning,
  referencedFlagIds,
} from "../../../src/feature-flags/rules/flag-dependencies.js";

describe("dependentFlagEntry", () => {
  it("shows the flag's name, or its key when the name is blank", () => {
    expect(dependentFlagEntry({ id: 1, key: "beta", name: "Beta users" })).toEqual({
      id: 1,
      key: "beta",
      name: "Beta users",
    });
    expect(dependentFlagEntry({ id: 2, key: "beta", name: "" })).toEqual({
      id: 2,
      key: "beta",
      name: "beta",
    });
  });
});

describe("dependentsWarning", () => {
  it("says how many active flags depend on the flag, singular and plural", () => {
    expect(dependentsWarning(1)).toBe(
      "This feature flag is used by 1 other active flag: it cannot be disabled or deleted until that flag no longer depends on it.",
    );
    expect(dependentsWarning(3)).toBe(
      "This feature flag is used by 3 other active flags: it cannot be disabled or deleted until those flags no longer depend on it.",
    );
  });
});

describe("referencedFlagIds", () => {
  it("reads only flag properties' keys", () => {
    const filters = {
      groups: [
        {
          properties: [
            { key: "3", type: "person" },
            { key: "4", type: "flag" },
          ],
        },
      ],
    };
    expect(referencedFlagIds(filters)).toEqual([4]);
  });
});
