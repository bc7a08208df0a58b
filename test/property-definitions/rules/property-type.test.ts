/**
 * PostHog's rules of a property definition's writes, pure: `is_numerical` follows a `property_type`
 * set through the API (src/property-definitions/rules/property-type.ts), and the verification rules
 * shared with event definitions answer with the property's own message.
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/core/errors.js";
import { nextVerification, UNVERIFIED } from "../../../src/event-definitions/rules/verification.js";
import { PROPERTY_TYPES } from "../../../src/property-definitions/property-definitions.schemas.js";
import { isNumericalType } from "../../../src/property-definitions/rules/property-type.js";

describe("isNumericalType", () => {
  it("is true for Numeric only, and false when the type is cleared", () => {
    expect(PROPERTY_TYPES.filter(isNumericalType)).toEqual(["Numeric"]);
    expect(isNumericalType(null)).toBe(false);
  });
});

describe("the verification rules with a property's message", () => {
  it("refuses hidden and verified together with PostHog's property message", () => {
    const message = "A property cannot be both hidden and verified";
    expect(() =>
      nextVerification(UNVERIFIED, { hidden: true, verified: true }, 1, new Date(), message),
    ).toThrow(new ValidationError(message));
  });
});
