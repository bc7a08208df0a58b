import { describe, expect, it } from "vitest";
import { staticCohortName } from "../../../src/feature-flags/rules/static-cohort.js";

describe("staticCohortName", () => {
  it("names the flag and the time in UTC to the second, as PostHog's strftime does", () => {
    expect(staticCohortName("beta-ui", new Date("2025-03-04T05:06:07.890Z"))).toBe(
      "Users with feature flag beta-ui enabled at 2025-03-04 05:06:07",
    );
  });

  it("does not round up to the next second", () => {
    expect(staticCohortName("k", new Date("2025-12-31T23:59:59.999Z"))).toBe(
      "Users with feature flag k enabled at 2025-12-31 23:59:59",
    );
  });
});
