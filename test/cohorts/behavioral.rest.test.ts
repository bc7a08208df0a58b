/**
 * Behavioral cohorts calculated from captured events, on both backends: `performed_event` and
 * `performed_event_multiple` (relative windows, `explicit_datetime`, count operators, event
 * filters, negation) through the cohort count, its persons, its static copy, and the query
 * engine's cohort filters (Trends and HogQL `{filters}`); the other behavioral values refused.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { runHogQL } from "../lib/hogql/fixtures.js";
import { type CaptureEvent, capture } from "../queries/trends/fixture.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

const NOW = new Date("2026-06-15T12:00:00.000Z");
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();

const cohortsPath = (s: TestServer, suffix = "") => `/api/projects/${s.projectId}/cohorts/${suffix}`;
const criteria = (...values: unknown[]) => ({
  properties: { type: "OR", values: [{ type: "AND", values }] },
});
const performed = (extra: Record<string, unknown> = {}) => ({
  type: "behavioral",
  key: "$pageview",
  value: "performed_event",
  event_type: "events",
  time_value: 7,
  time_interval: "day",
  ...extra,
});

/** ann: 3 pricing pageviews this week; ben: one pageview 10 days ago; cal: one other pageview yesterday; dee: a purchase only. */
const EVENTS: CaptureEvent[] = [
  ...[1, 2, 3].map((d) => ({
    event: "$pageview",
    distinct_id: "ann",
    timestamp: daysAgo(d),
    properties: { $current_url: "https://acme.com/pricing", $set: { name: "ann" } },
  })),
  {
    event: "$pageview",
    distinct_id: "ben",
    timestamp: daysAgo(10),
    properties: { $current_url: "https://acme.com/", $set: { name: "ben" } },
  },
  {
    event: "$pageview",
    distinct_id: "cal",
    timestamp: daysAgo(1),
    properties: { $current_url: "https://acme.com/docs", $set: { name: "cal" } },
  },
  { event: "purchase", distinct_id: "dee", timestamp: daysAgo(1), properties: { $set: { name: "dee" } } },
];

describeEachBackend(
  "behavioral cohorts over REST",
  (server) => {
    beforeAll(async () => {
      const s = server();
      await capture(s, s.projectId, EVENTS);
    });

    async function create(filters: unknown, name = "Behavioral") {
      const s = server();
      const response = await s.request("POST", cohortsPath(s), { body: { name, filters } });
      expect(response.status, response.text).toBe(201);
      return response.body;
    }

    async function members(id: number): Promise<string[]> {
      const s = server();
      const response = await s.request("GET", cohortsPath(s, `${id}/persons/`));
      expect(response.status, response.text).toBe(200);
      return response.body.results.map((p: { properties: { name: string } }) => p.properties.name).sort();
    }

    it("counts and lists the persons who performed an event in a relative window", async () => {
      const cohort = await create(criteria(performed()));
      expect(cohort).toMatchObject({ count: 2, cohort_type: "behavioral", is_calculating: false });
      expect(await members(cohort.id)).toEqual(["ann", "cal"]);
      const wider = await create(criteria(performed({ time_value: 2, time_interval: "week" })));
      expect(await members(wider.id)).toEqual(["ann", "ben", "cal"]);
    });

    it("reads explicit_datetime (relative or ISO) and explicit_datetime_to", async () => {
      const relative = await create(criteria(performed({ explicit_datetime: "-14d" })));
      expect(await members(relative.id)).toEqual(["ann", "ben", "cal"]);
      const bounded = await create(
        criteria(performed({ explicit_datetime: daysAgo(14), explicit_datetime_to: daysAgo(5) })),
      );
      expect(await members(bounded.id)).toEqual(["ben"]);
    });

    it("applies event filters to the counted events, and negation to the criterion", async () => {
      const pricing = await create(
        criteria(
          performed({
            event_filters: [{ key: "$current_url", value: "pricing", operator: "icontains", type: "event" }],
          }),
        ),
      );
      expect(await members(pricing.id)).toEqual(["ann"]);
      const absent = await create(criteria(performed({ negation: true })));
      expect(await members(absent.id)).toEqual(["ben", "dee"]);
    });

    it("compares counts for performed_event_multiple, counting only persons with events", async () => {
      const multiple = (operator: string, operator_value: number) =>
        performed({ value: "performed_event_multiple", operator, operator_value });
      expect(await members((await create(criteria(multiple("gte", 2)))).id)).toEqual(["ann"]);
      expect(await members((await create(criteria(multiple("exact", 1)))).id)).toEqual(["cal"]);
      // ben's and dee's zero events this week do not count as fewer than 2 (PostHog's events query).
      expect(await members((await create(criteria(multiple("lt", 2)))).id)).toEqual(["cal"]);
    });

    it("copies the members into a static cohort and nests in other cohorts", async () => {
      const s = server();
      const cohort = await create(criteria(performed()));
      const copy = await s.request("GET", cohortsPath(s, `${cohort.id}/duplicate_as_static_cohort/`));
      expect(copy.status, copy.text).toBe(200);
      expect(copy.body).toMatchObject({ is_static: true, count: 2 });
      const nested = await create(
        criteria(
          { type: "cohort", key: "id", value: cohort.id },
          { type: "person", key: "name", value: "cal", operator: "is_not" },
        ),
      );
      expect(await members(nested.id)).toEqual(["ann"]);
    });

    it("filters Trends and HogQL {filters} by a behavioral cohort through the same translation", async () => {
      const s = server();
      const cohort = await create(criteria(performed()));
      const cohortFilter = [{ key: "id", value: cohort.id, type: "cohort" }];
      const trends = await s.request("POST", `/api/projects/${s.projectId}/query/`, {
        body: {
          query: {
            kind: "TrendsQuery",
            series: [{ kind: "EventsNode", event: "$pageview", math: "total" }],
            dateRange: { date_from: daysAgo(20).slice(0, 10), date_to: NOW.toISOString().slice(0, 10) },
            properties: cohortFilter,
          },
        },
      });
      expect(trends.status, trends.text).toBe(200);
      expect(trends.body.results[0].count).toBe(4);
      const hogql = await runHogQL(
        s,
        "SELECT distinct_id, count() FROM events WHERE {filters} GROUP BY distinct_id ORDER BY distinct_id",
        { filters: { properties: cohortFilter } },
      );
      expect(hogql.status, hogql.text).toBe(200);
      expect(hogql.body.results).toEqual([
        ["ann", 3],
        ["cal", 1],
      ]);
    });

    describe("criteria not calculated, and malformed ones", () => {
      it("stores other behavioral values with a null count and refuses their members, naming them", async () => {
        const s = server();
        const first = await create(criteria(performed({ value: "performed_event_first_time" })));
        expect(first.count).toBeNull();
        const persons = await s.request("GET", cohortsPath(s, `${first.id}/persons/`));
        expect(persons.status).toBe(501);
        expect(persons.body.detail).toContain("'performed_event_first_time'");
        const actions = await create(criteria(performed({ event_type: "actions", key: 3 })));
        expect(actions.count).toBeNull();
        const refused = await s.request("GET", cohortsPath(s, `${actions.id}/persons/`));
        expect(refused.body.detail).toContain("no actions");
      });

      it("refuses calculable criteria whose parameters are missing or malformed (400, attr filters)", async () => {
        const s = server();
        for (const [extra, detail] of [
          [{ time_value: undefined }, "time_value cannot be None"],
          [{ time_value: 0 }, "time_value must be greater than 0, got 0"],
          [{ time_interval: "fortnight" }, "Invalid interval: fortnight"],
          [{ event_type: undefined }, "Event type must be 'events' or 'actions'"],
          [{ explicit_datetime: "yesterday" }, "explicit_datetime must be a relative date"],
          [{ value: "performed_event_multiple", operator_value: 2, operator: "between" }, "count_operator"],
          [
            { event_filters: [{ key: "email", value: "x", operator: "exact", type: "person" }] },
            "not supported",
          ],
        ] as const) {
          const response = await s.request("POST", cohortsPath(s), {
            body: { name: "Bad", filters: criteria(performed(extra)) },
          });
          expect(response.status, JSON.stringify(extra)).toBe(400);
          expect(response.body.attr).toBe("filters");
          expect(response.body.detail).toContain(detail);
        }
        const regex = await s.request("POST", cohortsPath(s), {
          body: {
            name: "Bad regex",
            filters: criteria(
              performed({
                event_filters: [{ key: "$current_url", value: "(", operator: "regex", type: "event" }],
              }),
            ),
          },
        });
        expect(regex.body).toMatchObject({ code: "invalid_regex" });
      });
    });
  },
  { now: () => NOW },
);
