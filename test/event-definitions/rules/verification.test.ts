/** PostHog's verification rules of an event definition (src/event-definitions/rules/verification.ts). */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/core/errors.js";
import { nextVerification, UNVERIFIED } from "../../../src/event-definitions/rules/verification.js";

const then = new Date("2026-01-01T00:00:00Z");
const now = new Date("2026-02-01T00:00:00Z");
const verified = { verified: true, verifiedAt: then, verifiedById: 1, hidden: false };

describe("nextVerification", () => {
  it("refuses hidden and verified together", () => {
    expect(() => nextVerification(UNVERIFIED, { hidden: true, verified: true }, 2, now)).toThrow(
      new ValidationError("An event cannot be both hidden and verified"),
    );
  });

  it("stamps who and when on verifying an unverified event, and unhides it", () => {
    const hidden = { ...UNVERIFIED, hidden: true };
    expect(nextVerification(hidden, { verified: true }, 2, now)).toEqual({
      verified: true,
      verifiedAt: now,
      verifiedById: 2,
      hidden: false,
    });
  });

  it("keeps the first stamp when an event is verified again", () => {
    expect(nextVerification(verified, { verified: true }, 2, now)).toEqual(verified);
  });

  it("clears the stamp on unverifying and on hiding", () => {
    const cleared = { verified: false, verifiedAt: null, verifiedById: null };
    expect(nextVerification(verified, { verified: false }, 2, now)).toEqual({ ...cleared, hidden: false });
    expect(nextVerification(verified, { hidden: true }, 2, now)).toEqual({ ...cleared, hidden: true });
    expect(nextVerification(verified, { hidden: true, verified: false }, 2, now)).toEqual({
      ...cleared,
      hidden: true,
    });
  });

  it("keeps everything when neither is asked, and shows a hidden event on hidden: false", () => {
    expect(nextVerification(verified, {}, 2, now)).toEqual(verified);
    expect(nextVerification({ ...UNVERIFIED, hidden: true }, { hidden: false }, 2, now)).toEqual(UNVERIFIED);
  });
});
