/**
 * GraphQL query results kept per process (src/graphql/result-cache.ts), over HTTP on the real
 * server: a repeated query is answered from memory (no statement, the same bytes), and never once
 * what it was read from changed (a write through either door or straight in the database, an access
 * change, the minute), never to another key or for other variables, and never for what no revision
 * covers (persons, flag evaluation, errors, mutations).
 */
import { expect, it } from "vitest";
import { hashApiKey } from "../../src/core/auth/api-keys.js";
import { insertPerson } from "../support/people.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

/** The test's clock: the server's minute moves only when a test moves it. */
let nowMs = Date.parse("2026-11-29T12:00:10Z");

const FLAGS = `query Flags($id: ID!) {
  project(id: $id) { featureFlags(first: 10) { edges { node { key name active createdBy { email } } } } }
}`;

/** One POST of `query` with `variables` as `key`: its status, body text, parsed body and statements. */
async function post(s: TestServer, query: string, variables: Record<string, unknown>, key = s.key) {
  const answer = await s.request("POST", "/graphql", { body: { query, variables }, key });
  const timing = answer.headers.get("server-timing") ?? "";
  const statements = Number(/desc="(\d+) statements?"/.exec(timing)?.[1] ?? Number.NaN);
  return { status: answer.status, text: answer.text, body: answer.body, statements, headers: answer.headers };
}

/** The flag keys and names a `FLAGS` answer shows. */
function flagsOf(body: {
  data?: { project?: { featureFlags?: { edges: Array<{ node: { key: string; name: string } }> } } };
}): string[] {
  return (body.data?.project?.featureFlags?.edges ?? []).map(({ node }) => `${node.key}:${node.name}`);
}

/** Creates a flag over REST (everyone, unless `properties` say whom) and returns its id. */
async function createFlag(s: TestServer, key: string, project = s.projectId, properties: object[] = []) {
  const created = await s.request("POST", `/api/projects/${project}/feature_flags/`, {
    body: { key, name: `${key} name`, filters: { groups: [{ properties, rollout_percentage: 100 }] } },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

describeEachBackend(
  "GraphQL results kept in memory",
  (server) => {
    it("answers a repeated query from memory with the same bytes, and a write through REST at once", async () => {
      const s = server();
      const project = await s.createProject("kept-repeat");
      const flagId = await createFlag(s, "kept-a", project);
      const first = await post(s, FLAGS, { id: String(project) });
      expect(first.status).toBe(200);
      expect(flagsOf(first.body)).toEqual(["kept-a:kept-a name"]);
      const second = await post(s, FLAGS, { id: String(project) });
      // Kept after the first request that read the catalog and whose key was already known.
      const third = await post(s, FLAGS, { id: String(project) });
      expect(third.statements).toBe(0);
      expect(third.text).toBe(first.text);
      expect(third.headers.get("content-type")).toBe(first.headers.get("content-type"));
      expect(second.text).toBe(first.text);

      const patched = await s.request("PATCH", `/api/projects/${project}/feature_flags/${flagId}/`, {
        body: { name: "renamed" },
      });
      expect(patched.status).toBe(200);
      const after = await post(s, FLAGS, { id: String(project) });
      expect(flagsOf(after.body)).toEqual(["kept-a:renamed"]);
      expect(after.statements).toBeGreaterThan(0);
    });

    it("answers a write made straight in the database (as another process would) once it is announced", async () => {
      const s = server();
      const project = await s.createProject("kept-elsewhere");
      const flagId = await createFlag(s, "kept-b", project);
      await post(s, FLAGS, { id: String(project) });
      await post(s, FLAGS, { id: String(project) });
      expect((await post(s, FLAGS, { id: String(project) })).statements).toBe(0);
      await s.db.featureFlag.update({ where: { id: flagId }, data: { name: "changed below" } });
      const after = await post(s, FLAGS, { id: String(project) });
      expect(flagsOf(after.body)).toEqual(["kept-b:changed below"]);
    });

    it("never answers one key with what was kept for another, nor for other variables", async () => {
      const s = server();
      const project = await s.createProject("kept-keys");
      const other = await s.createProject("kept-keys-other");
      await createFlag(s, "kept-c", project);
      await createFlag(s, "kept-d", other);
      for (let i = 0; i < 3; i++) await post(s, FLAGS, { id: String(project) });
      expect((await post(s, FLAGS, { id: String(project) })).statements).toBe(0);

      const noFlagScope = await s.createKey(["project:read"]);
      const refused = await post(s, FLAGS, { id: String(project) }, noFlagScope);
      expect(flagsOf(refused.body)).toEqual([]);
      expect(refused.body.errors?.[0]?.extensions?.code).toBe("permission_denied");
      const limitedAway = await s.createKey(["*"], [other]);
      const elsewhere = await post(s, FLAGS, { id: String(project) }, limitedAway);
      expect(flagsOf(elsewhere.body)).toEqual([]);
      expect(elsewhere.body.errors?.[0]?.extensions?.code).toBe("permission_denied");
      // A second key of the same user with the same scopes reads the same data, but its own answer.
      const twin = await s.createKey(["*"]);
      const twinAnswer = await post(s, FLAGS, { id: String(project) }, twin);
      expect(flagsOf(twinAnswer.body)).toEqual(["kept-c:kept-c name"]);
      expect(twinAnswer.statements).toBeGreaterThan(0);

      const otherVariables = await post(s, FLAGS, { id: String(other) });
      expect(flagsOf(otherVariables.body)).toEqual(["kept-d:kept-d name"]);
    });

    it("forgets every kept answer when access changes", async () => {
      const s = server();
      const project = await s.createProject("kept-access");
      await createFlag(s, "kept-e", project);
      const key = await s.createKey(["*"]);
      for (let i = 0; i < 3; i++) await post(s, FLAGS, { id: String(project) }, key);
      expect((await post(s, FLAGS, { id: String(project) }, key)).statements).toBe(0);
      await s.db.personalApiKey.update({
        where: { secureValue: hashApiKey(key) },
        data: { scopes: ["project:read"] },
      });
      const after = await post(s, FLAGS, { id: String(project) }, key);
      expect(flagsOf(after.body)).toEqual([]);
      expect(after.body.errors?.[0]?.extensions?.code).toBe("permission_denied");
    });

    it("keeps an answer for the minute it was read in only", async () => {
      const s = server();
      const project = await s.createProject("kept-minute");
      await createFlag(s, "kept-f", project);
      for (let i = 0; i < 3; i++) await post(s, FLAGS, { id: String(project) });
      expect((await post(s, FLAGS, { id: String(project) })).statements).toBe(0);
      nowMs += 60_000;
      expect((await post(s, FLAGS, { id: String(project) })).statements).toBeGreaterThan(0);
    });

    it("keeps nothing read from persons, flag evaluations, errors or mutations", async () => {
      const s = server();
      const project = await s.createProject("kept-volatile");
      await createFlag(s, "kept-g", project, [
        { key: "email", type: "person", operator: "exact", value: ["a@example.com"] },
      ]);
      await insertPerson(s.db, project, {
        distinctIds: ["kept-person"],
        properties: { email: "a@example.com" },
      });
      const variables = { id: String(project) };
      // Each needs a statement whenever it runs: one answered from memory would need none.
      const persons = `query P($id: ID!) { project(id: $id) { persons(first: 5) { edges { node { distinctIds } } } } }`;
      const failing = `query F($id: ID!) {
        project(id: $id) { featureFlags(first: 5) { edges { node { key } } } }
        node(id: "nonsense") { id }
      }`;
      for (const query of [persons, failing]) {
        const answers = [];
        for (let i = 0; i < 3; i++) answers.push(await post(s, query, variables));
        expect(answers[2]!.statements, query).toBeGreaterThan(0);
        expect(answers[2]!.text, query).toBe(answers[1]!.text);
      }
      expect((await post(s, failing, variables)).body.errors?.[0]?.extensions?.code).toBe("not_found");

      // The person is read from the process's subject cache, without a statement: the answer must follow it.
      const evaluation = `query E($id: ID!) { project(id: $id) {
        evaluateFeatureFlags(distinctId: "kept-person") {
          ... on EvaluateFeatureFlagsSuccess { evaluations { key enabled } }
        }
      } }`;
      const enabled = async () => {
        const answer = await post(s, evaluation, variables);
        const evaluations: Array<{ enabled: boolean }> =
          answer.body.data.project.evaluateFeatureFlags.evaluations;
        return evaluations.map((each) => each.enabled);
      };
      for (let i = 0; i < 3; i++) expect(await enabled()).toEqual([true]);
      await s.db.person.updateMany({
        where: { projectId: project },
        data: { properties: { email: "b@example.com" } },
      });
      expect(await enabled()).toEqual([false]);

      const mutation = `mutation M($input: UpdateFeatureFlagInput!) { updateFeatureFlag(input: $input) { __typename } }`;
      const flag = await s.db.featureFlag.findFirstOrThrow({ where: { projectId: project } });
      const input = { input: { projectId: String(project), id: String(flag.id), name: "again" } };
      const writes = [];
      for (let i = 0; i < 3; i++) writes.push(await post(s, mutation, input));
      expect(writes[2]!.statements).toBeGreaterThan(0);
    });

    it("keeps nothing for a request without a key", async () => {
      const s = server();
      const answers = [];
      for (let i = 0; i < 3; i++) {
        const answer = await s.request("POST", "/graphql", { body: { query: "{ __typename }" }, key: null });
        answers.push(answer);
      }
      expect(answers[2]!.status).toBe(200);
      expect(answers[2]!.body).toEqual({ data: { __typename: "Query" } });
    });
  },
  { now: () => new Date(nowMs) },
);
