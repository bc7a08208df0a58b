/**
 * NUL characters (U+0000) in every kind of text a request carries, on PGlite and PostgreSQL (issue 24
 * §5). PostgreSQL refuses a NUL in text (SQLSTATE 22021) and in jsonb (22P05), so each kind is
 * answered before it reaches a statement, as PostHog answers it:
 * - a project token, wherever it goes (payload, query, path, the polling paths' `token`): the
 *   answer to an unknown token on that path (capture's `validate_token` refuses NUL tokens);
 * - a query string: 400 `null_characters_not_allowed` naming the parameter;
 * - a path parameter: 404, as DRF's `get_object_or_404` answers a lookup value the database refuses;
 * - a management body: DRF's 400 `null_characters_not_allowed` naming the field;
 * - capture payloads (event names, distinct ids, properties, person and group properties): stored
 *   with U+FFFD instead, as PostHog's ingestion sanitizes them;
 * - `/flags` bodies (distinct id, person properties, groups): 400 naming the field;
 * - GraphQL string arguments and variables: a `ValidationError`, never "Unexpected error.".
 * Should a string still reach a statement unchecked, the database's refusal is answered as DRF's 400
 * (`unstorableTextError`), whichever driver and wrapper reported it.
 * After each request the server still answers (test/support/still-serving.ts).
 */
import { expect, it } from "vitest";
import { httpLayerError } from "../../src/core/error-body.js";
import { unstorableTextError } from "../../src/core/json-input.js";
import { Prisma } from "../../src/generated/prisma/client.js";
import type { SdkMethod, SdkRoute } from "../../src/sdk/route.js";
import { projectToken, type SdkRequestOptions, sendToSdk, storedEvents } from "../support/capture.js";
import { fillPath, hasBody, params, ROUTES } from "../support/rest-routes.js";
import { SDK_ROUTES } from "../support/sdk-routes.js";
import { describeEachBackend, readResponse, type TestResponse, type TestServer } from "../support/server.js";
import { sendHostile, watchProcessFailures } from "../support/still-serving.js";

const NUL_TOKEN = "phc_\u0000";
/** DRF's answer to a NUL in a field (`ProhibitNullCharactersValidator`), less its `attr`. */
const NULL_CHARACTERS = {
  type: "validation_error",
  code: "null_characters_not_allowed",
  detail: "Null characters are not allowed.",
};
/** A well-formed token no project has. */
const UNKNOWN_TOKEN = "phc_no_project_has_this_token";

/** One way a token reaches an SDK route: a label and the request that carries `token` there. */
type TokenPlacement = [string, (token: string) => { path: string; options: SdkRequestOptions }];

/** Every place `route` reads its token from, for `method` (a header cannot carry a NUL at all). */
function tokenPlacements(route: SdkRoute, method: SdkMethod): TokenPlacement[] {
  const event = { event: "nul", distinct_id: "u" };
  if (route.tokenIn === "path") {
    return [
      ["path", (token) => ({ path: route.path.replace(":token", encodeURIComponent(token)), options: {} })],
    ];
  }
  if (route.tokenIn === "header") return [];
  const data = (token: string) => encodeURIComponent(JSON.stringify({ ...event, token }));
  if (method === "GET") {
    return [
      ["query data", (token) => ({ path: `${route.path}?data=${data(token)}`, options: { method } })],
      [
        "query token",
        (token) => ({
          path: `${route.path}?data=${encodeURIComponent(JSON.stringify(event))}&token=${encodeURIComponent(token)}`,
          options: { method },
        }),
      ],
    ];
  }
  return [
    ["body token", (token) => ({ path: route.path, options: { json: { ...event, token } } })],
    ["body api_key", (token) => ({ path: route.path, options: { json: { ...event, api_key: token } } })],
    [
      "properties token",
      (token) => ({ path: route.path, options: { json: { ...event, properties: { token } } } }),
    ],
    ["batch", (token) => ({ path: route.path, options: { json: { api_key: token, batch: [event] } } })],
    [
      "query token",
      (token) => ({ path: `${route.path}?token=${encodeURIComponent(token)}`, options: { json: event } }),
    ],
  ];
}

/** The personal-key SDK paths (polls and streams): the query's `token` names their project. */
const TOKEN_QUERY_PATHS = SDK_ROUTES.filter((route) => route.personalKey).map((route) => route.path);

describeEachBackend("NUL characters in requests", (server) => {
  watchProcessFailures();

  /** Sends one request, checks the server still serves after it, and returns the answer. */
  const hostile = (label: string, send: (s: TestServer) => Promise<TestResponse>) =>
    sendHostile(server(), label, send);

  it("answers a NUL in a project token as an unknown token, on every SDK path and wherever it goes", async () => {
    const s = server();
    for (const route of SDK_ROUTES.filter((sdkRoute) => !sdkRoute.personalKey)) {
      for (const method of route.methods) {
        for (const [where, place] of tokenPlacements(route, method)) {
          const label = `${method} ${route.path} (${where})`;
          const unknown = place(UNKNOWN_TOKEN);
          const expected = await sendToSdk(s, unknown.path, unknown.options);
          const nul = place(NUL_TOKEN);
          const answer = await hostile(label, () => sendToSdk(s, nul.path, nul.options));
          expect(answer.status, `${label}: ${answer.text}`).toBe(expected.status);
          expect(answer.body, label).toEqual(expected.body);
          expect([401, 404], `${label}: ${answer.text}`).toContain(answer.status);
        }
      }
    }
  });

  it("answers a NUL in the polling paths' token as an unknown token", async () => {
    for (const path of TOKEN_QUERY_PATHS) {
      const expected = await server().request("GET", `${path}?token=${UNKNOWN_TOKEN}`);
      const answer = await hostile(path, (s) =>
        s.request("GET", `${path}?token=${encodeURIComponent(NUL_TOKEN)}`),
      );
      expect(answer.status, `${path}: ${answer.text}`).toBe(401);
      expect(answer.body, path).toEqual(expected.body);
    }
  });

  it("answers a NUL in any path parameter of any REST route with 404: it names nothing", async () => {
    const s = server();
    const values = {
      project_id: s.projectId,
      organization_id: s.organizationId,
      ids: new Proxy({}, { get: () => 1 }),
      name: "endpoint",
      version_number: 1,
    };
    for (const route of ROUTES) {
      for (const name of params(route.path)) {
        const path = fillPath(route.path.replace(`:${name}`, "a%00b"), values);
        const label = `${route.method} ${path}`;
        const answer = await hostile(label, () =>
          s.request(route.method, path, hasBody(route.method) ? { body: {} } : {}),
        );
        expect(answer.status, `${label}: ${answer.text}`).toBe(404);
        // A route with PostHog's own error body (a flag's `status`), or an empty one, answers that.
        if (answer.text === "") expect(route.emptyBodyOn, `${label}: an empty body`).toBeDefined();
        else if (!route.errorBody) expect(answer.body.code, label).toBe("not_found");
      }
    }
  });

  it("answers a path the router cannot decode with PostHog's 404, on every door", async () => {
    for (const path of [
      `/api/projects/1/feature_flags/%FF/`,
      `/api/projects/1/endpoints/%ED%A0%80/`,
      `/api/organizations/%/`,
      `/array/%E0%A4%A/config`,
      `/ofrep/v1/evaluate/flags/%`,
    ]) {
      const answer = await hostile(path, (s) => s.request("GET", path));
      expect(answer.status, `${path}: ${answer.text}`).toBe(404);
      expect(answer.body, path).toEqual({
        type: "invalid_request",
        code: "not_found",
        detail: "Not found.",
        attr: null,
      });
    }
  });

  it("refuses a NUL in a query parameter with 400 naming it, on list, polling and stream routes", async () => {
    const s = server();
    const token = await projectToken(s);
    for (const path of [
      `/api/projects/${s.projectId}/feature_flags/?search=a%00b`,
      `/api/projects/${s.projectId}/event_definitions/?search=%00`,
      `/api/feature_flag/local_evaluation/?token=${token}&search=%00`,
      `/api/projects/${s.projectId}/feature_flags/local_evaluation/stream?search=%00`,
    ]) {
      const answer = await hostile(path, () => s.request("GET", path));
      expect(answer.status, `${path}: ${answer.text}`).toBe(400);
      expect(answer.body, path).toEqual({ ...NULL_CHARACTERS, attr: "search" });
    }
  });

  it("refuses a NUL in a management body as JSON, form or multipart with DRF's 400 naming the field", async () => {
    const path = `/api/projects/${server().projectId}/feature_flags/`;
    const multipart = new FormData();
    multipart.append("key", "nul-multipart");
    multipart.append("name", "a\u0000b");
    const bodies: Array<[string, RequestInit]> = [
      [
        "JSON",
        {
          body: JSON.stringify({ key: "nul-json", name: "a\u0000b" }),
          headers: { "content-type": "application/json" },
        },
      ],
      [
        "form",
        { body: "key=nul-form&name=a%00b", headers: { "content-type": "application/x-www-form-urlencoded" } },
      ],
      ["multipart", { body: multipart }],
    ];
    for (const [label, init] of bodies) {
      const answer = await hostile(label, async (s) => {
        const headers = { ...(init.headers as Record<string, string>), authorization: `Bearer ${s.key}` };
        return readResponse(await fetch(`${s.baseUrl}${path}`, { ...init, method: "POST", headers }));
      });
      expect(answer.status, `${label}: ${answer.text}`).toBe(400);
      expect(answer.body, label).toEqual({ ...NULL_CHARACTERS, attr: "name" });
    }
  });

  it("stores capture's NULs as U+FFFD: event names, distinct ids, properties, person and group properties", async () => {
    const s = server();
    const token = await projectToken(s);
    const nul = "n\u0000l";
    const sent: Array<[string, unknown]> = [
      [
        "/e/",
        {
          token,
          event: `e ${nul}`,
          distinct_id: `d ${nul}`,
          properties: {
            [`k ${nul}`]: `v ${nul}`,
            $set: { [`p ${nul}`]: nul },
            $groups: { company: `g ${nul}` },
          },
        },
      ],
      [
        "/batch/",
        {
          api_key: token,
          batch: [{ event: `b ${nul}`, distinct_id: `d ${nul}`, properties: { nested: [nul] } }],
        },
      ],
      ["/engage/", { $token: token, $distinct_id: `d ${nul}`, $set: { [`q ${nul}`]: nul } }],
      [
        "/e/",
        {
          token,
          event: "$groupidentify",
          distinct_id: `d ${nul}`,
          properties: { $group_type: `t ${nul}`, $group_key: `g ${nul}`, $group_set: { [`c ${nul}`]: nul } },
        },
      ],
    ];
    for (const [path, json] of sent) {
      const answer = await hostile(path, () => sendToSdk(s, path, { json }));
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
    }
    const fixed = "n\ufffdl";
    const events = (await storedEvents(s)).filter((event) => event.distinctId === `d ${fixed}`);
    expect(events.map((event) => event.event).sort()).toEqual([
      "$groupidentify",
      "$identify",
      `b ${fixed}`,
      `e ${fixed}`,
    ]);
    expect(JSON.stringify(events)).not.toContain("\\u0000");
    const person = await s.db.person.findFirstOrThrow({
      where: { projectId: s.projectId, distinctIds: { some: { distinctId: `d ${fixed}` } } },
    });
    expect(person.properties).toMatchObject({ [`p ${fixed}`]: fixed, [`q ${fixed}`]: fixed });
    const group = await s.db.group.findFirstOrThrow({
      where: { projectId: s.projectId, groupKey: `g ${fixed}` },
    });
    expect(group).toBeDefined();
  });

  it("refuses a NUL in a /flags body with 400 naming the field: distinct id, person and group properties", async () => {
    const s = server();
    const token = await projectToken(s);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ distinct_id: "a\u0000" }, "distinct_id"],
      [{ distinct_id: "u", person_properties: { email: "\u0000" } }, "person_properties"],
      [{ distinct_id: "u", person_properties: { "\u0000": 1 } }, "person_properties"],
      [{ distinct_id: "u", groups: { company: "\u0000" } }, "groups"],
      [{ distinct_id: "u", group_properties: { company: { name: "\u0000" } } }, "group_properties"],
      [{ distinct_id: "u", $anon_distinct_id: "\u0000" }, "$anon_distinct_id"],
    ];
    for (const path of ["/flags/?v=2", "/decide/?v=4"]) {
      for (const [body, attr] of cases) {
        const label = `${path} ${attr}`;
        const answer = await hostile(label, () => sendToSdk(s, path, { json: { token, ...body } }));
        expect(answer.status, `${label}: ${answer.text}`).toBe(400);
        expect(answer.body, label).toMatchObject(NULL_CHARACTERS);
        expect(answer.body.attr?.startsWith(attr), `${label}: attr ${answer.body.attr}`).toBe(true);
      }
    }
  });

  it("answers a NUL in GraphQL arguments and variables with an error, never the masked one", async () => {
    const s = server();
    const project = `project(id: "${s.projectId}")`;
    const requests: Array<[string, unknown]> = [
      [
        "a variable",
        {
          query: `query($s: String) { ${project} { featureFlags(filter: {search: $s}) { totalCount } } }`,
          variables: { s: "\u0000" },
        },
      ],
      ["a literal", { query: `{ ${project} { group(groupTypeIndex: 0, groupKey: "a\\u0000") { id } } }` }],
      ["a flag key", { query: `{ ${project} { featureFlag(key: "\\u0000") { id } } }` }],
      ["a node id", { query: `{ node(id: "\\u0000") { id } }` }],
      ["an endpoint name", { query: `{ ${project} { endpoint(name: "\\u0000") { id } } }` }],
    ];
    for (const [label, body] of requests) {
      const answer = await hostile(label, () => s.request("POST", "/graphql", { body }));
      const messages = (answer.body?.errors ?? []).map((error: { message: string }) => error.message);
      expect(messages, `${label}: ${answer.text}`).not.toContain("Unexpected error.");
    }
  });

  it("answers the database's refusal of a NUL as DRF's 400, whichever driver and wrapper report it", async () => {
    const s = server();
    const refusals: Array<[string, () => Promise<unknown>]> = [
      ["Prisma, text", () => s.db.project.findFirst({ where: { name: "a\u0000" } })],
      ["Prisma, raw", () => s.db.$queryRaw`SELECT ${"a\u0000"}::text`],
      ["reader, text", () => s.database.reader.rows(Prisma.sql`SELECT ${"a\u0000"}::text`)],
      [
        "reader, jsonb",
        () => s.database.reader.rows(Prisma.sql`SELECT ${'{"a": "\\u0000"}'}::jsonb ->> 'a'`),
      ],
      ["transaction", () => s.database.transaction((tx) => tx.rows(Prisma.sql`SELECT ${"\u0000"}::text`))],
    ];
    for (const [label, run] of refusals) {
      const error = await run().then(
        () => expect.unreachable(`${label}: the database took a NUL`),
        (failure: unknown) => failure,
      );
      const expected = {
        httpStatus: 400,
        code: "null_characters_not_allowed",
        detail: "Null characters are not allowed.",
      };
      expect(unstorableTextError(error), label).toMatchObject(expected);
      expect(httpLayerError(error, 0), label).toMatchObject(expected);
    }
    const other = await s.database.reader
      .rows(Prisma.sql`SELECT ${"x"}::uuid`)
      .catch((failure: unknown) => failure);
    expect(unstorableTextError(other), "another refusal (22P02)").toBeNull();
  });

  it("still finds the project of a real token (the check refuses only what cannot be a token)", async () => {
    const s = server();
    const token = await projectToken(s);
    const answer = await sendToSdk(s, "/e/", { json: { event: "real", distinct_id: "u", token } });
    expect(answer.status, answer.text).toBe(200);
  });
});
