/**
 * Issue 7 end to end, on PGlite and PostgreSQL: PostHog's own Node SDK (posthog-node, unchanged)
 * sends `capture`, `identify`, `alias` and `groupIdentify` to the running server through the capture
 * paths; then what targeting will run on is read back through the management doors only, as a
 * client would: the person over REST and GraphQL (with its events), the group type and the group
 * over REST, and the person's membership of a dynamic cohort (computed by SQL) over REST.
 */
import type { PostHog } from "posthog-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { posthogNodeClient } from "../support/capture.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const PersonWithEvents = graphql(`
  query PersonWithEvents($projectId: ID!, $distinctId: String!) {
    project(id: $projectId) {
      persons(distinctId: $distinctId) {
        edges {
          node {
            uuid
            distinctIds
            isIdentified
            properties
            events(first: 10) { edges { node { event distinctId } } }
          }
        }
      }
    }
  }
`);

describeEachBackend("posthog-node traffic read back through REST and GraphQL", (server) => {
  let client: PostHog;
  beforeAll(async () => {
    client = await posthogNodeClient(server());
    // An anonymous visitor browses and signs up: identify creates the identified person, alias
    // merges the anonymous one into it; a back-end id joins by alias; the user works for a company.
    client.capture({
      distinctId: "anon-42",
      event: "$pageview",
      properties: { $current_url: "https://x.test/" },
    });
    await client.flush();
    client.identify({
      distinctId: "user-42",
      properties: { email: "grace@example.com", plan: "pro" },
    });
    await client.flush();
    client.alias({ distinctId: "user-42", alias: "anon-42" });
    client.alias({ distinctId: "user-42", alias: "backend-42" });
    client.groupIdentify({ groupType: "company", groupKey: "hopper-inc", properties: { seats: 40 } });
    client.capture({ distinctId: "user-42", event: "invoice paid", groups: { company: "hopper-inc" } });
    await client.flush();
  });
  afterAll(async () => {
    await client.shutdown();
  });

  const api = (path: string) => `/api/projects/${server().projectId}/${path}`;

  it("shows one identified person holding the three distinct ids, with the identify's properties", async () => {
    for (const distinctId of ["anon-42", "user-42", "backend-42"]) {
      const response = await server().request("GET", api(`persons/?distinct_id=${distinctId}`));
      expect(response.status, response.text).toBe(200);
      expect(response.body.results, distinctId).toHaveLength(1);
      const [person] = response.body.results;
      expect(person.distinct_ids.sort()).toEqual(["anon-42", "backend-42", "user-42"]);
      expect(person).toMatchObject({
        is_identified: true,
        name: "grace@example.com",
        properties: expect.objectContaining({ email: "grace@example.com", plan: "pro" }),
      });
      const one = await server().request("GET", api(`persons/${person.uuid}/`));
      expect(one.status, one.text).toBe(200);
      expect(one.body.uuid).toBe(person.uuid);
    }
  });

  it("shows the person's events through GraphQL, the anonymous pageview included", async () => {
    const answer = await execute(server(), PersonWithEvents, {
      projectId: String(server().projectId),
      distinctId: "anon-42",
    });
    expect(answer.errors).toBeUndefined();
    const [edge] = answer.data.project?.persons?.edges ?? [];
    expect(edge?.node.isIdentified).toBe(true);
    const events = edge?.node.events?.edges.map((e) => `${e.node.event}@${e.node.distinctId}`) ?? [];
    expect(events).toEqual(
      expect.arrayContaining(["$pageview@anon-42", "$identify@user-42", "invoice paid@user-42"]),
    );
  });

  it("shows the group type and the group with its properties", async () => {
    const types = await server().request("GET", api("groups_types/"));
    expect(types.status, types.text).toBe(200);
    expect(types.body).toEqual([expect.objectContaining({ group_type: "company", group_type_index: 0 })]);
    const group = await server().request("GET", api("groups/find?group_type_index=0&group_key=hopper-inc"));
    expect(group.status, group.text).toBe(200);
    expect(group.body.group_properties).toMatchObject({ seats: 40 });
  });

  it("places the person in a dynamic cohort on its properties, and not in one it does not match", async () => {
    const cohort = async (value: string) => {
      const created = await server().request("POST", api("cohorts/"), {
        body: {
          name: `plan ${value}`,
          filters: {
            properties: {
              type: "OR",
              values: [{ type: "AND", values: [{ key: "plan", type: "person", value, operator: "exact" }] }],
            },
          },
        },
      });
      expect(created.status, created.text).toBe(201);
      const members = await server().request("GET", api(`cohorts/${created.body.id}/persons/`));
      expect(members.status, members.text).toBe(200);
      return { count: created.body.count, members: members.body.results };
    };
    const pro = await cohort("pro");
    expect(pro.count).toBe(1);
    expect(pro.members.map((p: { distinct_ids: string[] }) => p.distinct_ids.sort())).toEqual([
      ["anon-42", "backend-42", "user-42"],
    ]);
    const free = await cohort("free");
    expect(free.count).toBe(0);
    expect(free.members).toEqual([]);
  });
});
