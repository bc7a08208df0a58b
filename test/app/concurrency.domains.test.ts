/**
 * Concurrency of the other domains' writes (issue 13 item 1, the sibling of concurrency.graphql.test.ts,
 * same style): many writers of one object at once through the real HTTP server, every request fired
 * before any answer is read, on PGlite (one connection: the transactions are serialised, but the
 * reads before them interleave) and PostgreSQL (a pool: the writes truly overlap).
 *
 * What "conflicting writers" means here, for holdouts, saved metrics, cohorts, event definitions,
 * schema property groups, event schemas, property definitions, webhooks and endpoints (none has a
 * `version`; each write locks the object's row and decides from the locked row, src/core/row-lock.ts):
 * - 50 concurrent DELETEs of one object (PATCH `deleted: true` for cohorts, which PostHog never hard
 *   deletes): the first deletes it (204) and logs one `deleted` entry; the 49 after it find it gone
 *   and get PostHog's 404 `Not found.`, with no entry (a soft-deleted cohort still answers 200, as
 *   PostHog's, but only the first PATCH changes it and is logged).
 * - 50 concurrent PATCHes of one field, each a different value: all 200, each applied on top of the
 *   one before it, so the stored value is one of them and the 50 entries (`updated`, or `changed` for
 *   the definitions and property groups, as PostHog logs them) form one chain from the original
 *   value: each entry's `before` is another's `after`, no two share a `before`, none is lost.
 * Dashboards have no update or delete route; their one locked write, enriching a flag's usage
 * dashboard: 50 concurrent calls add the enriched insights once (one 200, 49 × PostHog's 400
 * `Usage dashboard already has enriched data`).
 * A flag create that frees its key from a soft-deleted flag locks that flag's row: 50 concurrent
 * creates reusing one such key store one flag (one 201, 49 × PostHog's 400 `There is already a
 * feature flag with this key.`; the late ones found the old row gone, which was a 500).
 * Writes of an object's parts lock the object too:
 * - 50 concurrent `PATCH endpoints/:name/?version=1` setting `is_active: false`: all 200, the
 *   version is inactive, and one `updated` entry logs the change (the rest change nothing).
 * - 50 concurrent additions of distinct persons to one static cohort: all 200, all 50 are members,
 *   the stored count is 50 and each addition is logged (`persons_added_manually`); 50 concurrent
 *   removals of them leave none, count 0, 50 × `person_removed_manually`; 50 concurrent removals
 *   of one person: one 200, 49 × PostHog's 404 `Person is not part of the cohort`, one entry.
 */
import { describe, expect, it } from "vitest";
import { insertPersons } from "../support/people.js";
import { describeEachBackend, type TestServer } from "../support/server.js";
import { createEventDefinition, createSchemaPropertyGroup } from "../support/tenancy.js";
import { statusCounts, together } from "../support/together.js";

const WRITERS = 50;

/** One object to race on: its REST path, its activity scope and item id. */
type Target = { path: string; scope: string; itemId: string };

/** A domain under test: how to make one object, and which field its PATCHes change. */
type Domain = {
  name: string;
  make(s: TestServer, label: string): Promise<Target>;
  /** The field the PATCHes set (absent: the domain has no PATCH, e.g. event schemas). */
  field?: string;
  /** The activity name of an update (`updated`; `changed` where PostHog logs that). */
  updated?: string;
  /** The body that deletes the object through PATCH instead of DELETE (cohorts). */
  softDelete?: Record<string, unknown>;
};

const project = (s: TestServer) => `/api/projects/${s.projectId}`;

/** POSTs `body` to `collection` and expects 201. */
async function made(s: TestServer, collection: string, body: Record<string, unknown>) {
  const answer = await s.request("POST", `${project(s)}/${collection}/`, { body });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

const DOMAINS: Domain[] = [
  {
    name: "experiment holdouts",
    field: "name",
    async make(s, label) {
      const body = await made(s, "experiment_holdouts", { name: label, filters: [] });
      return { path: `experiment_holdouts/${body.id}/`, scope: "ExperimentHoldout", itemId: String(body.id) };
    },
  },
  {
    name: "experiment saved metrics",
    field: "name",
    async make(s, label) {
      const query = {
        kind: "ExperimentMetric",
        metric_type: "mean",
        source: { kind: "EventsNode", event: "buy" },
      };
      const body = await made(s, "experiment_saved_metrics", { name: label, query });
      return {
        path: `experiment_saved_metrics/${body.id}/`,
        scope: "ExperimentSavedMetric",
        itemId: String(body.id),
      };
    },
  },
  {
    name: "cohorts",
    field: "name",
    softDelete: { deleted: true },
    async make(s, label) {
      const filters = {
        properties: {
          type: "OR",
          values: [
            { type: "AND", values: [{ type: "person", key: "plan", value: "pro", operator: "exact" }] },
          ],
        },
      };
      const body = await made(s, "cohorts", { name: label, filters });
      return { path: `cohorts/${body.id}/`, scope: "Cohort", itemId: String(body.id) };
    },
  },
  {
    name: "event definitions",
    field: "description",
    updated: "changed",
    async make(s, label) {
      const id = await createEventDefinition(s, s.projectId, label);
      return { path: `event_definitions/${id}/`, scope: "EventDefinition", itemId: id };
    },
  },
  {
    name: "schema property groups",
    field: "description",
    updated: "changed",
    async make(s, label) {
      const id = await createSchemaPropertyGroup(s, s.projectId, label);
      return { path: `schema_property_groups/${id}/`, scope: "SchemaPropertyGroup", itemId: id };
    },
  },
  {
    name: "event schemas",
    async make(s, label) {
      const event_definition = await createEventDefinition(s, s.projectId, `${label} event`);
      const property_group_id = await createSchemaPropertyGroup(s, s.projectId, `${label} group`);
      const body = await made(s, "event_schemas", { event_definition, property_group_id });
      return { path: `event_schemas/${body.id}/`, scope: "EventSchema", itemId: body.id };
    },
  },
  {
    name: "property definitions",
    field: "description",
    updated: "changed",
    async make(s, label) {
      // Capture makes property definitions; none has a create route.
      const { id } = await s.db.propertyDefinition.create({ data: { projectId: s.projectId, name: label } });
      return { path: `property_definitions/${id}/`, scope: "PropertyDefinition", itemId: id };
    },
  },
  {
    name: "webhooks",
    field: "description",
    async make(s, label) {
      const body = await made(s, "webhooks", {
        url: "https://hooks.example.com/signalbox",
        kinds: ["feature_flag.updated"],
        description: label,
      });
      return { path: `webhooks/${body.id}/`, scope: "Webhook", itemId: String(body.id) };
    },
  },
  {
    name: "endpoints",
    async make(s, label) {
      const name = label.replaceAll(/\W/g, "_");
      const body = await made(s, "endpoints", {
        name,
        query: { kind: "HogQLQuery", query: "SELECT 1" },
        is_materialized: false,
      });
      return { path: `endpoints/${name}/`, scope: "Endpoint", itemId: body.id };
    },
  },
];

/** A field change of an activity entry, as the log stores it. */
type Change = { field: string; before: unknown; after: unknown };

describeEachBackend("concurrent writers of one object", (server) => {
  const activity = (s: TestServer, target: Pick<Target, "scope" | "itemId">) =>
    s.db.activityLog.findMany({
      where: { scope: target.scope, itemId: target.itemId },
      orderBy: { id: "asc" },
    });

  it(`dashboards: ${WRITERS} concurrent enrich_usage_dashboard calls add the enriched insights once`, async () => {
    const s = server();
    const flag = await made(s, "feature_flags", { key: "race-enrich", has_enriched_analytics: true });
    const tiles = () => s.db.dashboardTile.count({ where: { dashboardId: flag.usage_dashboard } });
    const before = await tiles();
    const answers = await together(WRITERS, () =>
      s.request("POST", `${project(s)}/feature_flags/${flag.id}/enrich_usage_dashboard/`),
    );

    expect(statusCounts(answers)).toEqual({ 200: 1, 400: WRITERS - 1 });
    for (const refused of answers.filter((a) => a.status === 400)) {
      expect(refused.body).toEqual({ success: false, error: "Usage dashboard already has enriched data" });
    }
    expect(await tiles()).toBe(before + 2);
  });

  for (const domain of DOMAINS) {
    describe(domain.name, () => {
      const deleteVerb = domain.softDelete ? "soft deletes" : "DELETEs";
      it(`${WRITERS} concurrent ${deleteVerb}: the first deletes and logs once, the rest find it gone`, async () => {
        const s = server();
        const target = await domain.make(s, `race delete ${domain.name}`);
        const url = `${project(s)}/${target.path}`;
        const before = (await activity(s, target)).map((e) => e.activity);
        const answers = await together(WRITERS, () =>
          domain.softDelete ? s.request("PATCH", url, { body: domain.softDelete }) : s.request("DELETE", url),
        );

        const entries = await activity(s, target);
        if (domain.softDelete) {
          // PostHog answers every PATCH of a soft-deleted cohort; only the first changes it.
          expect(statusCounts(answers)).toEqual({ 200: WRITERS });
          expect((await s.request("GET", url)).body.deleted).toBe(true);
          expect(entries.map((e) => e.activity)).toEqual([...before, "updated"]);
          expect((entries.at(-1)!.detail as { changes: Change[] }).changes).toEqual([
            expect.objectContaining({ field: "deleted", before: false, after: true }),
          ]);
          return;
        }
        expect(statusCounts(answers)).toEqual({ 204: 1, 404: WRITERS - 1 });
        for (const refused of answers.filter((a) => a.status === 404)) {
          expect(refused.body).toMatchObject({ code: "not_found", detail: "Not found." });
        }
        expect(entries.map((e) => e.activity)).toEqual([...before, "deleted"]);
      });

      const { field } = domain;
      if (field === undefined) return;
      const updated = domain.updated ?? "updated";
      it(`${WRITERS} concurrent PATCHes of ${field}: all 200, one unbroken chain of ${updated} entries`, async () => {
        const s = server();
        const original = `race patch ${domain.name}`;
        const target = await domain.make(s, original);
        const url = `${project(s)}/${target.path}`;
        const start = (await s.request("GET", url)).body[field];
        const values = Array.from({ length: WRITERS }, (_, i) => `${original} ${i}`);
        const answers = await together(WRITERS, (i) =>
          s.request("PATCH", url, { body: { [field]: values[i] } }),
        );

        expect(statusCounts(answers)).toEqual({ 200: WRITERS });
        const stored = (await s.request("GET", url)).body[field];
        expect(values).toContain(stored);
        const entries = (await activity(s, target)).filter((e) => e.activity === updated);
        expect(entries).toHaveLength(WRITERS);
        // Each entry's change of `field`, keyed by its `before`: no two writers replaced the same value.
        const byBefore = new Map<unknown, unknown>();
        for (const entry of entries) {
          const change = (entry.detail as { changes: Change[] }).changes.find((c) => c.field === field);
          expect(change, JSON.stringify(entry.detail)).toBeDefined();
          expect(byBefore.has(change!.before), `two entries replaced ${String(change!.before)}`).toBe(false);
          byBefore.set(change!.before, change!.after);
        }
        // From the value before, each `after` is the next entry's `before`, ending at the stored value.
        const chain: unknown[] = [];
        for (let at: unknown = start; byBefore.has(at); at = byBefore.get(at)) chain.push(byBefore.get(at));
        expect(chain).toHaveLength(WRITERS);
        expect([...chain].sort()).toEqual([...values].sort());
        expect(chain.at(-1)).toBe(stored);
      });
    });
  }

  it(`flags: ${WRITERS} concurrent creates reusing a soft-deleted flag's key store one`, async () => {
    const s = server();
    const key = "race-reuse";
    const old = await made(s, "feature_flags", { key });
    const deleted = await s.request("PATCH", `${project(s)}/feature_flags/${old.id}/`, {
      body: { deleted: true },
    });
    expect(deleted.status, deleted.text).toBe(200);
    const answers = await together(WRITERS, () =>
      s.request("POST", `${project(s)}/feature_flags/`, { body: { key } }),
    );

    expect(statusCounts(answers)).toEqual({ 201: 1, 400: WRITERS - 1 });
    for (const refused of answers.filter((a) => a.status === 400)) {
      expect(refused.body).toMatchObject({
        attr: "key",
        detail: "There is already a feature flag with this key.",
      });
    }
    const rows = await s.db.featureFlag.findMany({ where: { projectId: s.projectId, key } });
    expect(rows.map((r) => r.deleted)).toEqual([false]);
  });

  it(`endpoints: ${WRITERS} concurrent ?version=1 deactivations log one change`, async () => {
    const s = server();
    const name = "race_version_toggle";
    const endpoint = await made(s, "endpoints", {
      name,
      query: { kind: "HogQLQuery", query: "SELECT 1" },
      is_materialized: false,
    });
    const target = { scope: "Endpoint", itemId: endpoint.id as string };
    const before = (await activity(s, target)).length;
    const url = `${project(s)}/endpoints/${name}/?version=1`;
    const answers = await together(WRITERS, () => s.request("PATCH", url, { body: { is_active: false } }));

    expect(statusCounts(answers)).toEqual({ 200: WRITERS });
    for (const answer of answers) expect(answer.body).toMatchObject({ version: 1, is_active: false });
    expect((await s.request("GET", url)).body).toMatchObject({ version: 1, is_active: false });
    const entries = (await activity(s, target)).slice(before);
    expect(entries.map((e) => [e.activity, (e.detail as { changes: Change[] }).changes])).toEqual([
      ["updated", [expect.objectContaining({ field: "version_1_is_active", before: true, after: false })]],
    ]);
  });

  describe("static cohort members", () => {
    /** A static cohort without members and `WRITERS` persons of the project, none in it. */
    async function staticCohortAndPersons(s: TestServer, label: string) {
      const cohort = await made(s, "cohorts", { name: label, is_static: true });
      const persons = await insertPersons(
        s.db,
        s.projectId,
        Array.from({ length: WRITERS }, (_, i) => ({ distinctIds: [`${label} ${i}`] })),
      );
      const url = (action: string) => `${project(s)}/cohorts/${cohort.id}/${action}/`;
      const target = { scope: "Cohort", itemId: String(cohort.id) };
      return { cohort, persons, url, target };
    }

    /** The cohort's stored count and its member rows' count. */
    async function counts(s: TestServer, cohortId: number) {
      const stored = (await s.request("GET", `${project(s)}/cohorts/${cohortId}/`)).body.count;
      const rows = await s.db.cohortPerson.count({ where: { cohortId } });
      return { stored, rows };
    }

    it(`${WRITERS} concurrent additions, then removals, of distinct persons: all applied, counted and logged`, async () => {
      const s = server();
      const { cohort, persons, url, target } = await staticCohortAndPersons(s, "race members");
      const added = await together(WRITERS, (i) =>
        s.request("PATCH", url("add_persons_to_static_cohort"), { body: { person_ids: [persons[i]!.uuid] } }),
      );
      expect(statusCounts(added)).toEqual({ 200: WRITERS });
      expect(await counts(s, cohort.id)).toEqual({ stored: WRITERS, rows: WRITERS });

      const removed = await together(WRITERS, (i) =>
        s.request("PATCH", url("remove_person_from_static_cohort"), {
          body: { person_id: persons[i]!.uuid },
        }),
      );
      expect(statusCounts(removed)).toEqual({ 200: WRITERS });
      expect(await counts(s, cohort.id)).toEqual({ stored: 0, rows: 0 });
      const logged = (await activity(s, target)).map((e) => e.activity);
      expect(logged).toEqual([
        "created",
        ...Array<string>(WRITERS).fill("persons_added_manually"),
        ...Array<string>(WRITERS).fill("person_removed_manually"),
      ]);
    });

    it(`${WRITERS} concurrent removals of one person: one 200 and one entry, the rest 404`, async () => {
      const s = server();
      const { cohort, persons, url, target } = await staticCohortAndPersons(s, "race removal");
      const member = persons[0]!.uuid;
      const add = await s.request("PATCH", url("add_persons_to_static_cohort"), {
        body: { person_ids: [member, persons[1]!.uuid] },
      });
      expect(add.status, add.text).toBe(200);
      const answers = await together(WRITERS, () =>
        s.request("PATCH", url("remove_person_from_static_cohort"), { body: { person_id: member } }),
      );

      expect(statusCounts(answers)).toEqual({ 200: 1, 404: WRITERS - 1 });
      for (const refused of answers.filter((a) => a.status === 404)) {
        expect(refused.body).toMatchObject({ detail: "Person is not part of the cohort" });
      }
      expect(await counts(s, cohort.id)).toEqual({ stored: 1, rows: 1 });
      const logged = (await activity(s, target)).map((e) => e.activity);
      expect(logged).toEqual(["created", "persons_added_manually", "person_removed_manually"]);
    });
  });
});
