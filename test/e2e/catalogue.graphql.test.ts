/**
 * Issue 9's catalogue run, on PGlite and PostgreSQL: 10,000 events of 50 names, with properties of
 * every value type, captured through `/batch/` as posthog-node batches them (100 per request);
 * then the catalogue as both doors show it: the 50 event definitions with their first and last
 * sighting, each event's properties, and the types PostHog infers (property-defs-rs
 * `detect_property_type`: text, numbers, booleans and ISO dates; lists and objects stay untyped).
 */
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { projectToken, sendToSdk } from "../support/capture.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const Catalogue = graphql(`
  query Catalogue($project: ID!) {
    project(id: $project) {
      eventDefinitions(first: 100) { totalCount }
      propertyDefinitions(first: 100, filter: { kind: EVENT, isNumerical: true }) {
        edges { node { name propertyType isNumerical } }
      }
    }
  }
`);

const EVENTS = 10_000;
const NAMES = 50;
const BATCH = 100;

/** The properties of the `i`th event: one value of each type, plus one property its name alone has. */
const propertiesOf = (i: number) => ({
  plan: i % 2 === 0 ? "pro" : "free",
  seats: i,
  is_trial: i % 3 === 0,
  renews_at: "2027-01-01T00:00:00Z",
  items: [i],
  shape: { size: i },
  [`only_on_${i % NAMES}`]: "x",
});

describeEachBackend("the catalogue after 10,000 captured events of 50 names", (server) => {
  beforeAll(async () => {
    const s = server();
    const token = await projectToken(s);
    for (let start = 0; start < EVENTS; start += BATCH) {
      const batch = Array.from({ length: BATCH }, (_, k) => {
        const i = start + k;
        return { event: `event ${i % NAMES}`, distinct_id: `user-${i % 500}`, properties: propertiesOf(i) };
      });
      const answer = await sendToSdk(s, "/batch/", { json: { api_key: token, batch } });
      expect(answer.status, answer.text).toBe(200);
    }
  }, 300_000);

  it("lists the 50 event definitions, each seen", async () => {
    const s = server();
    const answer = await s.request("GET", `/api/projects/${s.projectId}/event_definitions/?limit=100`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.count).toBe(NAMES);
    const names = answer.body.results.map((definition: { name: string }) => definition.name).sort();
    expect(names).toEqual(Array.from({ length: NAMES }, (_, i) => `event ${i}`).sort());
    for (const definition of answer.body.results) {
      expect(definition.created_at).not.toBeNull();
      expect(definition.last_seen_at).not.toBeNull();
    }
  });

  it("infers each property's type as PostHog does", async () => {
    const s = server();
    const answer = await s.request(
      "GET",
      `/api/projects/${s.projectId}/property_definitions/?type=event&limit=200`,
    );
    expect(answer.status, answer.text).toBe(200);
    const types = Object.fromEntries(
      answer.body.results.map((definition: { name: string; property_type: string | null }) => [
        definition.name,
        definition.property_type,
      ]),
    );
    expect(types).toMatchObject({
      plan: "String",
      seats: "Numeric",
      is_trial: "Boolean",
      renews_at: "DateTime",
      items: null,
      shape: null,
      only_on_7: "String",
    });
    expect(answer.body.count).toBe(6 + NAMES);
  });

  it("knows which properties each event has, over REST and GraphQL", async () => {
    const s = server();
    const seen = await s.request(
      "GET",
      `/api/projects/${s.projectId}/property_definitions/?type=event&limit=200&event_names=${encodeURIComponent('["event 7"]')}&filter_by_event_names=true`,
    );
    expect(seen.status, seen.text).toBe(200);
    const names = seen.body.results.map((definition: { name: string }) => definition.name).sort();
    expect(names).toEqual(["is_trial", "items", "only_on_7", "plan", "renews_at", "seats", "shape"]);

    const answer = await execute(s, Catalogue, { project: String(s.projectId) });
    expect(answer.errors).toBeUndefined();
    expect(answer.data.project?.eventDefinitions?.totalCount).toBe(NAMES);
    expect(answer.data.project?.propertyDefinitions?.edges.map((edge) => edge.node)).toEqual([
      { name: "seats", propertyType: "NUMERIC", isNumerical: true },
    ]);
  });
});
