/** PostHog's endpoint name rule (src/endpoints/rules/name.ts, `ENDPOINT_NAME_REGEX`). */
import { describe, expect, it } from "vitest";
import { isEndpointName } from "../../../src/endpoints/rules/name.js";

describe("isEndpointName", () => {
  it("takes a letter, then letters, digits, `_` and `-`, up to 128 characters", () => {
    for (const name of ["a", "Daily-signups_2", `a${"b".repeat(127)}`, "Z9-_"]) {
      expect(isEndpointName(name), name).toBe(true);
    }
  });

  it("refuses an empty name, a first character that is not a letter, other characters, and 129 characters", () => {
    for (const name of ["", "1abc", "_a", "-a", "a b", "a.b", "a/b", "é", "a\n", `a${"b".repeat(128)}`]) {
      expect(isEndpointName(name), JSON.stringify(name)).toBe(false);
    }
  });
});
