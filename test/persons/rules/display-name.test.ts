import { describe, expect, it } from "vitest";
import {
  identifiedFirst,
  isAnonymousId,
  personDisplayName,
} from "../../../src/persons/rules/display-name.js";

describe("PostHog's person display name (posthog/api/person.py get_person_name_helper)", () => {
  it("takes the first set display property, in PostHog's order", () => {
    expect(personDisplayName(1n, { name: "Ada", email: "ada@example.com" }, ["ada"])).toBe("ada@example.com");
    expect(personDisplayName(1n, { Name: "Ada", $email: "a@b.c" }, ["ada"])).toBe("a@b.c");
    expect(personDisplayName(1n, { UserName: "ada_l" }, ["ada"])).toBe("ada_l");
  });

  it("skips values Python finds false, and keeps others as stored", () => {
    expect(personDisplayName(1n, { email: "", name: 0, username: [] }, ["ada"])).toBe("ada");
    expect(personDisplayName(1n, { email: 42 }, ["ada"])).toBe(42);
  });

  it("falls back to an identified distinct id, then any, then the integer id", () => {
    const anonymous = "0190aa00-1111-2222-3333-444455556666";
    expect(personDisplayName(7n, {}, [anonymous, "ada"])).toBe("ada");
    expect(personDisplayName(7n, null, [anonymous])).toBe(anonymous);
    expect(personDisplayName(7n, {}, [])).toBe("7");
  });
});

describe("anonymous distinct ids (posthog/utils.py ANONYMOUS_REGEX)", () => {
  it("are five lower-case alphanumeric groups joined by dashes", () => {
    expect(isAnonymousId("0190aa00-1111-2222-3333-444455556666")).toBe(true);
    expect(isAnonymousId("18f3c-1a-2b-3c-4d")).toBe(true);
    expect(isAnonymousId("0190AA00-1111-2222-3333-444455556666")).toBe(false);
    expect(isAnonymousId("a-b-c-d")).toBe(false);
    expect(isAnonymousId("ada@example.com")).toBe(false);
  });

  it("go after identified ones, each kind keeping its order", () => {
    expect(identifiedFirst(["a-b-c-d-e", "zed", "f-g-h-i-j", "ada"])).toEqual([
      "zed",
      "ada",
      "a-b-c-d-e",
      "f-g-h-i-j",
    ]);
  });
});
