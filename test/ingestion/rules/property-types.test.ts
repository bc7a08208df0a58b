/** Property type inference, with cases of rust/property-defs-rs/src/types.rs `detect_property_type`. */
import { describe, expect, it } from "vitest";
import { detectPropertyType } from "../../../src/ingestion/rules/property-types.js";

const NOW = new Date("2026-11-23T12:00:00Z");
const detect = (key: string, value: unknown) => detectPropertyType(key, value, NOW);

describe("detectPropertyType", () => {
  it("keeps utm_, $feature/, $feature_flag_response and $survey_response* as strings", () => {
    expect(detect("utm_campaign", 42)).toBe("String");
    expect(detect("UTM_SOURCE", true)).toBe("String");
    expect(detect("$feature/beta", true)).toBe("String");
    expect(detect("$feature_flag_response", false)).toBe("String");
    expect(detect("$survey_response_2", 3)).toBe("String");
  });

  it("finds date-times by key and value: date strings, and recent Unix seconds under a time key", () => {
    expect(detect("created_at", "2024-05-01T10:00:00Z")).toBe("DateTime");
    expect(detect("signup_date", "01/05/2024")).toBe("DateTime");
    expect(detect("last_login_time", Math.floor(NOW.getTime() / 1000) - 60)).toBe("DateTime");
    expect(detect("last_login_time", 1_000)).toBe("Numeric");
    expect(detect("anything", "2024-05-01 10:00:00")).toBe("DateTime");
  });

  it("classifies other values by type", () => {
    expect(detect("flag", "true")).toBe("Boolean");
    expect(detect("flag", " FALSE ")).toBe("Boolean");
    expect(detect("flag", "True")).toBe("String");
    expect(detect("count", 3.5)).toBe("Numeric");
    expect(detect("active", false)).toBe("Boolean");
    expect(detect("name", "Ada")).toBe("String");
    expect(detect("list", [1])).toBeNull();
    expect(detect("object", { a: 1 })).toBeNull();
    expect(detect("none", null)).toBeNull();
  });
});
