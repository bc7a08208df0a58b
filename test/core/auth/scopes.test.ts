/**
 * API scopes as PostHog checks them (posthog/scopes.py, posthog/permissions.py): what a key's
 * granted scopes satisfy, the 403 for a missing one, and what a new key may be given.
 */
import { describe, expect, it } from "vitest";
import {
  ALL_SCOPES,
  requireScope,
  SCOPE_OBJECTS,
  scopeSatisfied,
  validateScopes,
} from "../../../src/core/auth/scopes.js";
import { PermissionDeniedError, ValidationError } from "../../../src/core/errors.js";

describe("scopeSatisfied", () => {
  it("takes `*` for every scope", () => {
    expect(scopeSatisfied(["*"], "feature_flag:write")).toBe(true);
    expect(scopeSatisfied(["*"], "cohort:read")).toBe(true);
  });

  it("takes the exact scope", () => {
    expect(scopeSatisfied(["feature_flag:read"], "feature_flag:read")).toBe(true);
    expect(scopeSatisfied(["cohort:read", "feature_flag:write"], "feature_flag:write")).toBe(true);
  });

  it("takes `X:write` for `X:read`, not `X:read` for `X:write`", () => {
    expect(scopeSatisfied(["feature_flag:write"], "feature_flag:read")).toBe(true);
    expect(scopeSatisfied(["feature_flag:read"], "feature_flag:write")).toBe(false);
  });

  it("does not take another object's scope", () => {
    expect(scopeSatisfied(["cohort:write"], "feature_flag:read")).toBe(false);
    expect(scopeSatisfied(["cohort:write"], "feature_flag:write")).toBe(false);
    expect(scopeSatisfied([], "feature_flag:read")).toBe(false);
  });
});

describe("requireScope", () => {
  it("passes a satisfied scope", () => {
    expect(() => requireScope(["experiment:write"], "experiment:read")).not.toThrow();
  });

  it("answers a missing one with PostHog's 403", () => {
    const check = () => requireScope(["experiment:read"], "experiment:write");
    expect(check).toThrow(PermissionDeniedError);
    expect(check).toThrow("API key missing required scope 'experiment:write'");
  });
});

describe("validateScopes", () => {
  it("lists `*` first, then read and write of each object", () => {
    expect(ALL_SCOPES[0]).toBe("*");
    expect(ALL_SCOPES).toHaveLength(1 + 2 * SCOPE_OBJECTS.length);
    expect(ALL_SCOPES.slice(1, 3)).toEqual(["activity_log:read", "activity_log:write"]);
  });

  it("keeps known scopes once each, in order", () => {
    expect(validateScopes(["feature_flag:read", "*", "feature_flag:read"])).toEqual([
      "feature_flag:read",
      "*",
    ]);
  });

  it("refuses an empty list as a required field", () => {
    expect(() => validateScopes([])).toThrow(
      expect.objectContaining({ message: "This field is required.", attr: "scopes", code: "required" }),
    );
    expect(() => validateScopes([])).toThrow(ValidationError);
  });

  it("refuses an unknown scope, naming it", () => {
    const unknown = () => validateScopes(["feature_flag:read", "feature_flag:admin"]);
    expect(unknown).toThrow(ValidationError);
    expect(unknown).toThrow(
      expect.objectContaining({
        message: "Invalid scope: feature_flag:admin",
        attr: "scopes",
        code: "invalid_input",
      }),
    );
  });
});
