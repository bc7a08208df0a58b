/**
 * Traces of a real server, in this process (src/observability/): the SDK started as `signalbox
 * serve` starts it, with an in-memory exporter in place of OTLP, before the server's modules are
 * imported (as src/main.ts does), then REST and GraphQL requests on each backend. Each request
 * carries a `traceparent` of its own, so its spans are found by their trace id. The same path
 * through the built server and a real OTLP receiver: serve-traces.test.ts.
 */
import { createRequire } from "node:module";
import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { describe, expect, it, vi } from "vitest";
import { startTracing } from "../../src/observability/tracing.js";
import { redactedQuery, statementOperation } from "../../src/observability/tracing-sdk.js";

const exporter = new InMemorySpanExporter();
await startTracing({
  settings: { exporter: "otlp", endpoint: null },
  spanProcessor: new SimpleSpanProcessor(exporter),
});
// vitest's module runner imports `pg` by its file path, which the ESM loader hook (matching the
// bare specifier, as a built server imports it) does not see; a `require` of it through the
// CommonJS hook patches the one `Client` both share. The spawned test covers the ESM hook itself.
createRequire(import.meta.url)("pg");
const { describeEachBackend } = await import("../support/server.js");

/** A fresh W3C trace id (32 hex digits) and the `traceparent` header that starts a sampled trace with it. */
function newTrace(): { traceId: string; headers: Record<string, string> } {
  const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
  const traceId = hex(16);
  return { traceId, headers: { traceparent: `00-${traceId}-${hex(8)}-01` } };
}

/** The spans of trace `traceId` exported so far. */
function spansOf(traceId: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
}

/** Whether `span` is `ancestor` or below it in `spans` (its trace). */
function isUnder(span: ReadableSpan, ancestor: ReadableSpan, spans: readonly ReadableSpan[]): boolean {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  for (let at: ReadableSpan | undefined = span; at; at = byId.get(at.parentSpanContext?.spanId ?? "")) {
    if (at === ancestor) return true;
  }
  return false;
}

/**
 * The trace `traceId` once its server span has ended (it ends just after the answer is written):
 * the server span, and the SQL statements' and GraphQL operations' spans below it.
 */
async function traceOf(traceId: string) {
  const server = await vi.waitFor(() => {
    const found = spansOf(traceId).filter((span) => span.kind === SpanKind.SERVER);
    expect(found).toHaveLength(1);
    return found[0]!;
  });
  const spans = spansOf(traceId);
  const under = spans.filter((span) => span !== server && isUnder(span, server, spans));
  return {
    server,
    all: spans,
    // The pg instrumentation's query spans (`pg.query:<operation> <database>`), not its pool checkouts.
    statements: under.filter(
      (span) =>
        span.instrumentationScope.name === "@opentelemetry/instrumentation-pg" &&
        span.name.startsWith("pg.query:"),
    ),
    graphql: under.filter((span) => span.instrumentationScope.name === "@envelop/opentelemetry"),
  };
}

describeEachBackend("traces", (server) => {
  it("gives a REST request one server span named by its route template, with its status, its project and its statements", async () => {
    const s = server();
    const created = newTrace();
    const key = `zebra-unicorn-${created.traceId.slice(0, 8)}`;
    const create = await s.request("POST", `/api/projects/${s.projectId}/feature_flags/`, {
      body: { key, name: "Traced" },
      headers: created.headers,
    });
    expect(create.status).toBe(201);
    const write = await traceOf(created.traceId);
    expect(write.server.name).toBe("POST /api/projects/:project_id/feature_flags/");
    // Statement text, never the values bound to it: the flag's key went as a parameter.
    const insert = write.statements.find((span) =>
      String(span.attributes["db.query.text"]).startsWith('INSERT INTO "public"."feature_flags"'),
    );
    expect(insert?.attributes["db.query.text"]).toMatch(/\$1/);
    for (const span of write.all) {
      expect(JSON.stringify(span.attributes)).not.toContain(key);
      expect(span.attributes["db.postgresql.values"]).toBeUndefined();
    }

    const read = newTrace();
    const response = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/${create.body.id}/`, {
      headers: read.headers,
    });
    expect(response.status).toBe(200);
    const { server: span, statements } = await traceOf(read.traceId);
    expect(span.name).toBe("GET /api/projects/:project_id/feature_flags/:id/");
    expect(span.attributes).toMatchObject({
      "http.route": "/api/projects/:project_id/feature_flags/:id/",
      "http.request.method": "GET",
      "http.response.status_code": 200,
      "signalbox.project_id": s.projectId,
      "url.path": `/api/projects/${s.projectId}/feature_flags/${create.body.id}/`,
    });
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.kind).toBe(SpanKind.CLIENT);
      expect(statement.name).toMatch(/^pg\.query:[A-Z]+/);
      expect(statement.attributes["db.query.text"]).toEqual(expect.any(String));
    }
  });

  it("names a refused request's project and status too", async () => {
    const s = server();
    const trace = newTrace();
    const response = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/`, {
      key: await s.createKey(["cohort:read"]),
      headers: trace.headers,
    });
    expect(response.status).toBe(403);
    const { server: span } = await traceOf(trace.traceId);
    expect(span.name).toBe("GET /api/projects/:project_id/feature_flags/");
    expect(span.attributes).toMatchObject({
      "http.response.status_code": 403,
      "signalbox.project_id": s.projectId,
    });
  });

  it("gives a GraphQL operation a span under the request's, its statements under it, without its variables", async () => {
    const s = server();
    const trace = newTrace();
    const response = await s.request("POST", "/graphql", {
      body: {
        query: "query TracedProject($id: ID!) { project(id: $id) { databaseId name } }",
        variables: { id: String(s.projectId) },
      },
      headers: trace.headers,
    });
    expect(response.body).toEqual({ data: { project: { databaseId: s.projectId, name: "Web" } } });
    const { server: span, graphql, statements, all } = await traceOf(trace.traceId);
    expect(span.name).toBe("POST /graphql");
    expect(span.attributes).toMatchObject({
      "http.response.status_code": 200,
      "signalbox.project_id": s.projectId,
    });
    expect(graphql).toHaveLength(1);
    const operation = graphql[0]!;
    expect(operation.name).toBe("query.TracedProject");
    expect(operation.kind).toBe(SpanKind.INTERNAL);
    expect(operation.attributes).toMatchObject({
      "graphql.execute.operationName": "TracedProject",
      "graphql.execute.operationType": "query",
    });
    expect(operation.attributes["graphql.execute.variables"]).toBeUndefined();
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) expect(isUnder(statement, operation, all)).toBe(true);
  });

  it("leaves probes untraced, with their statements", async () => {
    const s = server();
    const trace = newTrace();
    expect((await s.request("GET", "/readyz", { headers: trace.headers })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(spansOf(trace.traceId)).toEqual([]);
  });
});

describe("what spans hold", () => {
  it("redacts credentials from a query string, by name in any case or by shape", () => {
    expect(redactedQuery("limit=5&personal_api_key=abc&Token=t&x=phx_123&q=a+b")).toBe(
      "limit=5&personal_api_key=REDACTED&Token=REDACTED&x=REDACTED&q=a+b",
    );
  });

  it("names a statement by its operation", () => {
    expect(statementOperation('SELECT "t0"."id" FROM x')).toBe("SELECT");
    expect(statementOperation("  -- note\n/* c */ insert into x values ($1)")).toBe("INSERT");
    expect(statementOperation("")).toBe("QUERY");
  });
});
