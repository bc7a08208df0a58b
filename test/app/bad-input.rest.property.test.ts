/**
 * Generated bad input on the REST door (issue 6 §5), on PGlite and PostgreSQL: every write route of the
 * route tables (POST, PUT, PATCH, DELETE; `REST_MODULES`, not a hand list) gets random JSON bodies,
 * values of the wrong type in every field, Unicode edge cases (NUL, lone surrogates, RTL marks, emoji),
 * values nested thousands deep in stored JSON, huge strings, bodies over the limit, prototype keys and
 * hostile bodies (multipart cut short, part headers that never end, NUL in form fields, bad and bomb
 * `Content-Encoding`s, clients gone mid-body), anonymous or with a key, and so does every other door
 * that takes a body (the SDK paths, /graphql); every route gets bad query parameters. Whatever comes in: never a 5xx (but the 501 of operations not
 * built yet), no error logged, every refusal PostHog's `{type, code, detail, attr}` (or the empty body
 * a route declares) with the database unchanged, and every success a well-formed record; after each
 * hostile body the server still answers and the process raised nothing (support/still-serving.ts).
 *
 * Field names come from the record the flag routes return, so new fields are fuzzed as they land.
 * fast-check runs a fixed number of cases from a fixed seed (`FAST_CHECK_SEED` overrides it) and
 * prints the seed and the shrunk input of any failure.
 */
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "../../src/config.js";
import type { RestRoute } from "../../src/rest/route.js";
import { createChangeRequestFixture, createPolicyFixture } from "../support/approvals.js";
import {
  deeplyNestedJson,
  edgeString,
  type HostileBody,
  hostileBody,
  hugeString,
  jsonValue,
  keysIn,
  PROTOTYPE_KEYS,
  propertyRuns,
  stringWithNul,
  withPrototypeKeys,
} from "../support/arbitraries.js";
import { dumpRows } from "../support/db-dump.js";
import { createFlag } from "../support/flags.js";
import { sendCutShort } from "../support/raw-request.js";
import {
  collectionOf,
  fillPath,
  hasBody,
  KEY_ROUTES,
  type KeyRoute,
  type PathValues,
  ROUTES,
} from "../support/rest-routes.js";
import { SDK_ROUTES } from "../support/sdk-routes.js";
import { describeEachBackend, readResponse, type TestResponse, type TestServer } from "../support/server.js";
import { expectStillServing, watchProcessFailures } from "../support/still-serving.js";
import {
  createEndpoint,
  createEventDefinition,
  createEventSchema,
  createHoldout,
  createPropertyDefinition,
  createSavedMetric,
  createScheduledChange,
  createSchemaPropertyGroup,
  createTenancy,
  createWebhook,
  endpointName,
} from "../support/tenancy.js";

const BODY_LIMIT_BYTES = loadConfig({}).limits.bodyLimitBytes;
const WRITE_ROUTES = ROUTES.filter((route) => route.method !== "GET");

/** Query parameter names the list routes read (paging, search, order), besides the record's field names. */
const QUERY_NAMES = ["limit", "offset", "page", "search", "order", "personal_api_key"];

/** Raw query values that are not valid percent-encoding or not valid UTF-8 once decoded. */
const MALFORMED_QUERY_VALUES = [
  "%",
  "%0",
  "%ZZ",
  "%00",
  "%C0%80",
  "%FF%FE",
  "%ED%A0%80",
  "a%00b",
  "%E2%80%AE",
];

/** A rich flag: its record names every nested field (groups, properties, variants, payloads). */
const RICH_FLAG = {
  name: "Rich",
  tags: ["a"],
  evaluation_tags: ["a"],
  rollback_conditions: [{ threshold: 1, threshold_type: "insight", threshold_metric: {}, operator: "gt" }],
  filters: {
    groups: [
      {
        properties: [{ key: "email", type: "person", value: ["a@b.c"], operator: "exact" }],
        rollout_percentage: 50,
        variant: null,
      },
    ],
    multivariate: {
      variants: [
        { key: "control", name: "Control", rollout_percentage: 50 },
        { key: "test", name: "Test", rollout_percentage: 50 },
      ],
    },
    payloads: { control: '{"a": 1}' },
    aggregation_group_type_index: null,
  },
};

/** The fields of a route's declared body schema (none when it declares no object body). */
function bodyFields(route: RestRoute): Set<string> {
  const schema = route.request?.body;
  return new Set(schema instanceof z.ZodObject ? Object.keys(schema.shape) : []);
}

/** Percent-encodes `text`'s UTF-8 bytes (a lone surrogate becomes U+FFFD's bytes, as a browser sends it). */
function percentEncode(text: string): string {
  return [...Buffer.from(text, "utf8")]
    .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`)
    .join("");
}

/** A query string: names from `names` or random, values encoded edge strings or malformed raw escapes. */
function queryString(names: readonly string[]): fc.Arbitrary<string> {
  const name = fc.oneof(fc.constantFrom(...names), edgeString.map(percentEncode));
  const value = fc.oneof(edgeString.map(percentEncode), fc.constantFrom(...MALFORMED_QUERY_VALUES));
  return fc
    .array(fc.tuple(name, value), { minLength: 1, maxLength: 5 })
    .map((pairs) => `?${pairs.map(([n, v]) => `${n}=${v}`).join("&")}`);
}

let keyCounter = 0;
/** A valid flag key no other request of this file uses (deterministic, unlike a random one). */
const freshKey = () => `fuzz-${++keyCounter}`;

describeEachBackend("REST routes under generated bad input", (server) => {
  watchProcessFailures();
  let own: PathValues;
  let vocabulary: string[];
  /** The flag the scheduled changes of the properties target (no write route changes it). */
  let scheduledFlag: number;
  /** Per write route: whether it reads its body (false: it answers 405 or 501 whatever the body). */
  const readsBody = new Map<RestRoute, boolean>();

  /** A new flag like RICH_FLAG; returns its record. */
  const createRichFlag = (project: number) =>
    createFlag(server(), { ...RICH_FLAG, key: freshKey() }, project);

  beforeAll(async () => {
    const s = server();
    const t = await createTenancy(s, "fuzz");
    scheduledFlag = t.flag;
    const rich = await createRichFlag(t.project);
    own = {
      project_id: t.project,
      organization_id: t.organization,
      ids: {
        feature_flags: rich.id,
        cohorts: t.cohort,
        persons: t.person.id,
        event_definitions: t.eventDefinition,
        schema_property_groups: t.schemaPropertyGroup,
        event_schemas: t.eventSchema,
        property_definitions: t.propertyDefinition,
        dashboards: t.dashboard,
        experiments: t.experiment,
        experiment_holdouts: t.holdout,
        experiment_saved_metrics: t.savedMetric,
        webhooks: t.webhook,
        scheduled_changes: t.scheduledChange,
        approval_policies: t.approvalPolicy,
        change_requests: t.changeRequest,
      },
      name: t.endpoint,
      version_number: 1,
    };
    vocabulary = [...keysIn(rich), "original_flag"];
    for (const route of WRITE_ROUTES) {
      const reference = await s.request(route.method, fillPath(route.path, own), { body: {} });
      // No DELETE reads its body (DRF's `destroy` ignores it).
      readsBody.set(route, route.method !== "DELETE" && reference.status !== 405 && reference.status !== 501);
    }
  });

  /** Puts experiment `id` back as a live draft on its flag (what a property may have changed: dates, archived, deleted). */
  const resetExperiment = async (id: number) => {
    await server().db.experiment.update({
      where: { id },
      data: { deleted: false, archived: false, startDate: null, endDate: null, holdoutId: null },
    });
    return id;
  };

  /**
   * Gives `route`'s property objects of their own before it runs: a new object for the collection its
   * `:id` indexes (a rich flag, an event definition, ...) and a new endpoint for its `:name`, so that
   * what one property manages to store cannot break the next. A GET writes nothing and keeps the
   * shared ones; so do collections no write route changes in place (cohorts, persons, dashboards).
   */
  const freshFor = async (route: KeyRoute) => {
    if (route.method === "GET") return;
    const s = server();
    const project = own.project_id;
    const ids = { ...own.ids };
    switch (collectionOf(route.path)) {
      case "feature_flags":
        ids.feature_flags = (await createRichFlag(project)).id;
        break;
      case "event_definitions":
        ids.event_definitions = await createEventDefinition(s, project, freshKey());
        break;
      case "schema_property_groups":
        ids.schema_property_groups = await createSchemaPropertyGroup(s, project, freshKey());
        break;
      case "event_schemas":
        ids.event_schemas = await createEventSchema(
          s,
          project,
          await createEventDefinition(s, project, freshKey()),
          await createSchemaPropertyGroup(s, project, freshKey()),
        );
        break;
      case "property_definitions":
        ids.property_definitions = await createPropertyDefinition(s, project, freshKey());
        break;
      case "experiments":
        // A new experiment costs a flag and its usage dashboard: the tenancy's is put back as a
        // draft instead (a fixture write, as the person rows), which is all a property can change.
        ids.experiments = await resetExperiment(own.ids["experiments"] as number);
        break;
      case "experiment_holdouts":
        ids.experiment_holdouts = await createHoldout(s, project, freshKey());
        break;
      case "experiment_saved_metrics":
        ids.experiment_saved_metrics = await createSavedMetric(s, project, freshKey());
        break;
      case "webhooks":
        ids.webhooks = await createWebhook(s, project);
        break;
      case "scheduled_changes":
        ids.scheduled_changes = await createScheduledChange(s, project, scheduledFlag);
        break;
      case "approval_policies":
        ids.approval_policies = await createPolicyFixture(s, project);
        break;
      case "change_requests":
        // One the key's user may not vote on (its own) or cancel (another's): every call with a valid
        // body answers the same 403, so a call's answer does not depend on the calls before it.
        ids.change_requests = await createChangeRequestFixture(
          s,
          project,
          scheduledFlag,
          route.path.endsWith("/cancel/") ? "other" : "self",
        );
        break;
    }
    const name = route.path.includes(":name")
      ? await createEndpoint(s, project, endpointName(freshKey()))
      : own.name;
    own = { ...own, ids, ...(name === undefined ? {} : { name }) };
  };

  /**
   * Sends one request and checks the invariants of the module comment. Returns the response.
   * `label` names the case in failure messages (fast-check adds the generated input).
   */
  const check = async (
    route: KeyRoute,
    label: string,
    send: (s: TestServer) => Promise<TestResponse>,
  ): Promise<TestResponse> => {
    const s = server();
    const logged = s.errorLogs.length;
    const before = await dumpRows(s.db);
    const response = await send(s);
    const what = `${route.method} ${route.path} ${label}: ${response.status} ${response.text.slice(0, 300)}`;
    expect(s.errorLogs.slice(logged), `${what}: logged an error`).toEqual([]);
    if (response.status === 501) expect(response.body?.code, what).toBe("not_implemented");
    else expect(response.status, what).toBeLessThan(500);
    if (response.status >= 400) {
      expect(await dumpRows(s.db), `${what}: wrote to the database`).toEqual(before);
      if (response.text === "" && route.emptyBodyOn) return response;
      // A route with PostHog's own body for some errors (bulk_keys' `{"error": ...}`) answers it.
      if (route.errorBody && !("attr" in (response.body ?? {}))) {
        expect(route.responses[response.status], `${what}: an undeclared body`).toBeDefined();
        return response;
      }
      expect(Object.keys(response.body ?? {}).sort(), what).toEqual(["attr", "code", "detail", "type"]);
      expect(response.body, what).toMatchObject({
        type: expect.any(String),
        code: expect.any(String),
        detail: expect.any(String),
      });
      expect(response.body.attr === null || typeof response.body.attr === "string", what).toBe(true);
    } else if (route.method === "GET") {
      expect(response.body !== null && typeof response.body === "object", what).toBe(true);
    } else if (response.status === 204) {
      // A delete that went through (event definitions): no body.
      expect(response.text, what).toBe("");
    } else if (Array.isArray(response.body)) {
      // A write that answers a list (group types' `update_metadata`): records, each an object.
      for (const item of response.body) expect(item !== null && typeof item === "object", what).toBe(true);
    } else {
      // A record, or for an action that answers something else (bulk keys, a blast radius), its
      // declared shape.
      const declared = route.responses[response.status];
      if (declared && !("id" in (declared instanceof z.ZodObject ? declared.shape : {}))) {
        expect(declared.safeParse(response.body).success, what).toBe(true);
      } else {
        // Integer ids (flags, cohorts) or UUIDs (event definitions).
        expect(["number", "string"], what).toContain(typeof response.body?.id);
      }
    }
    return response;
  };

  /** `n` runs for a route that reads its body; a few for one that answers 405 or 501 whatever it is sent. */
  const runsFor = (route: RestRoute, n: number) => (readsBody.get(route) ? n : Math.min(n, 3));

  /** Sends `raw` (JSON text) as the body of `route` on the fixtures. */
  const sendRaw = (route: RestRoute, raw: string) => (s: TestServer) =>
    s.request(route.method, fillPath(route.path, own), { rawBody: raw });

  /** Sends `body` (a JSON value) to `route` on the fixtures. */
  const sendJson = (route: RestRoute, body: unknown) => sendRaw(route, JSON.stringify(body));

  /**
   * Sends `body` to `method path` (with the all-scopes key unless `anonymous`): cut short by the
   * client when it says so (then there is no answer: undefined), else whole, for its answer.
   */
  const sendHostile = async (
    s: TestServer,
    request: { method: string; path: string; body: HostileBody; anonymous: boolean },
  ): Promise<TestResponse | undefined> => {
    const { body } = request;
    const headers = { ...body.headers, ...(request.anonymous ? {} : { authorization: `Bearer ${s.key}` }) };
    if (body.cutAfter !== undefined) {
      await sendCutShort(s.baseUrl, { ...request, headers, body: body.body, cutAfter: body.cutAfter });
      return undefined;
    }
    const init = { method: request.method, headers, body: new Uint8Array(body.body) };
    return readResponse(await fetch(`${s.baseUrl}${request.path}`, init));
  };

  for (const route of WRITE_ROUTES) {
    const name = `${route.method} ${route.path}`;

    it(`${name}: hostile bodies, anonymous or with a key; the server goes on serving`, async () => {
      await freshFor(route);
      await fc.assert(
        fc.asyncProperty(hostileBody(vocabulary), fc.boolean(), async (body, anonymous) => {
          const s = server();
          const logged = s.errorLogs.length;
          const label = `${body.label}${anonymous ? ", anonymous" : ""}`;
          const request = { method: route.method, path: fillPath(route.path, own), body, anonymous };
          if (body.cutAfter === undefined) {
            await check(route, label, async () => (await sendHostile(s, request))!);
          } else {
            const before = await dumpRows(s.db);
            await sendHostile(s, request);
            expect(await dumpRows(s.db), `${name} ${label}: wrote to the database`).toEqual(before);
          }
          await expectStillServing(s, `${name} ${label}`, logged);
        }),
        propertyRuns(runsFor(route, 6), WRITE_ROUTES.indexOf(route)),
      );
    });

    it(`${name}: any JSON value as the body`, async () => {
      await freshFor(route);
      await fc.assert(
        fc.asyncProperty(jsonValue(vocabulary), async (body) => {
          await check(route, "random JSON", sendJson(route, body));
        }),
        propertyRuns(runsFor(route, 20)),
      );
    });

    it(`${name}: values of any type in the record's fields`, async () => {
      await freshFor(route);
      const fields = fc.dictionary(fc.constantFrom(...vocabulary), jsonValue(vocabulary), {
        minKeys: 1,
        maxKeys: 5,
      });
      await fc.assert(
        fc.asyncProperty(fields, fc.boolean(), async (body, withKey) => {
          const sent = withKey ? { key: freshKey(), ...body } : body;
          await check(route, "wrong types", sendJson(route, sent));
        }),
        propertyRuns(runsFor(route, 30)),
      );
    });

    it(`${name}: Unicode edge cases in strings, a NUL refused with DRF's message`, async () => {
      await freshFor(route);
      const strings = fc.record({
        key: edgeString,
        name: edgeString,
        tags: fc.array(edgeString, { maxLength: 3 }),
        value: edgeString,
        payload: edgeString,
      });
      await fc.assert(
        fc.asyncProperty(strings, async (v) => {
          const body = {
            key: v.key,
            name: v.name,
            tags: v.tags,
            filters: {
              groups: [{ properties: [{ key: "email", type: "person", value: v.value, operator: "exact" }] }],
              payloads: { true: v.payload },
            },
          };
          const response = await check(route, "unicode", sendJson(route, body));
          if (response.status < 300) expect(response.text.includes("\\u0000"), "stored a NUL").toBe(false);
        }),
        propertyRuns(runsFor(route, 20)),
      );
      // A NUL is refused in the fields the route takes; others are unknown fields, ignored as DRF does.
      // A route whose body is a list (group types' `update_metadata`) has its own NUL test (test/groups/).
      const known = ["name", "key", "tags"].filter((field) => bodyFields(route).has(field));
      if (!readsBody.get(route) || known.length === 0) return;
      const fields = fc.constantFrom(...known);
      await fc.assert(
        fc.asyncProperty(fields, stringWithNul, async (field, text) => {
          const body = field === "tags" ? { tags: [text] } : { [field]: text };
          const response = await check(
            route,
            `NUL in ${field}`,
            sendJson(route, { key: freshKey(), ...body }),
          );
          expect(response.status).toBe(400);
          expect(response.body).toMatchObject({
            code: "null_characters_not_allowed",
            detail: "Null characters are not allowed.",
          });
          expect(response.body.attr).toMatch(new RegExp(`^${field}`));
        }),
        propertyRuns(runsFor(route, 6)),
      );
    });

    it(`${name}: JSON nested 2,000 to 20,000 deep, refused with a 400 naming the field`, async () => {
      await freshFor(route);
      const placements: Array<[string | null, (inner: string) => string]> = [
        [
          "filters",
          (inner) =>
            `{"groups":[{"properties":[{"key":"email","type":"person","operator":"exact","value":${inner}}]}]}`,
        ],
        ["filters", (inner) => `{"payloads":{"true":${inner}}}`],
        ["filters", (inner) => `{"groups":[${inner}]}`],
        ["rollback_conditions", (inner) => inner],
        [null, (inner) => inner],
      ];
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...placements), deeplyNestedJson, async ([field, place], deep) => {
          const inner = deep.text;
          const raw = field === null ? place(inner) : `{"key":"${freshKey()}","${field}":${place(inner)}}`;
          const response = await check(route, `nested in ${field ?? "the body"}`, sendRaw(route, raw));
          if (!readsBody.get(route)) return;
          expect(response.status).toBe(400);
          if (field !== null) expect(response.body.attr).toMatch(new RegExp(`^${field}`));
        }),
        propertyRuns(runsFor(route, 8)),
      );
    });

    it(`${name}: huge strings, and bodies over the limit refused with 413`, async () => {
      await freshFor(route);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom("key", "name", "tags", "_create_in_folder"),
          hugeString,
          async (field, text) => {
            const body = field === "tags" ? { tags: [text] } : { [field]: text };
            await check(route, `huge ${field}`, sendJson(route, { key: freshKey(), ...body }));
          },
        ),
        propertyRuns(runsFor(route, 5)),
      );
      const over = JSON.stringify({ key: freshKey(), name: "x".repeat(BODY_LIMIT_BYTES) });
      const response = await check(route, "over the body limit", sendRaw(route, over));
      expect(response.status).toBe(413);
      expect(response.body.code).toBe("payload_too_large");
    });

    it(`${name}: prototype keys are plain unknown keys, and pollute nothing`, async () => {
      await freshFor(route);
      const extras = fc.array(
        fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS), jsonValue(["polluted", "isAdmin", "key"])),
        {
          minLength: 1,
          maxLength: 3,
        },
      );
      await fc.assert(
        fc.asyncProperty(extras, async (extra) => {
          // A fresh `name` too: it is the unique field of event definitions.
          const plain = { key: freshKey(), name: `Prototype keys ${freshKey()}` };
          const withExtra = await check(
            route,
            "prototype keys",
            sendRaw(route, withPrototypeKeys(plain, extra)),
          );
          expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain("polluted");
          expect(({} as Record<string, unknown>)["isAdmin"]).toBeUndefined();
          const without = await check(
            route,
            "the same body without them",
            sendJson(route, { ...plain, key: freshKey(), name: `Prototype keys ${freshKey()}` }),
          );
          // A route that ignores its body (a DELETE) may answer the second call differently: its object is gone.
          if (readsBody.get(route)) {
            expect(withExtra.status, "prototype keys changed the answer").toBe(without.status);
          }
        }),
        propertyRuns(runsFor(route, 8)),
      );
    });
  }

  it("hostile bodies on the other doors that take one: every SDK path and /graphql", async () => {
    const paths = [
      ...new Set(SDK_ROUTES.filter((route) => route.methods.includes("POST")).map((route) => route.path)),
    ];
    const targets = [
      ...paths.map((path) => path.replace(":token", "phc_unknown").replace(":key", "a-flag")),
      "/graphql",
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...targets),
        hostileBody(vocabulary),
        fc.boolean(),
        async (path, body, anonymous) => {
          const s = server();
          const logged = s.errorLogs.length;
          const label = `POST ${path} ${body.label}${anonymous ? ", anonymous" : ""}`;
          const answer = await sendHostile(s, { method: "POST", path, body, anonymous });
          if (answer) expect(answer.status, `${label}: ${answer.text.slice(0, 300)}`).toBeLessThan(500);
          await expectStillServing(s, label, logged);
        },
      ),
      propertyRuns(60),
    );
  });

  for (const route of KEY_ROUTES) {
    it(`${route.method} ${route.path}: bad query parameters`, async () => {
      await freshFor(route);
      const names = [...QUERY_NAMES, ...vocabulary];
      await fc.assert(
        fc.asyncProperty(queryString(names), async (query) => {
          await check(route, `query ${query}`, (s) =>
            s.request(
              route.method,
              `${fillPath(route.path, own)}${query}`,
              hasBody(route.method) ? { body: {} } : {},
            ),
          );
        }),
        propertyRuns(10),
      );
    });

    it(`${route.method} ${route.path}: a query string over the header size limit`, async () => {
      await freshFor(route);
      const query = `?search=${"a".repeat(100_000)}`;
      await check(route, "100 KB query", (s) =>
        s.request(route.method, `${fillPath(route.path, own)}${query}`),
      );
    });
  }
});
