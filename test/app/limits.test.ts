/**
 * Every configured limit (src/config.ts, README "Configuration"), tried at its bound and just over it
 * on one server started with small limits, through REST, GraphQL and the SDK paths, on PGlite and
 * PostgreSQL: at the bound the request is served; over it the answer is the limit's typed error
 * (PostHog's `{type, code, detail, attr}` with 400, 413, 414, 429 or 431; a GraphQL typed result or
 * an error with `extensions.code`) and the database is as before. No answer of these tries carries a
 * stack frame or SQL text, and none was an unexpected error (the server logged none).
 *
 * `QUERY_MAX_COST` refuses a query the planner estimates above it before it runs, on both backends.
 * The query limits (`QUERY_TIMEOUT_MS`, `QUERY_MAX_CONCURRENT_PER_PROJECT`) are tried together on
 * PostgreSQL, where a run is held in flight by a table lock (the embedded database's one connection
 * cannot take one), and `QUERY_TIMEOUT_MS` alone on the embedded database, with a query that would
 * run for minutes: stopped at its timeout (src/db/embedded/pglite-host.ts) while the server answers.
 */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  posthogNodeClient,
  projectToken,
  type SdkRequestOptions,
  sendToSdk,
  storedEvents,
} from "../support/capture.js";
import { expectNothingWritten } from "../support/db-dump.js";
import { flagsPath } from "../support/flags.js";
import { itWhere } from "../support/it-where.js";
import {
  describeEachBackend,
  type RequestOptions,
  type TestResponse,
  type TestServer,
} from "../support/server.js";
import { lockTable } from "../support/table-lock.js";

/** The limits this file's server runs with: small, so that each is cheap to reach. */
const LIMITS = {
  BODY_LIMIT_BYTES: 4096,
  CAPTURE_BODY_LIMIT_BYTES: 2048,
  CAPTURE_BATCH_BODY_LIMIT_BYTES: 8192,
  CAPTURE_MAX_EVENTS_PER_REQUEST: 5,
  MAX_PAGE_SIZE: 3,
  FLAG_MAX_CONDITION_GROUPS: 3,
  FLAG_MAX_PROPERTY_VALUES: 4,
  FLAG_MAX_VARIANTS: 3,
  MAX_JSON_DEPTH: 6,
  MAX_HEADER_BYTES: 2048,
  GRAPHQL_MAX_DEPTH: 6,
  GRAPHQL_MAX_ALIASES: 3,
  GRAPHQL_MAX_TOKENS: 300,
  GRAPHQL_MAX_COST: 400,
  // Long enough that planning the cost test's seven-set join stays inside it on a loaded CI machine
  // (2 s was once passed there, answering query_timeout before the cost could refuse it).
  QUERY_TIMEOUT_MS: 5000,
  QUERY_MAX_CONCURRENT_PER_PROJECT: 1,
  // Above a five-set cross join's estimate (about 1.5 × 10^8), which the timeout stops below, and
  // beneath a seven-set one's (about 1.5 × 10^12).
  QUERY_MAX_COST: 100_000_000_000,
} as const;

/** A stack frame (`at fn (file.ts:1:2)`) or SQL a database error would carry. */
const LEAK =
  /\bat .*\.(js|ts|mjs|cjs):\d+|\bstack\b|\bSELECT\s|\bINSERT\s+INTO\b|\bUPDATE\s+"|prisma|\bpg_|relation "|syntax error at/i;

/** Every answer of this file, to check them all for leaks at the end. */
const answers: Array<{ label: string; status: number; text: string }> = [];

afterAll(() => {
  // Runs after both backends: every error answer of the file, REST, GraphQL and SDK alike.
  const failures = answers.filter((a) => a.status >= 400 || a.text.includes('"errors"'));
  expect(failures.length).toBeGreaterThan(0);
  for (const answer of failures) expect(answer.text, answer.label).not.toMatch(LEAK);
});

function kept(label: string, response: TestResponse): TestResponse {
  answers.push({ label, status: response.status, text: response.text });
  return response;
}

/** `[[...[1]...]]`: JSON `depth` levels deep. */
const nestedArrays = (depth: number): unknown => JSON.parse(`${"[".repeat(depth)}1${"]".repeat(depth)}`);

/** A GraphQL selection `levels + 2` fields deep (`__Type.ofType` nests at any depth). */
const ofTypeChain = (levels: number) =>
  `{ __type(name: "Query") { ${"ofType { ".repeat(levels)}name${" }".repeat(levels)} } }`;

/** Variants `v0…v(n-1)` summing to 100. */
const variants = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: `v${i}`, rollout_percentage: i === 0 ? 100 - (n - 1) : 1 }));

/** A flag's filters as REST takes them. */
interface Filters {
  groups: Array<{ properties: Array<Record<string, unknown>>; rollout_percentage: number }>;
  multivariate?: { variants: Array<{ key: string; rollout_percentage: number }> };
}

/** Filters of `groups` condition sets, the first holding one `email` property of `values` values. */
function filters(shape: { groups?: number; values?: number; variants?: number }): Filters {
  const groups = Array.from({ length: shape.groups ?? 1 }, (_, i) => ({
    properties:
      i === 0 && shape.values
        ? [
            {
              key: "email",
              type: "person",
              operator: "exact",
              value: Array.from({ length: shape.values }, (_, v) => `u${v}@example.com`),
            },
          ]
        : [],
    rollout_percentage: 100,
  }));
  return shape.variants ? { groups, multivariate: { variants: variants(shape.variants) } } : { groups };
}

/** The same filters as GraphQL's input takes them (camelCase). */
function graphqlFilters(rest: Filters) {
  const variantsInput = rest.multivariate?.variants.map((v) => ({
    key: v.key,
    rolloutPercentage: v.rollout_percentage,
  }));
  return {
    groups: rest.groups.map((g) => ({ properties: g.properties, rolloutPercentage: g.rollout_percentage })),
    ...(variantsInput ? { multivariate: { variants: variantsInput } } : {}),
  };
}

const CREATE_FLAG = `mutation($input: CreateFeatureFlagInput!) { createFeatureFlag(input: $input) {
  __typename ... on CreateFeatureFlagSuccess { featureFlag { key } } ... on Error { message code }
  ... on ValidationError { attr } } }`;
const UPDATE_FLAG = `mutation($input: UpdateFeatureFlagInput!) { updateFeatureFlag(input: $input) {
  __typename ... on UpdateFeatureFlagSuccess { featureFlag { version } } ... on Error { message code }
  ... on ValidationError { attr } } }`;

describeEachBackend(
  "configured limits, tried at and over their bounds",
  (server, backend) => {
    let s: TestServer;
    let token: string;
    /** A flag the update tries aim at. */
    let target: { id: number; version: number };

    const rest = async (label: string, method: string, path: string, options?: RequestOptions) =>
      kept(label, await s.request(method, path, options));
    const gql = async (label: string, query: string, variables?: Record<string, unknown>) =>
      kept(label, await s.request("POST", "/graphql", { body: { query, variables } }));
    const sdk = async (label: string, path: string, options: SdkRequestOptions) =>
      kept(label, await sendToSdk(s, path, options));

    /** Asserts PostHog's error body, and that the request wrote nothing. */
    async function refused(
      label: string,
      send: () => Promise<TestResponse>,
      status: number,
      body: { type: string; code: string; detail: string | RegExp; attr?: string | null },
    ) {
      const answer = await expectNothingWritten(s.db, label, send);
      expect(answer.status, `${label}: ${answer.text}`).toBe(status);
      expect(Object.keys(answer.body ?? {}).sort(), label).toEqual(["attr", "code", "detail", "type"]);
      expect(answer.body, label).toMatchObject({
        type: body.type,
        code: body.code,
        attr: body.attr ?? null,
        detail: typeof body.detail === "string" ? body.detail : expect.stringMatching(body.detail),
      });
    }

    /** Asserts a mutation's typed ValidationError, and that it wrote nothing. */
    async function refusedTyped(
      label: string,
      send: () => Promise<TestResponse>,
      field: "createFeatureFlag" | "updateFeatureFlag",
      expected: { message: string; code: string; attr: string },
    ) {
      const answer = await expectNothingWritten(s.db, label, send);
      expect(answer.status, label).toBe(200);
      expect(answer.body.data[field], label).toEqual({ __typename: "ValidationError", ...expected });
    }

    /** Asserts a GraphQL document limit's error: HTTP 400, `QUERY_LIMIT_EXCEEDED`, nothing run. */
    function documentRefused(answer: TestResponse, limit: string, message: string) {
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body).toEqual({
        errors: [{ message, extensions: { code: "QUERY_LIMIT_EXCEEDED", limit } }],
      });
    }

    beforeAll(async () => {
      s = server();
      token = await projectToken(s);
      const created = await s.request("POST", flagsPath(s), {
        body: { key: "limits-target", filters: filters({}) },
      });
      expect(created.status, created.text).toBe(201);
      target = { id: created.body.id, version: created.body.version };
    });

    it("BODY_LIMIT_BYTES: a body of exactly the limit is served, one byte more is 413 (REST and GraphQL)", async () => {
      const body = (bytes: number, key: string) => {
        const text = JSON.stringify({ key, name: "", filters: filters({}) });
        return text.replace('"name":""', `"name":"${"n".repeat(bytes - text.length)}"`);
      };
      expect(body(LIMITS.BODY_LIMIT_BYTES, "at-body-limit")).toHaveLength(LIMITS.BODY_LIMIT_BYTES);
      const atLimit = await rest("body at limit", "POST", flagsPath(s), {
        rawBody: body(LIMITS.BODY_LIMIT_BYTES, "at-body-limit"),
      });
      expect(atLimit.status, atLimit.text).toBe(201);
      await refused(
        "REST body over limit",
        () =>
          rest("REST body over", "POST", flagsPath(s), {
            rawBody: body(LIMITS.BODY_LIMIT_BYTES + 1, "over"),
          }),
        413,
        {
          type: "invalid_request",
          code: "payload_too_large",
          detail: `Request body is larger than the limit of ${LIMITS.BODY_LIMIT_BYTES} bytes.`,
        },
      );

      const document = (bytes: number) => {
        const text = JSON.stringify({ query: "{ __typename } #" });
        return text.replace("#", `#${"x".repeat(bytes - text.length)}`);
      };
      expect(document(LIMITS.BODY_LIMIT_BYTES)).toHaveLength(LIMITS.BODY_LIMIT_BYTES);
      const graphqlAt = kept(
        "GraphQL body at limit",
        await s.request("POST", "/graphql", { rawBody: document(LIMITS.BODY_LIMIT_BYTES) }),
      );
      expect(graphqlAt.body, graphqlAt.text).toEqual({ data: { __typename: "Query" } });
      const graphqlOver = kept(
        "GraphQL body over limit",
        await s.request("POST", "/graphql", { rawBody: document(LIMITS.BODY_LIMIT_BYTES + 1) }),
      );
      expect(graphqlOver.status).toBe(413);
      expect(graphqlOver.body).toEqual({
        errors: [
          {
            message: `Request body is larger than the limit of ${LIMITS.BODY_LIMIT_BYTES} bytes.`,
            extensions: { code: "payload_too_large", errorType: "PayloadTooLargeError" },
          },
        ],
      });
    });

    it("BODY_LIMIT_BYTES on the SDK paths: /flags/ and OFREP evaluate a body of exactly the limit and answer 413 to one byte more", async () => {
      const request = (bytes: number) => {
        const text = JSON.stringify({ token, distinct_id: "body-limit", person_properties: { pad: "" } });
        return text.replace('"pad":""', `"pad":"${"p".repeat(bytes - text.length)}"`);
      };
      const context = (bytes: number) => {
        const text = JSON.stringify({ context: { targetingKey: "body-limit", pad: "" } });
        return text.replace('"pad":""', `"pad":"${"p".repeat(bytes - text.length)}"`);
      };
      const json = { "content-type": "application/json" };
      const ofrep = { ...json, authorization: `Bearer ${token}` };
      const flagsAt = await sdk("/flags/ at limit", "/flags/?v=2", {
        raw: request(LIMITS.BODY_LIMIT_BYTES),
        headers: json,
      });
      expect(flagsAt.status, flagsAt.text).toBe(200);
      expect(flagsAt.body.flags["limits-target"].enabled).toBe(true);
      await refused(
        "/flags/ over limit",
        () =>
          sdk("/flags/ over", "/flags/?v=2", { raw: request(LIMITS.BODY_LIMIT_BYTES + 1), headers: json }),
        413,
        {
          type: "invalid_request",
          code: "payload_too_large",
          detail: `Request body is larger than the limit of ${LIMITS.BODY_LIMIT_BYTES} bytes.`,
        },
      );
      const ofrepAt = await sdk("OFREP at limit", "/ofrep/v1/evaluate/flags/limits-target", {
        raw: context(LIMITS.BODY_LIMIT_BYTES),
        headers: ofrep,
      });
      expect(ofrepAt.body, ofrepAt.text).toMatchObject({ key: "limits-target", value: true });
      const ofrepOver = await expectNothingWritten(s.db, "OFREP over limit", () =>
        sdk("OFREP over", "/ofrep/v1/evaluate/flags/limits-target", {
          raw: context(LIMITS.BODY_LIMIT_BYTES + 1),
          headers: ofrep,
        }),
      );
      expect(ofrepOver.status).toBe(413);
      expect(ofrepOver.body).toEqual({
        key: "limits-target",
        errorCode: "GENERAL",
        errorDetails: `Request body is larger than the limit of ${LIMITS.BODY_LIMIT_BYTES} bytes.`,
      });
    });

    it("CAPTURE_BODY_LIMIT_BYTES and CAPTURE_BATCH_BODY_LIMIT_BYTES: exactly the limit is stored, one byte more (or inflating past it) is 413", async () => {
      const event = (bytes: number, name: string) => {
        const text = JSON.stringify({
          api_key: token,
          event: name,
          distinct_id: "body-limit",
          properties: { pad: "" },
        });
        return text.replace('"pad":""', `"pad":"${"p".repeat(bytes - text.length)}"`);
      };
      const batch = (bytes: number, name: string) => {
        const text = JSON.stringify({
          api_key: token,
          batch: [{ event: name, distinct_id: "body-limit", properties: { pad: "" } }],
        });
        return text.replace('"pad":""', `"pad":"${"p".repeat(bytes - text.length)}"`);
      };
      const json = { "content-type": "application/json" };
      const atEvent = await sdk("capture at limit", "/e/", {
        raw: event(LIMITS.CAPTURE_BODY_LIMIT_BYTES, "at-e"),
        headers: json,
      });
      expect(atEvent.status, atEvent.text).toBe(200);
      const atBatch = await sdk("batch at limit", "/batch/", {
        raw: batch(LIMITS.CAPTURE_BATCH_BODY_LIMIT_BYTES, "at-batch"),
        headers: json,
      });
      expect(atBatch.status, atBatch.text).toBe(200);
      expect((await storedEvents(s)).map((e) => e.event)).toEqual(
        expect.arrayContaining(["at-e", "at-batch"]),
      );

      const tooLarge = (limit: number) => ({
        type: "invalid_request",
        code: "payload_too_large",
        detail: `Request body is larger than the limit of ${limit} bytes.`,
      });
      await refused(
        "capture over limit",
        () =>
          sdk("capture over", "/e/", {
            raw: event(LIMITS.CAPTURE_BODY_LIMIT_BYTES + 1, "over-e"),
            headers: json,
          }),
        413,
        tooLarge(LIMITS.CAPTURE_BODY_LIMIT_BYTES),
      );
      await refused(
        "batch over limit",
        () =>
          sdk("batch over", "/batch/", {
            raw: batch(LIMITS.CAPTURE_BATCH_BODY_LIMIT_BYTES + 1, "over-batch"),
            headers: json,
          }),
        413,
        tooLarge(LIMITS.CAPTURE_BATCH_BODY_LIMIT_BYTES),
      );
      const inflating = gzipSync(event(LIMITS.CAPTURE_BODY_LIMIT_BYTES + 1, "over-gzip"));
      expect(inflating.length).toBeLessThan(LIMITS.CAPTURE_BODY_LIMIT_BYTES);
      await refused(
        "gzip inflating past the limit",
        () => sdk("gzip over", "/e/", { raw: inflating, headers: { ...json, "content-encoding": "gzip" } }),
        413,
        tooLarge(LIMITS.CAPTURE_BODY_LIMIT_BYTES),
      );
    });

    it("CAPTURE_MAX_EVENTS_PER_REQUEST: that many events are stored, one more is 413 on every path, and posthog-node splits its batch", async () => {
      const events = (n: number, name: string) =>
        Array.from({ length: n }, (_, i) => ({ event: name, distinct_id: `count-${i}` }));
      const atLimit = await sdk("events at limit", "/batch/", {
        json: { api_key: token, batch: events(LIMITS.CAPTURE_MAX_EVENTS_PER_REQUEST, "count-at") },
      });
      expect(atLimit.status, atLimit.text).toBe(200);
      expect((await storedEvents(s)).filter((e) => e.event === "count-at")).toHaveLength(
        LIMITS.CAPTURE_MAX_EVENTS_PER_REQUEST,
      );
      const tooMany = {
        type: "invalid_request",
        code: "payload_too_large",
        detail: `Request holds more events than the limit of ${LIMITS.CAPTURE_MAX_EVENTS_PER_REQUEST}.`,
      };
      const over = events(LIMITS.CAPTURE_MAX_EVENTS_PER_REQUEST + 1, "count-over");
      await refused(
        "batch of too many events",
        () => sdk("events over /batch/", "/batch/", { json: { api_key: token, batch: over } }),
        413,
        tooMany,
      );
      await refused(
        "event list of too many events",
        () => sdk("events over /e/", "/e/", { json: over.map((e) => ({ ...e, properties: { token } })) }),
        413,
        tooMany,
      );

      // PostHog's SDKs answer a 413 by halving the batch and sending again: nothing is lost.
      const sent = 12;
      const client = await posthogNodeClient(s, { flushAt: sent });
      for (let i = 0; i < sent; i++) client.capture({ distinctId: `node-${i}`, event: "split-by-sdk" });
      await client.shutdown();
      expect((await storedEvents(s)).filter((e) => e.event === "split-by-sdk")).toHaveLength(sent);
    });

    it("FLAG_MAX_CONDITION_GROUPS, FLAG_MAX_PROPERTY_VALUES, FLAG_MAX_VARIANTS: at the limit a flag is created; over it REST answers 400 and GraphQL a typed ValidationError, on create and update", async () => {
      const projectId = String(s.projectId);
      const cases = [
        {
          name: "groups",
          shape: (n: number) => filters({ groups: n }),
          limit: LIMITS.FLAG_MAX_CONDITION_GROUPS,
          detail: `Feature flags can have at most ${LIMITS.FLAG_MAX_CONDITION_GROUPS} condition sets (groups); got ${LIMITS.FLAG_MAX_CONDITION_GROUPS + 1}.`,
          code: "max_length",
        },
        {
          name: "values",
          shape: (n: number) => filters({ values: n }),
          limit: LIMITS.FLAG_MAX_PROPERTY_VALUES,
          detail: `Property group expressions of type email cannot contain more than ${LIMITS.FLAG_MAX_PROPERTY_VALUES} values.`,
          code: "invalid_input",
        },
        {
          name: "variants",
          shape: (n: number) => filters({ variants: n }),
          limit: LIMITS.FLAG_MAX_VARIANTS,
          detail: `Feature flags can have at most ${LIMITS.FLAG_MAX_VARIANTS} variants; got ${LIMITS.FLAG_MAX_VARIANTS + 1}.`,
          code: "max_length",
        },
      ];
      for (const c of cases) {
        const atRest = await rest(`${c.name} at limit`, "POST", flagsPath(s), {
          body: { key: `at-${c.name}`, filters: c.shape(c.limit) },
        });
        expect(atRest.status, atRest.text).toBe(201);
        const atGraphql = await gql(`${c.name} at limit (GraphQL)`, CREATE_FLAG, {
          input: { projectId, key: `gql-at-${c.name}`, filters: graphqlFilters(c.shape(c.limit)) },
        });
        expect(atGraphql.body.data.createFeatureFlag, atGraphql.text).toEqual({
          __typename: "CreateFeatureFlagSuccess",
          featureFlag: { key: `gql-at-${c.name}` },
        });

        const over = c.shape(c.limit + 1);
        const error = { type: "validation_error", code: c.code, detail: c.detail, attr: "filters" };
        await refused(
          `${c.name} over limit (create)`,
          () =>
            rest(`${c.name} over (create)`, "POST", flagsPath(s), {
              body: { key: `over-${c.name}`, filters: over },
            }),
          400,
          error,
        );
        await refused(
          `${c.name} over limit (update)`,
          () =>
            rest(`${c.name} over (update)`, "PATCH", flagsPath(s, `${target.id}/`), {
              body: { filters: over, version: target.version },
            }),
          400,
          error,
        );
        const typed = { message: c.detail, code: c.code, attr: "filters" };
        await refusedTyped(
          `${c.name} over limit (GraphQL create)`,
          () =>
            gql(`${c.name} over (GraphQL create)`, CREATE_FLAG, {
              input: { projectId, key: `gql-over-${c.name}`, filters: graphqlFilters(over) },
            }),
          "createFeatureFlag",
          typed,
        );
        await refusedTyped(
          `${c.name} over limit (GraphQL update)`,
          () =>
            gql(`${c.name} over (GraphQL update)`, UPDATE_FLAG, {
              input: { projectId, id: String(target.id), filters: graphqlFilters(over) },
            }),
          "updateFeatureFlag",
          typed,
        );
      }
    });

    it("MAX_JSON_DEPTH: JSON as deep as the limit is stored, one level more is 400 max_depth (REST) or a typed ValidationError (GraphQL)", async () => {
      const projectId = String(s.projectId);
      const path = flagsPath(s, `${target.id}/`);
      const atRest = await rest("depth at limit", "PATCH", path, {
        body: { rollback_conditions: nestedArrays(LIMITS.MAX_JSON_DEPTH) },
      });
      expect(atRest.status, atRest.text).toBe(200);
      target.version = atRest.body.version;
      const detail = `Ensure this field has no more than ${LIMITS.MAX_JSON_DEPTH} levels of nesting.`;
      await refused(
        "depth over limit",
        () =>
          rest("depth over", "PATCH", path, {
            body: { rollback_conditions: nestedArrays(LIMITS.MAX_JSON_DEPTH + 1) },
          }),
        400,
        { type: "validation_error", code: "max_depth", detail, attr: "rollback_conditions" },
      );
      const atGraphql = await gql("depth at limit (GraphQL)", UPDATE_FLAG, {
        input: {
          projectId,
          id: String(target.id),
          rollbackConditions: [nestedArrays(LIMITS.MAX_JSON_DEPTH - 1)],
        },
      });
      expect(atGraphql.body.data.updateFeatureFlag.__typename, atGraphql.text).toBe(
        "UpdateFeatureFlagSuccess",
      );
      target.version = atGraphql.body.data.updateFeatureFlag.featureFlag.version;
      await refusedTyped(
        "depth over limit (GraphQL)",
        () =>
          gql("depth over (GraphQL)", UPDATE_FLAG, {
            input: {
              projectId,
              id: String(target.id),
              rollbackConditions: nestedArrays(LIMITS.MAX_JSON_DEPTH + 1),
            },
          }),
        "updateFeatureFlag",
        { message: detail, code: "max_depth", attr: "rollback_conditions" },
      );
    });

    it("MAX_HEADER_BYTES: a long URL or header under the limit is served; over it 414 or 431", async () => {
      const under = await rest(
        "URL under limit",
        "GET",
        flagsPath(s, `?search=${"a".repeat(LIMITS.MAX_HEADER_BYTES / 2)}`),
      );
      expect(under.status, under.text).toBe(200);
      await refused(
        "URL over limit",
        () => rest("URL over", "GET", flagsPath(s, `?search=${"a".repeat(LIMITS.MAX_HEADER_BYTES + 1)}`)),
        414,
        {
          type: "invalid_request",
          code: "uri_too_long",
          detail: `Request URI is longer than the limit of ${LIMITS.MAX_HEADER_BYTES} bytes.`,
        },
      );
      const headerUnder = await rest("header under limit", "GET", flagsPath(s), {
        headers: { "x-filler": "b".repeat(LIMITS.MAX_HEADER_BYTES / 2) },
      });
      expect(headerUnder.status).toBe(200);
      await refused(
        "header over limit",
        () =>
          rest("header over", "GET", flagsPath(s), {
            headers: { "x-filler": "b".repeat(LIMITS.MAX_HEADER_BYTES + 1) },
          }),
        431,
        {
          type: "invalid_request",
          code: "request_header_fields_too_large",
          detail: `Request headers are larger than the limit of ${LIMITS.MAX_HEADER_BYTES} bytes.`,
        },
      );
    });

    it("MAX_PAGE_SIZE: a larger page is clamped to the limit, with the next page linked (REST and GraphQL)", async () => {
      const count = (await s.request("GET", flagsPath(s, "?limit=1"))).body.count as number;
      expect(count).toBeGreaterThan(LIMITS.MAX_PAGE_SIZE);
      const atLimit = await rest("page at limit", "GET", flagsPath(s, `?limit=${LIMITS.MAX_PAGE_SIZE}`));
      expect(atLimit.body.results).toHaveLength(LIMITS.MAX_PAGE_SIZE);
      const over = await rest("page over limit", "GET", flagsPath(s, `?limit=${LIMITS.MAX_PAGE_SIZE + 1}`));
      expect(over.status).toBe(200);
      expect(over.body.results).toHaveLength(LIMITS.MAX_PAGE_SIZE);
      expect(over.body.next).toContain(`limit=${LIMITS.MAX_PAGE_SIZE}`);
      const page = (first: number) =>
        gql(
          `GraphQL page of ${first}`,
          `{ project(id: "${s.projectId}") { featureFlags(first: ${first}) { edges { node { key } } pageInfo { hasNextPage } } } }`,
        );
      for (const first of [LIMITS.MAX_PAGE_SIZE, LIMITS.MAX_PAGE_SIZE + 1]) {
        const answer = await page(first);
        expect(answer.body.data.project.featureFlags.edges, answer.text).toHaveLength(LIMITS.MAX_PAGE_SIZE);
        expect(answer.body.data.project.featureFlags.pageInfo.hasNextPage).toBe(true);
      }
    });

    it("GRAPHQL_MAX_DEPTH, _ALIASES, _TOKENS, _COST: a document at each limit runs, one over is refused with QUERY_LIMIT_EXCEEDED before anything runs", async () => {
      const depth = LIMITS.GRAPHQL_MAX_DEPTH;
      const atDepth = await gql("depth at limit", ofTypeChain(depth - 2));
      expect(atDepth.body.errors, atDepth.text).toBeUndefined();
      documentRefused(
        await gql("depth over limit", ofTypeChain(depth - 1)),
        "depth",
        `Query depth limit of ${depth} exceeded, found ${depth + 1}.`,
      );

      const aliases = (n: number) =>
        `{ viewer { ${Array.from({ length: n }, (_, i) => `u${i}: user { email }`).join(" ")} } }`;
      const atAliases = await gql("aliases at limit", aliases(LIMITS.GRAPHQL_MAX_ALIASES));
      expect(atAliases.body.data.viewer[`u${LIMITS.GRAPHQL_MAX_ALIASES - 1}`], atAliases.text).toEqual({
        email: "admin@example.com",
      });
      documentRefused(
        await gql("aliases over limit", aliases(LIMITS.GRAPHQL_MAX_ALIASES + 1)),
        "aliases",
        `Aliases limit of ${LIMITS.GRAPHQL_MAX_ALIASES} exceeded, found ${LIMITS.GRAPHQL_MAX_ALIASES + 1}.`,
      );

      // `{`, `}` and n - 2 names: n tokens.
      const tokens = (n: number) => `{ ${"__typename ".repeat(n - 2)}}`;
      const atTokens = await gql("tokens at limit", tokens(LIMITS.GRAPHQL_MAX_TOKENS));
      expect(atTokens.body, atTokens.text).toEqual({ data: { __typename: "Query" } });
      documentRefused(
        await gql("tokens over limit", tokens(LIMITS.GRAPHQL_MAX_TOKENS + 1)),
        "tokens",
        `Token limit of ${LIMITS.GRAPHQL_MAX_TOKENS} exceeded: the document is too long.`,
      );

      // graphql-armor's static cost (docs/graphql.md): an object field 2, a scalar 1, each × 1.5 per level, so
      // `{ viewer { user { email × n } } }` costs 2 + 2 × 1.5 + n × 1.5².
      const costOf = (scalars: number) => 2 + 2 * 1.5 + 2.25 * scalars;
      const scalars = Math.floor((LIMITS.GRAPHQL_MAX_COST - costOf(0)) / 2.25);
      const emails = (n: number) => `{ viewer { user { ${"email ".repeat(n)}} } }`;
      const atCost = await gql("cost at limit", emails(scalars));
      expect(atCost.body, atCost.text).toEqual({
        data: { viewer: { user: { email: "admin@example.com" } } },
      });
      documentRefused(
        await gql("cost over limit", emails(scalars + 1)),
        "cost",
        `Query Cost limit of ${LIMITS.GRAPHQL_MAX_COST} exceeded, found ${costOf(scalars + 1)}.`,
      );
    });

    itWhere(backend === "postgres")(
      "QUERY_TIMEOUT_MS and QUERY_MAX_CONCURRENT_PER_PROJECT: a run over the timeout is 400 query_timeout and a run beyond the cap 429, through REST and GraphQL",
      async () => {
        const hogql = { kind: "HogQLQuery", query: "SELECT count() FROM events" };
        const created = await s.request("POST", `/api/projects/${s.projectId}/endpoints/`, {
          body: { name: "held", query: hogql, is_materialized: false },
        });
        expect(created.status, created.text).toBe(201);
        const restRun = () =>
          rest("REST query run", "POST", `/api/projects/${s.projectId}/query/`, { body: { query: hogql } });
        const graphqlRun = () =>
          gql(
            "GraphQL endpoint run",
            `{ project(id: "${s.projectId}") { endpoint(name: "held") { run(input: { refresh: FORCE_BLOCKING }) { __typename
              ... on EndpointRunSuccess { result { endpointVersion } } ... on Error { message code } } } } }`,
          );
        const runOf = (answer: TestResponse) => answer.body.data.project.endpoint.run;
        const timeout = `Query exceeded the statement timeout of ${LIMITS.QUERY_TIMEOUT_MS} ms.`;
        const tooMany = "Too many concurrent requests. Please try again later.";

        // Within the timeout and the cap, both doors run.
        const fine = await restRun();
        expect(fine.status, fine.text).toBe(200);
        expect(runOf(await graphqlRun()).__typename).toBe("EndpointRunSuccess");

        // A REST run waits on a lock past the timeout and holds the project's one slot meanwhile.
        let lock = await lockTable(s.databaseUrl!, "events");
        try {
          const held = restRun();
          await lock.waitForWaiter();
          expect(runOf(await graphqlRun())).toEqual({
            __typename: "TooManyRequestsError",
            message: tooMany,
            code: "throttled",
          });
          const answer = await held;
          expect(answer.status, answer.text).toBe(400);
          expect(answer.body).toEqual({
            type: "validation_error",
            code: "query_timeout",
            detail: timeout,
            attr: null,
          });
        } finally {
          await lock.release();
        }

        // The same the other way round.
        lock = await lockTable(s.databaseUrl!, "events");
        try {
          const held = graphqlRun();
          await lock.waitForWaiter();
          // Not through `refused`: its dump of every table would wait on the lock too.
          const beyond = await restRun();
          expect(beyond.status).toBe(429);
          expect(beyond.body).toEqual({
            type: "throttled_error",
            code: "throttled",
            detail: tooMany,
            attr: null,
          });
          // An endpoint's run wraps engine errors as PostHog's does (src/endpoints/run/endpoint-run.ts).
          expect(runOf(await held)).toEqual({
            __typename: "ValidationError",
            message: `Query execution failed: ${timeout}`,
            code: "query_timeout",
          });
        } finally {
          await lock.release();
        }
        expect((await restRun()).status).toBe(200);
      },
      30_000,
    );

    it("QUERY_MAX_COST: a query estimated above it is refused before it runs, 400 query_too_expensive through REST and GraphQL", async () => {
      const numbers = Array.from({ length: 100 }, (_, n) => n).join(", ");
      const sets = Array.from({ length: 7 }, (_, i) => `(SELECT arrayJoin([${numbers}]) AS x${i}) AS t${i}`);
      const hostile = { kind: "HogQLQuery", query: `SELECT count() FROM ${sets.join(" CROSS JOIN ")}` };
      const refused = kept(
        "REST query over the cost limit",
        await s.request("POST", `/api/projects/${s.projectId}/query/`, { body: { query: hostile } }),
      );
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body).toMatchObject({
        type: "validation_error",
        code: "query_too_expensive",
        attr: null,
      });
      expect(refused.body.detail).toMatch(
        /^Query is too expensive to run: its estimated cost is [\d,]+, above the limit of 100,000,000,000 \(QUERY_MAX_COST\)\./,
      );

      const created = await s.request("POST", `/api/projects/${s.projectId}/endpoints/`, {
        body: { name: "too-expensive", query: hostile, is_materialized: false },
      });
      expect(created.status, created.text).toBe(201);
      const run = await gql(
        "GraphQL endpoint run over the cost limit",
        `{ project(id: "${s.projectId}") { endpoint(name: "too-expensive") { run(input: { refresh: FORCE_BLOCKING }) {
          __typename ... on Error { message code } } } } }`,
      );
      expect(run.body.data.project.endpoint.run).toMatchObject({
        __typename: "ValidationError",
        code: "query_too_expensive",
      });
      // Nothing ran: an ordinary query answers at once.
      const after = await s.request("POST", `/api/projects/${s.projectId}/query/`, {
        body: { query: { kind: "HogQLQuery", query: "SELECT 1" } },
      });
      expect(after.status, after.text).toBe(200);
    });

    itWhere(backend === "pglite")(
      "QUERY_TIMEOUT_MS on the embedded database: a query past it is stopped, 400 query_timeout through REST and GraphQL, while the server answers meanwhile",
      async () => {
        // Five cross-joined sets of 100 rows: 10^10 rows, minutes of work without the timeout.
        const numbers = Array.from({ length: 100 }, (_, n) => n).join(", ");
        const sets = [0, 1, 2, 3, 4].map((i) => `(SELECT arrayJoin([${numbers}]) AS x${i}) AS t${i}`);
        const hostile = { kind: "HogQLQuery", query: `SELECT count() FROM ${sets.join(" CROSS JOIN ")}` };
        const timeout = `Query exceeded the statement timeout of ${LIMITS.QUERY_TIMEOUT_MS} ms.`;
        const poll = `/api/feature_flag/local_evaluation/?token=${token}`;
        expect((await s.request("GET", poll)).status).toBe(200);

        const order: string[] = [];
        const query = rest("REST query past the timeout", "POST", `/api/projects/${s.projectId}/query/`, {
          body: { query: hostile },
        }).then((answer) => {
          order.push("query");
          return answer;
        });
        // While the statement runs on the database's thread, this thread serves what needs no database.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const health = await s.request("GET", "/healthz");
        order.push("healthz");
        const polled = await s.request("GET", poll);
        order.push("poll");
        const answer = await query;
        expect([health.status, polled.status]).toEqual([200, 200]);
        expect(order).toEqual(["healthz", "poll", "query"]);
        expect(answer.status, answer.text).toBe(400);
        expect(answer.body).toEqual({
          type: "validation_error",
          code: "query_timeout",
          detail: timeout,
          attr: null,
        });

        const created = await s.request("POST", `/api/projects/${s.projectId}/endpoints/`, {
          body: { name: "hostile", query: hostile, is_materialized: false },
        });
        expect(created.status, created.text).toBe(201);
        const run = await gql(
          "GraphQL endpoint run past the timeout",
          `{ project(id: "${s.projectId}") { endpoint(name: "hostile") { run(input: { refresh: FORCE_BLOCKING }) {
            __typename ... on Error { message code } } } } }`,
        );
        expect(run.body.data.project.endpoint.run).toEqual({
          __typename: "ValidationError",
          message: `Query execution failed: ${timeout}`,
          code: "query_timeout",
        });
        // The database was reopened with everything it held: the endpoint is there and queries run.
        const after = await s.request("POST", `/api/projects/${s.projectId}/query/`, {
          body: { query: { kind: "HogQLQuery", query: "SELECT count() FROM events" } },
        });
        expect(after.status, after.text).toBe(200);
        expect((await s.request("GET", `/api/projects/${s.projectId}/endpoints/hostile/`)).status).toBe(200);
      },
      60_000,
    );

    it("logged no unexpected error", () => {
      expect(s.errorLogs).toEqual([]);
    });
  },
  { env: Object.fromEntries(Object.entries(LIMITS).map(([name, value]) => [name, String(value)])) },
);
