/**
 * PostHog's `can_materialize()` rules (src/endpoints/rules/materialization.ts), on queries parsed by
 * PostHog's own HogQL parser.
 */
import { describe, expect, it } from "vitest";
import {
  canMaterialize,
  canMaterializeHere,
  syncIntervalMs,
} from "../../../src/endpoints/rules/materialization.js";
import { parseHogQLSelect } from "../../../src/lib/hogql/parser.js";

const hogql = async (text: string) =>
  canMaterialize({ kind: "HogQLQuery", query: text }, await parseHogQLSelect(text));

describe("canMaterialize", () => {
  it("takes HogQL without variables, and variables compared with a column in the WHERE", async () => {
    expect(await hogql("SELECT count() FROM events")).toEqual({ canMaterialize: true, reason: null });
    expect(
      await hogql(
        "SELECT count() FROM events WHERE event = {variables.e} AND timestamp >= {variables.since} AND properties.$browser ilike {variables.b}",
      ),
    ).toEqual({ canMaterialize: true, reason: null });
  });

  it("refuses variables outside a WHERE comparison with a column, naming them", async () => {
    const selected = await hogql("SELECT {variables.e}, count() FROM events");
    expect(selected.canMaterialize).toBe(false);
    expect(selected.reason).toMatch(/^Variables not supported: variable\(s\) e /);
    const ored = await hogql(
      "SELECT count() FROM events WHERE event = {variables.a} OR event = {variables.b}",
    );
    expect(ored.reason).toContain("a, b");
    const inequality = await hogql("SELECT count() FROM events WHERE event != {variables.a}");
    expect(inequality.canMaterialize).toBe(false);
  });

  it("refuses empty HogQL, other kinds and insights with more than one breakdown", () => {
    expect(canMaterialize({ kind: "HogQLQuery", query: " " }, null)).toEqual({
      canMaterialize: false,
      reason: "Query is empty or invalid.",
    });
    expect(canMaterialize({ kind: "EventsQuery" }, null).reason).toMatch(
      /^Query type 'EventsQuery' cannot be materialized\. Supported types: HogQLQuery, TrendsQuery/,
    );
    const trends = { kind: "TrendsQuery", series: [] };
    expect(
      canMaterialize({ ...trends, breakdownFilter: { breakdown: "$browser" } }, null).canMaterialize,
    ).toBe(true);
    expect(
      canMaterialize(
        { ...trends, breakdownFilter: { breakdowns: [{ property: "a" }, { property: "b" }] } },
        null,
      ),
    ).toEqual({ canMaterialize: false, reason: "Multiple breakdowns not supported for materialization" });
  });
});

describe("canMaterializeHere (what this service materializes)", () => {
  const hogqlCheck = async (text: string) =>
    canMaterializeHere({ kind: "HogQLQuery", query: text }, await parseHogQLSelect(text));

  it("materializes HogQL without variables", async () => {
    expect(await hogqlCheck("SELECT count() FROM events")).toEqual({ canMaterialize: true, reason: null });
  });

  it("keeps PostHog's older answer for variables, even where the newer rewrite would apply", async () => {
    const check = await hogqlCheck("SELECT count() FROM events WHERE event = {variables.e}");
    expect(check.canMaterialize).toBe(false);
    expect(check.reason).toMatch(/^Variables not supported: /);
  });

  it("refuses insight queries (their conversion to HogQL is not built), after PostHog's own rules", () => {
    expect(canMaterializeHere({ kind: "TrendsQuery", series: [] }, null).reason).toMatch(
      /^Query type 'TrendsQuery' cannot be materialized here: /,
    );
    expect(
      canMaterializeHere(
        { kind: "TrendsQuery", breakdownFilter: { breakdowns: [{ property: "a" }, { property: "b" }] } },
        null,
      ).reason,
    ).toBe("Multiple breakdowns not supported for materialization");
  });
});

describe("syncIntervalMs", () => {
  it("gives each of PostHog's frequencies its interval", () => {
    expect(syncIntervalMs("5min")).toBe(300_000);
    expect(syncIntervalMs("24hour")).toBe(86_400_000);
    expect(syncIntervalMs("30day")).toBe(30 * 86_400_000);
  });
});
