/**
 * Traces from the real `signalbox serve`: src/ compiled to JavaScript file by file as `npm run
 * build` lays it out (here with esbuild, from the sources as they are, as the fault suite does) and
 * run by plain `node`, no flag, as `npm start` runs dist/src/main.js. With OTEL_EXPORTER_OTLP_ENDPOINT
 * naming a small OTLP/HTTP receiver started here, the process hooks http, fastify and pg through its
 * own ESM loader hook and, on a graceful stop (SIGTERM), sends the spans of a REST and a GraphQL
 * request (the batch delay is set past the test, so only the stop's flush sends them). With no
 * OTEL variable set it loads no OpenTelemetry module at all: a preloaded loader hook
 * (fixtures/record-modules.mjs) records every module the process loads.
 */
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buildInfo } from "../../src/version.js";
import type { ServeProcess } from "../support/cli.js";
import { postgresOrSkip, prepareSpawnedBackend, type SpawnedBackend } from "../support/spawned-backend.js";

const RECORDER = pathToFileURL(path.join(import.meta.dirname, "fixtures", "record-modules.mjs")).href;

/** OTLP span kinds (opentelemetry-proto `Span.SpanKind`). */
const KIND = { internal: 1, server: 2, client: 3 } as const;

/** A span as the receiver decoded it from OTLP/JSON. */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  scope: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

/** OTLP/JSON attributes (`[{key, value: {stringValue | intValue | …}}]`) as a record. */
function attributesOf(
  list: Array<{ key: string; value: Record<string, unknown> }> = [],
): Record<string, unknown> {
  return Object.fromEntries(
    list.map(({ key, value }) => {
      const [type, raw] = Object.entries(value)[0] ?? [];
      return [key, type === "intValue" ? Number(raw) : raw];
    }),
  );
}

/** An OTLP/HTTP traces receiver (JSON, as the exporter sends it) on a free port, keeping every span. */
async function startReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      if (request.url === "/v1/traces" && request.headers["content-type"] === "application/json") {
        // biome-ignore lint/suspicious/noExplicitAny: OTLP/JSON, read by shape
        for (const resourceSpans of JSON.parse(body).resourceSpans as any[]) {
          const resource = attributesOf(resourceSpans.resource?.attributes);
          for (const scopeSpans of resourceSpans.scopeSpans) {
            for (const span of scopeSpans.spans) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                scope: scopeSpans.scope.name,
                attributes: attributesOf(span.attributes),
                resource,
              });
            }
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Stops `server` as an orchestrator does (SIGTERM) and expects a clean exit. */
async function stop(server: ServeProcess): Promise<void> {
  server.child.kill("SIGTERM");
  expect(await server.exited, server.output()).toBe(0);
}

/** A fresh trace id and the `traceparent` header that starts a sampled trace with it. */
function newTrace(): { traceId: string; traceparent: string } {
  const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
  const traceId = hex(16);
  return { traceId, traceparent: `00-${traceId}-${hex(8)}-01` };
}

/** Whether `span` is `ancestor` or below it among `spans`. */
function isUnder(span: ReceivedSpan, ancestor: ReceivedSpan, spans: readonly ReceivedSpan[]): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let at: ReceivedSpan | undefined = span; at; at = byId.get(at.parentSpanId ?? "")) {
    if (at === ancestor) return true;
  }
  return false;
}

/** No `OTEL_*` variable the test's own environment might hold reaches the server. */
const NO_OTEL = Object.fromEntries(
  Object.keys(process.env)
    .filter((name) => name.startsWith("OTEL_"))
    .map((name) => [name, ""]),
);

for (const backendName of ["pglite", "postgres"] as const) {
  describe(`signalbox serve's traces [${backendName}]`, () => {
    let backend: SpawnedBackend | null = null;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;

    beforeAll(async () => {
      receiver = await startReceiver();
      if (backendName === "postgres" && !(await postgresOrSkip("serve-traces.test.ts"))) return;
      // The suite's compiled server (support/global-setup.ts).
      backend = await prepareSpawnedBackend(backendName, inject("signalboxMain"));
    });
    afterAll(async () => {
      await receiver?.close();
      await backend?.remove();
    });

    it("exports a server span per request, its statements and its GraphQL operation over OTLP on SIGTERM", async (context) => {
      if (!backend) return context.skip();
      const server = backend.serve({
        ...NO_OTEL,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: "600000",
      });
      const base = `http://127.0.0.1:${await server.listening}`;
      const authorization = `Bearer ${backend.key}`;
      const rest = newTrace();
      const list = await fetch(`${base}/api/projects/${backend.projectId}/feature_flags/?limit=5`, {
        headers: { authorization, traceparent: rest.traceparent },
      });
      expect(list.status).toBe(200);
      const graphql = newTrace();
      const answer = await fetch(`${base}/graphql`, {
        method: "POST",
        headers: { authorization, traceparent: graphql.traceparent, "content-type": "application/json" },
        body: JSON.stringify({
          query: "query Named($id: ID!) { project(id: $id) { databaseId } }",
          variables: { id: String(backend.projectId) },
        }),
      });
      expect(await answer.json()).toEqual({ data: { project: { databaseId: backend.projectId } } });
      // Nothing is sent before the stop: the batch waits 10 minutes.
      expect(receiver.spans).toEqual([]);
      await stop(server);

      const restSpans = receiver.spans.filter((span) => span.traceId === rest.traceId);
      const restServer = restSpans.filter((span) => span.kind === KIND.server);
      expect(restServer).toHaveLength(1);
      expect(restServer[0]!).toMatchObject({
        name: "GET /api/projects/:project_id/feature_flags/",
        scope: "@opentelemetry/instrumentation-http",
        attributes: {
          "http.route": "/api/projects/:project_id/feature_flags/",
          "http.response.status_code": 200,
          "signalbox.project_id": backend.projectId,
          "url.query": "limit=5",
        },
        resource: { "service.name": "signalbox", "service.version": buildInfo().version },
      });
      const statements = restSpans.filter(
        (span) => span.scope === "@opentelemetry/instrumentation-pg" && span.name.startsWith("pg.query:"),
      );
      expect(statements.length).toBeGreaterThan(0);
      for (const statement of statements) {
        expect(statement.kind).toBe(KIND.client);
        expect(isUnder(statement, restServer[0]!, restSpans)).toBe(true);
        expect(statement.attributes["db.query.text"]).toEqual(expect.any(String));
        expect(statement.attributes["db.postgresql.values"]).toBeUndefined();
      }
      expect(restSpans.some((span) => span.scope === "@fastify/otel")).toBe(true);

      const graphqlSpans = receiver.spans.filter((span) => span.traceId === graphql.traceId);
      const graphqlServer = graphqlSpans.filter((span) => span.kind === KIND.server);
      expect(graphqlServer).toHaveLength(1);
      expect(graphqlServer[0]!).toMatchObject({
        name: "POST /graphql",
        attributes: { "http.response.status_code": 200, "signalbox.project_id": backend.projectId },
      });
      const operation = graphqlSpans.find((span) => span.scope === "@envelop/opentelemetry");
      expect(operation).toMatchObject({ name: "query.Named", kind: KIND.internal });
      expect(isUnder(operation!, graphqlServer[0]!, graphqlSpans)).toBe(true);
      const graphqlStatements = graphqlSpans.filter(
        (span) => span.scope === "@opentelemetry/instrumentation-pg" && span.name.startsWith("pg.query:"),
      );
      expect(graphqlStatements.length).toBeGreaterThan(0);
      for (const statement of graphqlStatements)
        expect(isUnder(statement, operation!, graphqlSpans)).toBe(true);
    });

    // Which modules load does not depend on the backend: asked once.
    it.runIf(backendName === "pglite")(
      "loads no OpenTelemetry module when no OTEL variable is set",
      async (context) => {
        if (!backend) return context.skip();
        const record = path.join(
          await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-modules-")),
          "modules.txt",
        );
        const server = backend.serve({
          ...NO_OTEL,
          NODE_OPTIONS: `--import=${RECORDER}`,
          MODULE_RECORD_FILE: record,
        });
        const base = `http://127.0.0.1:${await server.listening}`;
        const list = await fetch(`${base}/api/projects/${backend.projectId}/feature_flags/`, {
          headers: { authorization: `Bearer ${backend.key}`, traceparent: newTrace().traceparent },
        });
        expect(list.status).toBe(200);
        await stop(server);
        const modules = (await fs.readFile(record, "utf8")).split("\n").filter(Boolean);
        await fs.rm(path.dirname(record), { recursive: true, force: true });
        // The recorder saw the server's own modules and the ones tracing would hook...
        expect(modules.some((module) => module.includes("/node_modules/pg/"))).toBe(true);
        expect(modules.some((module) => module.includes("/node_modules/fastify/"))).toBe(true);
        expect(modules.some((module) => module.endsWith("/src/observability/tracing.js"))).toBe(true);
        // ...and nothing of tracing's: no SDK, instrumentation or hook. The API alone (no-ops until
        // an SDK registers) is loaded without traces too, by prom-client, for its exemplars.
        const tracingModules = modules.filter(
          (module) =>
            /@opentelemetry\/|@fastify\/otel|@envelop\/opentelemetry|in-the-middle|tracing-sdk\.js/.test(
              module,
            ) && !module.includes("/node_modules/@opentelemetry/api/"),
        );
        expect(tracingModules).toEqual([]);
      },
    );
  });
}
