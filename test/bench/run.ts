import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { chdbInstalled, openTestClickHouse } from "../support/clickhouse.js";
import { localEvaluator } from "../support/flag-parity.js";
import { postgresAnswers } from "../support/postgres.js";
import type { BenchReady } from "./server.js";
import { startServer, stopServer, tellServer } from "./server-process.js";

const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 3);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 4);
const WARMUP_SECONDS = Number(process.env["BENCH_WARMUP_SECONDS"] ?? 1);
const CONNECTIONS = Number(process.env["BENCH_CONNECTIONS"] ?? 10);
const ONLY = process.env["BENCH_ONLY"]?.split(",").map((name) => name.trim());
const BACKENDS = (process.env["BENCH_BACKENDS"] ?? "pglite,postgres").split(",").map((name) => name.trim());
const PROFILE_DIR = process.env["BENCH_CPU_PROF_DIR"];

/** One measured load: rates, latencies and what the responses said. */
interface Measured {
  perSecond: number;
  p50: number;
  p99: number;
  /** Statements per request as reported by `Server-Timing`: one value, or `min–max`. */
  statements: string;
  /** Response count by status. */
  statuses: Map<number, number>;
  /** CPU time of the server process per answered request (ms), when measured (`measureSide`). */
  cpuMs?: number;
  errors: number;
}

/** A request as autocannon sends it; `setup` may rewrite it per request (per-connection `context`). */
interface Target {
  url: string;
  method?: "GET" | "POST" | "PATCH";
  headers?: Record<string, string>;
  body?: string;
  setup?: (request: autocannon.Request, context: Record<string, unknown>) => autocannon.Request;
  onResponse?: (status: number, headers: Record<string, string>) => void;
}

function statementsOf(headers: Record<string, string>): number | null {
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== "server-timing") continue;
    const count = /desc="(\d+) statements?"/.exec(String(value))?.[1];
    return count === undefined ? null : Number(count);
  }
  return null;
}

async function load(target: Target, seconds: number): Promise<Measured> {
  const url = new URL(target.url);
  const statuses = new Map<number, number>();
  const counts: number[] = [];
  const result = await autocannon({
    url: url.origin,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: target.method ?? "GET",
        path: `${url.pathname}${url.search}`,
        headers: { ...target.headers, ...(target.body ? { "content-type": "application/json" } : {}) },
        ...(target.body ? { body: target.body } : {}),
        ...(target.setup
          ? { setupRequest: (request, context) => target.setup!(request, context as Record<string, unknown>) }
          : {}),
        onResponse: (status, _body, _context, raw) => {
          const headers = (raw ?? {}) as Record<string, string>;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          const count = statementsOf(headers);
          if (count !== null) counts.push(count);
          target.onResponse?.(status, headers);
        },
      },
    ],
  });
  // A loop, not Math.min(...counts): a fast figure answers more requests than a call takes arguments.
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const count of counts) {
    min = Math.min(min, count);
    max = Math.max(max, count);
  }
  return {
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statements: counts.length === 0 ? "?" : min === max ? String(min) : `${min}–${max}`,
    statuses,
    errors: result.errors + result.timeouts,
  };
}

/** Fails unless every answer of `measured` is one of `expected`. */
function check(name: string, measured: Measured, expected: readonly number[]): Measured {
  const unexpected = [...measured.statuses].filter(([status]) => !expected.includes(status));
  if (unexpected.length > 0 || measured.errors > 0) {
    throw new Error(
      `${name}: expected only ${expected}, got ${JSON.stringify(Object.fromEntries(measured.statuses))}, ${measured.errors} socket errors/timeouts`,
    );
  }
  return measured;
}

/** One side of a figure: what to load and the statuses it may answer. */
interface Side {
  name: string;
  target: Target;
  expected: readonly number[];
}

/** A row of the table: our side, and what it is compared with (a baseline, or another of our figures). */
interface Figure {
  id: string;
  name: string;
  ours: Side;
  against?: Side | { name: string; figure: string };
  /** Events each request carries, when the figure is also read as events per second. */
  eventsPerRequest?: number;
}

/** What a figure measured over the rounds. */
interface Result {
  figure: Figure;
  ours: Measured[];
  against: Measured[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The median of `values`: the mean of the two middle ones when they are even in number. */
function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

/** Fails unless both URLs answer the same bytes (the baseline must do the same work as ours). */
async function assertSameBytes(
  what: string,
  ours: string,
  baseline: string,
  headers: Record<string, string>,
) {
  const [a, b] = await Promise.all(
    [ours, baseline].map(async (url) => (await fetch(url, { headers })).text()),
  );
  if (a !== b) {
    let at = 0;
    while (a![at] === b![at]) at++;
    throw new Error(
      `${what}: baseline bytes differ at ${at}:\n ours: ${a!.slice(at - 40, at + 80)}\n base: ${b!.slice(at - 40, at + 80)}`,
    );
  }
}

/**
 * The same page in PostGraphile's Amber naming: flags of the project, newest first, each with its
 * global id, row id, key, active, version, tag names and both users' emails, and the total count:
 * what `OUR_QUERY` selects, field for field (tags in primary-key order, ours by name).
 */
const POSTGRAPHILE_QUERY = (projectId: number, flags: number, withTags = true) =>
  `{ allFeatureFlags(first: ${flags}, condition: { projectId: ${projectId}, deleted: false }, orderBy: [CREATED_AT_DESC, ROW_ID_DESC]) { totalCount nodes { id rowId key active version ${withTags ? "featureFlagTagsByFeatureFlagId(orderBy: [PRIMARY_KEY_ASC]) { nodes { tagByTagId { name } } }" : ""} userByCreatedById { email } userByLastModifiedById { email } } } }`;

/** Our page: `withTags` false gives the flags with creators alone (issue 6 §4's page). */
const OUR_QUERY = (flags: number, withTags = true) =>
  `query($id: ID!) { project(id: $id) { featureFlags(first: ${flags}) { totalCount edges { node { id databaseId key active version ${withTags ? "tags" : ""} createdBy { email } lastModifiedBy { email } } } } } }`;

/** Each connection PATCHes its own flag (`context`), with a new name each time. */
function patchTarget<Id>(
  ids: readonly Id[],
  url: (id: Id) => string,
  auth: Record<string, string>,
  body: (description: string) => unknown = (description) => ({ name: description }),
): Target {
  let next = 0;
  let n = 0;
  return {
    url: url(ids[0]!),
    method: "PATCH",
    headers: auth,
    body: "{}",
    setup: (request, context) => {
      context["flag"] ??= ids[next++ % ids.length];
      const path = new URL(url(context["flag"] as Id)).pathname;
      return { ...request, path, body: JSON.stringify(body(`renamed ${n++}`)) };
    },
  };
}

/** Events per capture request in the `capture` figure. */
const CAPTURE_BATCH = 100;

/**
 * The capture figure's body for connection `connection`: `CAPTURE_BATCH` events of that connection's
 * own distinct ids (known after its first request), as posthog-node batches them. Connections do not
 * share users, as concurrent requests of real traffic rarely do (person rows are locked per request).
 */
function captureBody(token: string, connection: number): string {
  const at = new Date().toISOString();
  return JSON.stringify({
    api_key: token,
    sent_at: at,
    batch: Array.from({ length: CAPTURE_BATCH }, (_, i) => ({
      event: i % 10 === 0 ? "$pageview" : "button clicked",
      distinct_id: `bench-user-${connection}-${i}`,
      timestamp: at,
      properties: {
        $current_url: "https://example.com/pricing",
        $lib: "posthog-node",
        plan: "pro",
        index: i,
      },
    })),
  });
}

/** How many event names the catalogue figure's events have (issue 9: 50 names, mixed property types). */
const CATALOGUE_EVENT_NAMES = 50;

/**
 * A capture target for the catalogue figure: each request `CAPTURE_BATCH` events of
 * `CATALOGUE_EVENT_NAMES` names, each event with six properties of the six inferred types (text,
 * number, boolean, ISO date, array, object), for the connection's own users. `newNames`: the
 * properties' names are new in every request, so every request writes the catalogue (property
 * definitions and their event pairs); otherwise the same names every time, which the catalogue
 * holds after the first request (no catalogue statement).
 */
function catalogueTarget(url: string, token: string, newNames: boolean): Target {
  let connections = 0;
  let requests = 0;
  return {
    url,
    method: "POST",
    setup: (request, context) => {
      context["connection"] ??= connections++ % CONNECTIONS;
      const prefix = newNames ? `r${requests++}_` : "";
      const at = new Date().toISOString();
      const body = JSON.stringify({
        api_key: token,
        sent_at: at,
        batch: Array.from({ length: CAPTURE_BATCH }, (_, i) => ({
          event: `catalogue event ${i % CATALOGUE_EVENT_NAMES}`,
          distinct_id: `bench-user-${context["connection"]}-${i}`,
          timestamp: at,
          properties: {
            [`${prefix}text`]: "pro",
            [`${prefix}number`]: i,
            [`${prefix}flag`]: i % 2 === 0,
            [`${prefix}seen_at`]: at,
            [`${prefix}items`]: [i, "x"],
            [`${prefix}shape`]: { size: i },
          },
        })),
      });
      return { ...request, body };
    },
  };
}

/** A POST target whose connections (`context`) each send their own body of `bodies`. */
function perConnection(url: string, bodies: readonly string[], headers?: Record<string, string>): Target {
  let next = 0;
  return {
    url,
    method: "POST",
    ...(headers ? { headers } : {}),
    body: bodies[0]!,
    setup: (request, context) => {
      context["connection"] ??= next++ % bodies.length;
      return { ...request, body: bodies[context["connection"] as number]! };
    },
  };
}

/** A capture target: each connection sends its own users' batch. */
function captureTarget(url: string, token: string): Target {
  return perConnection(
    url,
    Array.from({ length: CONNECTIONS }, (_, connection) => captureBody(token, connection)),
  );
}

/**
 * A remote-flags target: each connection evaluates every flag (person property `email` and a 50%
 * rollout each) for its own seeded person (`user-<n>`).
 */
function flagsTarget(url: string, ready: BenchReady): Target {
  const bodies = Array.from({ length: CONNECTIONS }, (_, connection) =>
    JSON.stringify({ token: ready.projectToken, distinct_id: `user-${connection % ready.persons}` }),
  );
  return perConnection(url, bodies, { "content-type": "application/json" });
}

/** Our person list, asking for one more than seeded (so that `next` and `previous` are null on both sides). */
const personsList = (ready: BenchReady) =>
  `${ready.ours}/api/projects/${ready.projectId}/persons/?limit=${ready.persons + 1}`;
/** The baseline's person list, as `personsList`. */
const personsBaseline = (ready: BenchReady) => `${ready.baseline}/rows/persons?limit=${ready.persons + 1}`;

function figuresFor(ready: BenchReady): Figure[] {
  const auth = { authorization: `Bearer ${ready.key}` };
  const flags = ready.flagIds.length;
  const one = ready.flagIds[0]!;
  const project = `${ready.ours}/api/projects/${ready.projectId}`;
  const list = `${project}/feature_flags/?limit=${flags}`;
  // The tag moves with the minute (conditional.ts): every 200 hands its new tag to later requests.
  let etag = "";
  let created = 0;
  const run = Date.now().toString(36);
  const localEvaluation = `${ready.ours}/flags/definitions?token=${ready.localEvaluation.token}&send_cohorts`;
  // OFREP's bulk answer for one subject of the local-evaluation project; each 200 hands its ETag to the 304 figure.
  let ofrepEtag = "";
  const ofrepBulk = (revalidate: boolean): Target => ({
    url: `${ready.ours}/ofrep/v1/evaluate/flags`,
    method: "POST",
    headers: { authorization: `Bearer ${ready.localEvaluation.token}`, "content-type": "application/json" },
    body: JSON.stringify({ context: { targetingKey: "bench-subject", plan: "pro" } }),
    ...(revalidate
      ? { setup: (request) => ({ ...request, headers: { ...request.headers, "if-none-match": ofrepEtag } }) }
      : {
          onResponse: (_status, headers) => {
            const name = Object.keys(headers).find((header) => header.toLowerCase() === "etag");
            if (name) ofrepEtag = headers[name]!;
          },
        }),
  });
  const revalidate = { ...auth, "if-none-match": ready.localEvaluation.etag };
  // One person with the property the flags' condition reads, as Unleash's frontend API gets it (`userId`).
  const remoteBody = JSON.stringify({
    token: ready.projectToken,
    distinct_id: "user-1",
    person_properties: { email: "person-1@example.com" },
  });
  const ofrepBody = JSON.stringify({ context: { targetingKey: "user-1", email: "person-1@example.com" } });
  /** The page of flags over GraphQL: executed each time (`ours`), or kept (`oursKeeping`, the default). */
  const graphqlPage = (withTags: boolean, kept = false): Side => ({
    name: kept ? "GraphQL list kept" : "GraphQL list",
    target: {
      url: `${kept ? ready.oursKeeping : ready.ours}/graphql`,
      method: "POST",
      headers: auth,
      body: JSON.stringify({ query: OUR_QUERY(flags, withTags), variables: { id: String(ready.projectId) } }),
    },
    expected: [200],
  });
  const graphqlList = graphqlPage(true);
  const restList: Side = { name: "REST list", target: { url: list, headers: auth }, expected: [200] };
  const keptList: Side = {
    name: "REST list kept",
    target: { url: list.replace(ready.ours, ready.oursKeeping), headers: auth },
    expected: [200],
  };
  const unleashList: Side | undefined = ready.unleash && {
    name: "Unleash 7.5 admin list",
    target: { url: ready.unleash.list, headers: { authorization: ready.unleash.token } },
    expected: [200],
  };
  const patch: Side = {
    name: "REST patch",
    target: patchTarget(ready.flagIds, (id) => `${project}/feature_flags/${id}/`, auth),
    expected: [200],
  };
  const listBytes: Side = {
    name: "node:http bytes",
    target: { url: ready.listBytes, headers: auth },
    expected: [200],
  };
  const restRead: Side = {
    name: "REST read",
    target: { url: `${project}/feature_flags/${one}/`, headers: auth },
    expected: [200],
  };
  const readAgainst = (name: string, shape: string): Side => ({
    name,
    target: { url: `${ready.baseline}/${shape}/flags/${one}`, headers: auth },
    expected: [200],
  });
  const listAgainst = (name: string, shape: string): Side => ({
    name,
    target: { url: `${ready.baseline}/${shape}/flags?limit=${flags}`, headers: auth },
    expected: [200],
  });
  return [
    {
      id: "list",
      name: `REST list ${flags} flags`,
      ours: restList,
      against: listAgainst("SQL joins", "rows"),
    },
    { id: "list", name: "  (same) vs", ours: restList, against: listAgainst("SQL page as JSON", "json") },
    ...(unleashList ? [{ id: "list", name: "  (same) vs", ours: restList, against: unleashList }] : []),
    { id: "list", name: "  (same) vs", ours: restList, against: listBytes },
    { id: "read", name: "REST read one flag", ours: restRead, against: readAgainst("SQL joins", "rows") },
    ...(ready.postgraphile
      ? [
          {
            id: "read",
            name: "  (same) vs",
            ours: restRead,
            against: readAgainst("SQL joins prepared", "prepared"),
          },
        ]
      : []),
    {
      id: "graphql",
      name: `GraphQL ${flags} flags + 2 users`,
      ours: graphqlList,
      against: { name: "our REST list", figure: "list" },
    },
    ...(ready.postgraphile
      ? [
          ...[true, false].map((withTags) => ({
            id: "graphql",
            name: withTags ? "  (same) vs" : `  (same, no tags) vs`,
            ours: graphqlPage(withTags),
            against: {
              name: "PostGraphile 5",
              target: {
                url: ready.postgraphile!,
                method: "POST" as const,
                body: JSON.stringify({ query: POSTGRAPHILE_QUERY(ready.projectId, flags, withTags) }),
              },
              expected: [200],
            },
          })),
          {
            id: "graphql",
            name: "  (same, kept) vs",
            ours: graphqlPage(true, true),
            against: {
              name: "PostGraphile 5",
              target: {
                url: ready.postgraphile,
                method: "POST" as const,
                body: JSON.stringify({ query: POSTGRAPHILE_QUERY(ready.projectId, flags, true) }),
              },
              expected: [200],
            },
          },
        ]
      : []),
    {
      id: "graphql",
      name: "GraphQL, repeated (kept)",
      ours: graphqlPage(true, true),
      against: { name: "our GraphQL executed", figure: "graphql" },
    },
    {
      id: "list",
      name: "REST list, repeated (kept by ETag)",
      ours: keptList,
      against: { name: "our REST list", figure: "list" },
    },
    ...(unleashList ? [{ id: "list", name: "  (same) vs", ours: keptList, against: unleashList }] : []),
    { id: "list", name: "  (same) vs", ours: keptList, against: listBytes },
    {
      id: "304",
      name: "REST list, If-None-Match → 304",
      ours: {
        name: "REST list 304",
        target: {
          url: list,
          headers: auth,
          setup: (request) => ({ ...request, headers: { ...request.headers, "if-none-match": etag } }),
          onResponse: (status, headers) => {
            if (status === 200) etag = headers["ETag"] ?? headers["etag"] ?? etag;
          },
        },
        // A 200 hands out the tag of a new minute (or the first tag): counted, shown as the 304 share.
        expected: [304, 200],
      },
      against: { name: "our REST list 200", figure: "list" },
    },
    {
      id: "patch",
      name: `REST PATCH (${Math.min(CONNECTIONS, flags)} flags at once)`,
      ours: patch,
      against: {
        name: "SQL transaction",
        target: patchTarget(ready.flagIds, (id) => `${ready.baseline}/rows/flags/${id}`, auth),
        expected: [200],
      },
    },
    ...(ready.unleash
      ? [
          {
            id: "patch",
            name: "  (same) vs",
            ours: patch,
            against: {
              name: "Unleash 7.5 JSON patch",
              target: patchTarget(
                ready.flagIds.map((_, i) => `bench-${i}`),
                (name) => `${ready.unleash!.features}${name}`,
                { authorization: ready.unleash!.token },
                (description) => [{ op: "replace", path: "/description", value: description }],
              ),
              expected: [200],
            },
          },
        ]
      : []),
    {
      id: "capture",
      name: `POST /batch/ ${CAPTURE_BATCH} events`,
      ours: {
        name: "capture",
        target: captureTarget(`${ready.ours}/batch/`, ready.projectToken),
        expected: [200],
      },
      against: {
        name: "SQL multi-row",
        target: captureTarget(`${ready.baseline}/capture/batch`, ready.projectToken),
        expected: [200],
      },
      eventsPerRequest: CAPTURE_BATCH,
    },
    ...(ready.oursClickHouse
      ? [
          {
            id: "capture",
            name: "  into ClickHouse, vs",
            ours: {
              name: "capture (ClickHouse)",
              target: captureTarget(`${ready.oursClickHouse}/batch/`, ready.projectToken),
              expected: [200],
            },
            against: {
              name: "capture (PostgreSQL)",
              target: captureTarget(`${ready.ours}/batch/`, ready.projectToken),
              expected: [200],
            },
            eventsPerRequest: CAPTURE_BATCH,
          },
        ]
      : []),
    {
      id: "catalogue",
      name: `POST /batch/ ${CAPTURE_BATCH} events, ${CATALOGUE_EVENT_NAMES} names`,
      ours: {
        name: "with catalogue",
        target: catalogueTarget(`${ready.ours}/batch/`, ready.projectToken, false),
        expected: [200],
      },
      against: {
        name: "without catalogue",
        target: catalogueTarget(`${ready.oursWithoutCatalogue}/batch/`, ready.projectToken, false),
        expected: [200],
      },
      eventsPerRequest: CAPTURE_BATCH,
    },
    {
      id: "catalogue_new",
      name: `POST /batch/ ${CAPTURE_BATCH} events, new property names each`,
      ours: {
        name: "catalogue written",
        target: catalogueTarget(`${ready.ours}/batch/`, ready.projectToken, true),
        expected: [200],
      },
      against: {
        name: "catalogue held",
        target: catalogueTarget(`${ready.ours}/batch/`, ready.projectToken, false),
        expected: [200],
      },
      eventsPerRequest: CAPTURE_BATCH,
    },
    {
      id: "persons",
      name: `REST list ${ready.persons} persons`,
      ours: { name: "REST persons", target: { url: personsList(ready), headers: auth }, expected: [200] },
      against: {
        name: "SQL page",
        target: { url: personsBaseline(ready), headers: auth },
        expected: [200],
      },
    },
    {
      id: "local_eval",
      name: "GET /flags/definitions 200",
      ours: { name: "local eval 200", target: { url: localEvaluation, headers: auth }, expected: [200] },
      against: {
        name: "node:http bytes",
        target: { url: ready.localEvaluation.baseline, headers: auth },
        expected: [200],
      },
    },
    {
      id: "local_eval",
      name: "GET /flags/definitions 304",
      ours: {
        name: "local eval 304",
        target: { url: localEvaluation, headers: revalidate },
        expected: [304],
      },
      against: {
        name: "node:http 304",
        target: { url: ready.localEvaluation.baseline, headers: revalidate },
        expected: [304],
      },
    },
    {
      id: "flags",
      name: `POST /flags/?v=2, ${flags} flags`,
      ours: {
        name: "remote /flags",
        target: flagsTarget(`${ready.ours}/flags/?v=2`, ready),
        expected: [200],
      },
      against: {
        name: "SQL + engine",
        target: flagsTarget(`${ready.baseline}/flags`, ready),
        expected: [200],
      },
    },
    ...(ready.unleash
      ? (
          [
            [
              `  one person, ${flags} flags, vs Unleash`,
              "remote /flags",
              `${ready.ours}/flags/?v=2`,
              remoteBody,
            ],
            ["  /decide/?v=3, the same, vs", "remote /decide", `${ready.ours}/decide/?v=3`, remoteBody],
            ["  OFREP bulk, the same, vs", "OFREP bulk", `${ready.ours}/ofrep/v1/evaluate/flags`, ofrepBody],
          ] as const
        ).map(([figure, name, url, body]) => ({
          id: "flags",
          name: figure,
          ours: {
            name,
            target: {
              url,
              method: "POST" as const,
              headers: {
                "content-type": "application/json",
                ...(body === ofrepBody ? { authorization: `Bearer ${ready.projectToken}` } : {}),
              },
              body,
            },
            expected: [200],
          },
          against: {
            name: "Unleash 7.5 frontend API",
            target: {
              url: `${ready.unleash!.frontend.url}?userId=${encodeURIComponent("person-1@example.com")}`,
              headers: { authorization: ready.unleash!.frontend.token },
            },
            expected: [200],
          },
        }))
      : []),
    {
      id: "ofrep",
      name: "POST /ofrep/v1/evaluate/flags 200",
      ours: { name: "OFREP bulk 200", target: ofrepBulk(false), expected: [200] },
      against: {
        name: "/flags v2",
        target: {
          url: `${ready.ours}/flags/?v=2`,
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            token: ready.localEvaluation.token,
            distinct_id: "bench-subject",
            person_properties: { plan: "pro" },
          }),
        },
        expected: [200],
      },
    },
    {
      id: "ofrep",
      name: "POST /ofrep/v1/evaluate/flags 304",
      ours: { name: "OFREP bulk 304", target: ofrepBulk(true), expected: [304] },
      against: { name: "OFREP bulk 200", figure: "ofrep" },
    },
    {
      id: "create",
      name: "REST create flag",
      ours: {
        name: "REST create",
        target: {
          url: `${ready.ours}/api/projects/${ready.createProjectId}/feature_flags/`,
          method: "POST",
          headers: auth,
          body: "{}",
          setup: (request) => ({ ...request, body: JSON.stringify({ key: `created-${run}-${created++}` }) }),
        },
        expected: [201],
      },
    },
  ];
}

async function benchBackend(label: string, backend: string): Promise<void> {
  // chdb, where test/clickhouse has it: the capture figure's ClickHouse side (issue 30).
  const clickhouse = chdbInstalled ? await openTestClickHouse() : null;
  if (!clickhouse)
    console.warn(
      "!! chdb is not installed (npm ci --prefix test/clickhouse): capture into ClickHouse skipped",
    );
  const { child, ready } = await startServer(
    backend,
    clickhouse ? { BENCH_CLICKHOUSE_URL: clickhouse.url } : {},
  ).catch(async (error: unknown) => {
    await clickhouse?.close();
    throw error;
  });
  try {
    const auth = { authorization: `Bearer ${ready.key}` };
    const flags = ready.flagIds.length;
    const one = ready.flagIds[0]!;
    const list = `${ready.ours}/api/projects/${ready.projectId}/feature_flags/?limit=${flags}`;
    await assertSameBytes("list", list, `${ready.baseline}/rows/flags?limit=${flags}`, auth);
    for (const shape of ["json"]) {
      await assertSameBytes(`list (${shape})`, list, `${ready.baseline}/${shape}/flags?limit=${flags}`, auth);
    }
    await assertSameBytes("persons", personsList(ready), personsBaseline(ready), auth);
    await assertSameBytes(
      "local evaluation",
      `${ready.ours}/flags/definitions?token=${ready.localEvaluation.token}&send_cohorts`,
      ready.localEvaluation.baseline,
      auth,
    );
    for (const shape of ["rows", "prepared"]) {
      await assertSameBytes(
        `read (${shape})`,
        `${ready.ours}/api/projects/${ready.projectId}/feature_flags/${one}/`,
        `${ready.baseline}/${shape}/flags/${one}`,
        auth,
      );
    }
    if (ready.unleash) {
      const answer = await fetch(ready.unleash.list, { headers: { authorization: ready.unleash.token } });
      const page = (await answer.json()) as { features?: unknown[]; total?: number };
      if (page.features?.length !== flags || page.total !== flags)
        throw new Error(`Unleash answered ${page.features?.length} flags of ${page.total}, not ${flags}`);
      // Its frontend cache fills a moment after the revision moves (unleash.ts).
      let toggles: unknown[] | undefined;
      for (let attempt = 0; attempt < 50 && !toggles?.length; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        const frontend = await fetch(`${ready.unleash.frontend.url}?userId=person-1%40example.com`, {
          headers: { authorization: ready.unleash.frontend.token },
        });
        toggles = ((await frontend.json()) as { toggles?: unknown[] }).toggles;
      }
      // Its frontend API lists the flags enabled for the context: some of the 100 at a 50% rollout.
      if (!toggles?.length || toggles.length >= flags)
        throw new Error(`Unleash's frontend API answered ${toggles?.length} enabled flags of ${flags}`);
    }
    if (ready.postgraphile) {
      const answer = await fetch(ready.postgraphile, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: POSTGRAPHILE_QUERY(ready.projectId, flags) }),
      });
      const nodes = ((await answer.json()) as { data?: { allFeatureFlags?: { nodes?: unknown[] } } }).data
        ?.allFeatureFlags?.nodes;
      if (nodes?.length !== flags)
        throw new Error(`PostGraphile answered ${nodes?.length} flags, not ${flags}`);
    }
    const figures = figuresFor(ready).filter((f) => !ONLY || ONLY.includes(f.id));
    const results = figures.map((figure): Result => ({ figure, ours: [], against: [] }));
    const measureSide = async (side: Side, profile?: string) => {
      if (WARMUP_SECONDS > 0) await load(side.target, WARMUP_SECONDS);
      if (profile) await tellServer(child, { profile });
      const cpuBefore = (await tellServer(child, { cpu: true })) as number;
      const measured = await load(side.target, SECONDS);
      const cpuAfter = (await tellServer(child, { cpu: true })) as number;
      if (profile) await tellServer(child, { stopProfile: true });
      const answered = [...measured.statuses.values()].reduce((a, b) => a + b, 0);
      if (answered > 0) measured.cpuMs = (cpuAfter - cpuBefore) / 1000 / answered;
      return check(side.name, measured, side.expected);
    };
    // Rounds alternate ours and its comparison, so that load from elsewhere on the machine hits both alike.
    for (let round = 0; round < ROUNDS; round++) {
      // Figures that share our side (the list against each baseline shape) share its measurement.
      const measuredThisRound = new Map<Side, Measured>();
      for (const [index, result] of results.entries()) {
        // One profile per figure: `<backend>-<id>.cpuprofile`, then `-2`, `-3` for the id's later figures.
        const ofId = results.slice(0, index).filter((r) => r.figure.id === result.figure.id).length;
        const profile =
          PROFILE_DIR && round === 0
            ? path.resolve(
                PROFILE_DIR,
                `${backend}-${result.figure.id}${ofId === 0 ? "" : `-${ofId + 1}`}.cpuprofile`,
              )
            : undefined;
        // The side measured second runs in what the first left behind (background jobs its traffic
        // queued, a grown table): every other round, the comparison goes first.
        const against = result.figure.against;
        const measured = against && "target" in against ? against : undefined;
        const againstFirst = round % 2 === 1 && !measuredThisRound.has(result.figure.ours);
        if (measured && againstFirst) result.against.push(await measureSide(measured));
        const ours =
          measuredThisRound.get(result.figure.ours) ?? (await measureSide(result.figure.ours, profile));
        measuredThisRound.set(result.figure.ours, ours);
        result.ours.push(ours);
        if (measured && !againstFirst) result.against.push(await measureSide(measured));
      }
      for (const result of results) {
        const against = result.figure.against;
        if (!against || "target" in against) continue;
        const other = results.find((r) => r.figure.id === against.figure);
        if (other) result.against.push(other.ours[round]!);
      }
    }
    printTable(label, results);
    if (!ONLY || ONLY.includes("flags")) await printLocalCeiling(ready, auth);
  } finally {
    await stopServer(child);
    await clickhouse?.close();
  }
}

function printTable(label: string, results: Result[]): void {
  const pick = (runs: Measured[]) => {
    const rate = median(runs.map((m) => m.perSecond));
    return runs.find((m) => m.perSecond === rate)!;
  };
  const cells = (m: Measured) => [
    m.perSecond.toFixed(0).padStart(7),
    m.p50.toFixed(1).padStart(7),
    m.p99.toFixed(1).padStart(7),
    m.statements.padStart(5),
    (m.cpuMs === undefined ? "?" : m.cpuMs.toFixed(2)).padStart(6),
  ];
  const [load1] = os.loadavg();
  console.log(
    `\n${label}: ${CONNECTIONS} connections, median of ${ROUNDS} rounds of ${SECONDS} s per figure (each after ${WARMUP_SECONDS} s warm-up); load average ${load1!.toFixed(1)} on ${os.availableParallelism()} CPUs`,
  );
  console.log(
    [
      "figure".padEnd(34),
      "req/s".padStart(7),
      "p50 ms".padStart(7),
      "p99 ms".padStart(7),
      "SQL".padStart(5),
      "CPU ms".padStart(6),
      "|",
      "against".padEnd(22),
      "req/s".padStart(7),
      "p50 ms".padStart(7),
      "p99 ms".padStart(7),
      "SQL".padStart(5),
      "CPU ms".padStart(6),
      "|",
      "ratio",
    ].join(" "),
  );
  for (const [index, { figure, ours, against }] of results.entries()) {
    const repeated = index > 0 && results[index - 1]!.figure.ours === figure.ours;
    const comparison =
      figure.against && against.length > 0
        ? [figure.against.name.padEnd(22), ...cells(pick(against))]
        : ["".padEnd(22), "", "", "", "", ""];
    // The ratio is the median of the rounds' ratios: each pair was measured back to back, in
    // alternating order, so with an even number of rounds each order counts alike.
    const ratio =
      against.length > 0
        ? `${middle(ours.map((m, i) => m.perSecond / against[i]!.perSecond)).toFixed(2)}×`
        : "";
    const statuses = pick(ours).statuses;
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    const share =
      statuses.size > 1
        ? [...statuses].map(([status, n]) => ` ${((100 * n) / total).toFixed(0)}% ${status}`).join(",")
        : "";
    console.log(
      [
        `${figure.name}${share}`.padEnd(34),
        ...(repeated ? [7, 7, 7, 5, 6].map((width) => "".padStart(width)) : cells(pick(ours))),
        "|",
        ...comparison,
        "|",
        ratio,
      ].join(" "),
    );
  }
  for (const { figure, ours, against } of results) {
    if (!figure.eventsPerRequest) continue;
    const perSecond = (runs: Measured[]) => (pick(runs).perSecond * figure.eventsPerRequest!).toFixed(0);
    const comparison = against.length > 0 ? `, ${figure.against?.name}: ${perSecond(against)} events/s` : "";
    console.log(`${figure.name}: ${perSecond(ours)} events/s${comparison}`);
  }
}

/**
 * What issue 29 goal 3 calls the ceiling of remote evaluation: posthog-node 5.70 evaluating the same
 * project's flags for the same person in this process, on the definitions our server serves
 * (`getAllFlagsAndPayloads(..., {onlyEvaluateLocally: true})`, as test/bench/engine.ts times it):
 * no network, no parsing, no database, one call awaited after another. Each evaluation answers every
 * flag, as one `/flags` request does.
 */
async function printLocalCeiling(ready: BenchReady, auth: Record<string, string>): Promise<void> {
  const answer = await fetch(`${ready.ours}/flags/definitions?token=${ready.projectToken}`, {
    headers: auth,
  });
  const evaluator = await localEvaluator({
    body: Buffer.from(await answer.arrayBuffer()),
    etag: answer.headers.get("etag") ?? "",
  });
  try {
    const person = {
      distinctId: "user-1",
      properties: { email: "person-1@example.com" },
      groups: {},
      groupProperties: {},
      staticCohortIds: [],
    };
    const rates: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let done = 0;
      const started = performance.now();
      while (performance.now() - started < SECONDS * 1000) {
        await evaluator.evaluateAll(person);
        done++;
      }
      rates.push(done / ((performance.now() - started) / 1000));
    }
    console.log(
      `posthog-node local evaluation in process (one client awaited in a loop): ${median(rates).toFixed(0)} evaluations/s of ${ready.flagIds.length} flags, one person`,
    );
  } finally {
    await evaluator.close();
  }
}

async function main(): Promise<void> {
  if (BACKENDS.includes("pglite")) await benchBackend("PGlite (embedded, on its own thread)", "pglite");
  if (!BACKENDS.includes("postgres")) return;
  if (!(await postgresAnswers())) {
    console.warn("\n!! No PostgreSQL at 127.0.0.1:5432 (or TEST_DATABASE_URL): PostgreSQL figures SKIPPED");
    return;
  }
  await benchBackend("PostgreSQL 127.0.0.1", "postgres");
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
