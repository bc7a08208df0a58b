/** Date-times as Django REST framework writes them (src/rest/date-time.ts, issue 26 A2). */
import { describe, expect, it } from "vitest";
import { drfDateTime, drfDateTimeOrNull } from "../../src/rest/date-time.js";

describe("drfDateTime", () => {
  it("writes no fraction when the sub-second part is zero, and Z for UTC", () => {
    expect(drfDateTime(new Date("2024-02-10T00:00:00.000Z"))).toBe("2024-02-10T00:00:00Z");
  });

  it("writes six digits of fraction otherwise, as Python's isoformat() does", () => {
    expect(drfDateTime(new Date("2024-02-10T12:30:05.250Z"))).toBe("2024-02-10T12:30:05.250000Z");
    expect(drfDateTime(new Date("2024-02-10T12:30:05.001Z"))).toBe("2024-02-10T12:30:05.001000Z");
  });

  it("writes the UTC time whatever the process's zone, and null for no date", () => {
    expect(drfDateTime(new Date("2024-02-10T01:00:00+02:00"))).toBe("2024-02-09T23:00:00Z");
    expect(drfDateTimeOrNull(null)).toBeNull();
    expect(drfDateTimeOrNull(undefined)).toBeNull();
    expect(drfDateTimeOrNull(new Date(0))).toBe("1970-01-01T00:00:00Z");
  });
});
