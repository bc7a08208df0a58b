/**
 * The pure rules of the experiment actions on events: the exposure cohort's criteria
 * (rules/exposure-cohort.ts) and the legacy filter read by requires_flag_implementation
 * (rules/flag-implementation.ts).
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/core/errors.js";
import { exposureCohortFilters, legacyEntities } from "../../../src/experiments/rules/exposure-cohort.js";
import { flagImplementationSample } from "../../../src/experiments/rules/flag-implementation.js";

const START = new Date("2026-01-02T03:04:05.000Z");
const criterion = (filters: Record<string, unknown>) =>
  (filters["properties"] as { values: Array<{ values: Array<Record<string, unknown>> }> }).values[0]!
    .values[0]!;

describe("exposureCohortFilters", () => {
  it("defaults to $feature_flag_called with the flag's key since the start (Python isoformat)", () => {
    expect(criterion(exposureCohortFilters("my-flag", START, null))).toEqual({
      type: "behavioral",
      value: "performed_event",
      key: "$feature_flag_called",
      negation: false,
      event_type: "events",
      event_filters: [{ key: "$feature_flag", value: ["my-flag"], operator: "exact", type: "event" }],
      explicit_datetime: "2026-01-02T03:04:05+00:00",
    });
  });

  it("takes the first entity by order of the custom exposure filter, its properties typed event by default", () => {
    const parameters = {
      custom_exposure_filter: {
        events: JSON.stringify([
          { id: "second", order: 1 },
          { id: "first", order: 0, properties: { type: "AND", values: [{ key: "plan", value: "pro" }] } },
        ]),
      },
    };
    expect(criterion(exposureCohortFilters("k", START, parameters))).toMatchObject({
      key: "first",
      event_type: "events",
      event_filters: [{ key: "plan", value: "pro", type: "event" }],
    });
  });

  it("keeps an action's integer id, refuses one that is not (Invalid action ID)", () => {
    const action = (id: unknown) => ({ custom_exposure_filter: { actions: [{ id }] } });
    expect(criterion(exposureCohortFilters("k", START, action("7")))).toMatchObject({
      key: 7,
      event_type: "actions",
    });
    expect(() => exposureCohortFilters("k", START, action("seven"))).toThrow("Invalid action ID");
  });
});

describe("flagImplementationSample", () => {
  it("reads the distinct event names of the event entities, default limit 20, at most 100", () => {
    const query = new URLSearchParams({
      events: JSON.stringify([{ id: "b" }, { id: "a" }, { id: "b" }, { id: null }]),
      actions: JSON.stringify([{ id: 3 }]),
    });
    expect(flagImplementationSample(query)).toEqual({ events: ["a", "b"], limit: 20 });
    query.set("limit", "500");
    expect(flagImplementationSample(query).limit).toBe(100);
    query.set("limit", "0");
    expect(flagImplementationSample(query).limit).toBe(20);
  });

  it("refuses lists that are not JSON lists of objects, naming the parameter", () => {
    expect(() => legacyEntities({ events: "{" }, "events")).toThrow(ValidationError);
    expect(() => flagImplementationSample(new URLSearchParams({ actions: "[1]" }))).toThrow(
      "'actions' must be a list of entities.",
    );
  });
});
