/**
 * Limits on GraphQL documents (src/graphql/limits.ts) through the real server, with the default
 * configuration (docs/graphql.md, docs/configuration.md): a document over a limit gets HTTP 400 and one GraphQL error naming the
 * limit, never a 500 or a stack, and nothing runs; introspection and real queries still pass.
 */
import { getIntrospectionQuery } from "graphql";
import { expect, it } from "vitest";
import { describeEachBackend, type TestServer } from "../support/server.js";

/** POSTs a document as JSON and returns status, parsed body and text. */
async function post(s: TestServer, query: string, headers: Record<string, string> = {}) {
  const response = await s.request("POST", "/graphql", { body: { query }, headers });
  return { status: response.status, body: response.body, text: response.text };
}

/** Asserts one limit error naming `limit` (in the message and `extensions.limit`) and nothing else. */
function expectLimit(
  answer: { status: number; body: { data?: unknown; errors?: Array<Record<string, unknown>> }; text: string },
  limit: string,
  message: RegExp,
) {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.body.data).toBeUndefined();
  expect(answer.body.errors).toHaveLength(1);
  const [error] = answer.body.errors ?? [];
  expect(error?.["message"]).toMatch(message);
  expect(error?.["extensions"]).toEqual({ code: "QUERY_LIMIT_EXCEEDED", limit });
  expect(answer.text).not.toMatch(/\bat .*\.(js|ts):\d+/); // no stack frame anywhere
}

const nested = (depth: number) => `{${"a{".repeat(depth)}b${"}".repeat(depth)}}`;

/**
 * `__Type.ofType` is a `__Type`, so chains of it validate at any depth (graphql-js's own
 * introspection depth rule counts only `fields`, `interfaces`, `possibleTypes` and `inputFields`):
 * `__type` + `levels` × `ofType` + `name` selects `levels` + 2 fields deep.
 */
function ofTypeChain(levels: number): string {
  return `{ __type(name: "Query") { ${"ofType { ".repeat(levels)}name${" }".repeat(levels)} } }`;
}

describeEachBackend("GraphQL document limits", (server) => {
  it("refuses a document nested 5,000 deep with 400, not a parser stack overflow", async () => {
    const s = server();
    expectLimit(await post(s, nested(5000)), "nesting", /^Nesting limit of 100 exceeded/);
    // Values nest too: a list literal 5,000 deep.
    const deepList = `{ __type(name: ${"[".repeat(5000)}"Query"${"]".repeat(5000)}) { name } }`;
    expectLimit(await post(s, deepList), "nesting", /^Nesting limit of 100 exceeded/);
    expect(s.errorLogs).toEqual([]);
  });

  it("refuses 20,000 aliases before parsing them", async () => {
    const s = server();
    const aliases = Array.from({ length: 20_000 }, (_, i) => `a${i}: __typename`).join(" ");
    expectLimit(await post(s, `{ ${aliases} }`), "tokens", /^Token limit of 5000 exceeded/);
  });

  it("refuses more than 30 aliases in a document within the token limit", async () => {
    const s = server();
    const aliases = Array.from({ length: 31 }, (_, i) => `u${i}: user { email }`).join(" ");
    expectLimit(
      await post(s, `{ viewer { ${aliases} } }`),
      "aliases",
      /^Aliases limit of 30 exceeded, found 31\./,
    );
    // Thirty pass validation (the request then needs a key, as every read does).
    const thirty = Array.from({ length: 30 }, (_, i) => `u${i}: user { email }`).join(" ");
    const allowed = await post(s, `{ viewer { ${thirty} } }`);
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.viewer.u29.email).toBe("admin@example.com");
  });

  it("refuses a selection deeper than 15 fields", async () => {
    const s = server();
    expectLimit(await post(s, ofTypeChain(14)), "depth", /^Query depth limit of 15 exceeded, found 16\./);
    const fifteen = await post(s, ofTypeChain(13));
    expect(fifteen.status, fifteen.text).toBe(200);
    expect(fifteen.body.errors).toBeUndefined();
  });

  it("refuses a huge document and a body over the body limit", async () => {
    const s = server();
    const fields = Array.from({ length: 100_000 }, (_, i) => `f${i}`).join(" ");
    expect(fields.length).toBeGreaterThan(500_000);
    expectLimit(await post(s, `{ ${fields} }`), "tokens", /^Token limit of 5000 exceeded/);
    // Over BODY_LIMIT_BYTES (2 MiB): 413 in the GraphQL shape, with the REST door's code.
    const tooLarge = await post(s, `{ __typename } # ${"x".repeat(3 * 1024 * 1024)}`);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toEqual({
      errors: [
        {
          message: "Request body is larger than the limit of 2097152 bytes.",
          extensions: { code: "payload_too_large", errorType: "PayloadTooLargeError" },
        },
      ],
    });
  });

  it("refuses an operation over the cost limit", async () => {
    const s = server();
    // Six literal pages of 1,000 flags with every field: about six times 330,000.
    const page = (alias: string) =>
      `${alias}: featureFlags(first: 1000) { edges { node { id key name active deleted version status tags
        evaluationTags createdBy { email firstName } lastModifiedBy { email firstName }
        filters { groups { rolloutPercentage variant properties { key type value operator } } payloads } } } }`;
    const document = `{ project(id: "${s.projectId}") { ${["a", "b", "c", "d", "e", "f"].map(page).join(" ")} } }`;
    expectLimit(await post(s, document), "cost", /^Query Cost limit of 500000 exceeded, found \d+/);
  });

  it("answers 400 to application/json and graphql-response+json clients alike", async () => {
    const s = server();
    for (const accept of ["application/json", "application/graphql-response+json", "*/*"]) {
      expectLimit(await post(s, nested(200), { accept }), "nesting", /^Nesting limit/);
    }
  });

  it("still answers the introspection query GraphiQL and graphql-codegen send", async () => {
    const s = server();
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
    });
    const answer = await post(s, query, { accept: "application/graphql-response+json" });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    const types = answer.body.data.__schema.types.map((t: { name: string }) => t.name);
    expect(types).toContain("FeatureFlag");
  });

  it("serves a real query nine fields deep with fragments", async () => {
    const s = server();
    const created = await s.request("POST", `/api/projects/${s.projectId}/feature_flags/`, {
      body: {
        key: "deep-query",
        filters: {
          groups: [
            { properties: [{ key: "email", value: ["a@b.c"], type: "person" }], rollout_percentage: 50 },
          ],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const answer = await s.request("POST", "/graphql", {
      body: {
        query: `query Deep($projectId: ID!) {
          project(id: $projectId) {
            featureFlags(first: 100) {
              totalCount
              edges { node { ...Row activity(limit: 10) { results { ...Entry } } } }
            }
          }
        }
        fragment Row on FeatureFlag {
          key createdBy { email } lastModifiedBy { email }
          filters { groups { rolloutPercentage properties { key value operator } } }
        }
        fragment Entry on ActivityLogEntry { activity user { email } detail { name changes { action field after } } }`,
        variables: { projectId: String(s.projectId) },
      },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    const [edge] = answer.body.data.project.featureFlags.edges;
    expect(edge.node.key).toBe("deep-query");
    expect(edge.node.activity.results[0].activity).toBe("created");
  });
});
