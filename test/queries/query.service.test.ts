/**
 * The query service's own rules, on a real database: the per-project cap on concurrent runs (429
 * in PostHog's shape), the kind registry (a kind registered beside HogQLQuery is run with the
 * documented deps), the read-only transaction and the statement timeout.
 */
import { expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { authenticate } from "../../src/core/auth/authenticate.js";
import { createServiceContext, dataAccessOf, type ServiceContext } from "../../src/core/context.js";
import { TooManyRequestsError } from "../../src/core/errors.js";
import { Prisma } from "../../src/generated/prisma/client.js";
import { createHogQLQueryKind } from "../../src/queries/hogql-query.js";
import { createQueryService } from "../../src/queries/query.service.js";
import type { QueryKind } from "../../src/queries/query-kinds.js";
import { runReadOnly } from "../../src/queries/run-sql.js";
import { itWhere } from "../support/it-where.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

async function contextOf(s: TestServer, env: Record<string, string> = {}): Promise<ServiceContext> {
  const data = dataAccessOf(s.database);
  const actor = await authenticate(data, { key: s.key, source: "Authorization header" });
  return createServiceContext(data, actor, loadConfig(env).limits);
}

describeEachBackend("query service", (server, backend) => {
  it("runs a registered kind with the documented deps and answers 429 beyond the per-project cap", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: string[] = [];
    const blocking: QueryKind = {
      kind: "BlockingQuery",
      async run(deps, project, query, options) {
        seen.push(`${project.id}:${(query as { kind: string }).kind}:${options.timeoutMs}`);
        await gate;
        const [row] = await deps.execute<{ tz: string }>(
          Prisma.sql`SELECT current_setting('TimeZone') AS tz`,
          "Asia/Tokyo",
        );
        return { results: [[row!.tz]] };
      },
    };
    const service = createQueryService({ now: () => new Date(), config: loadConfig({}) }, [
      createHogQLQueryKind(server().services.queryWorkers),
      blocking,
    ]);
    const ctx = await contextOf(server(), {
      QUERY_MAX_CONCURRENT_PER_PROJECT: "2",
      QUERY_TIMEOUT_MS: "1234",
    });
    const first = service.run(ctx, server().projectId, { kind: "BlockingQuery" });
    const second = service.run(ctx, server().projectId, { kind: "BlockingQuery" });
    await expect(service.run(ctx, server().projectId, { kind: "BlockingQuery" })).rejects.toThrow(
      TooManyRequestsError,
    );
    await expect(service.run(ctx, server().projectId, { kind: "BlockingQuery" })).rejects.toThrow(
      "Too many concurrent requests. Please try again later.",
    );
    const other = await server().createProject("Cap");
    const otherRun = service.run(ctx, other, { kind: "BlockingQuery" });
    release();
    expect(await first).toEqual({ results: [["Asia/Tokyo"]] });
    await second;
    await otherRun;
    expect(seen).toContain(`${server().projectId}:BlockingQuery:1234`);
    expect(seen).toHaveLength(3);
    // Slots are given back: a new run is accepted.
    expect(await service.run(ctx, server().projectId, { kind: "BlockingQuery" })).toEqual({
      results: [["Asia/Tokyo"]],
    });
    expect(service.kinds()).toEqual(["HogQLQuery", "BlockingQuery"]);
  });

  it("runs statements read-only", async () => {
    await expect(
      runReadOnly(
        server().db,
        Prisma.sql`INSERT INTO tags (project_id, name) VALUES (${server().projectId}, 'x') RETURNING 1`,
        {
          timeoutMs: 5000,
          timezone: "UTC",
        },
      ),
    ).rejects.toThrow(/Query execution failed: cannot execute INSERT in a read-only transaction/);
  });

  itWhere(backend === "postgres")("stops a statement at the configured timeout", async () => {
    await expect(
      runReadOnly(server().db, Prisma.sql`SELECT pg_sleep(2)`, { timeoutMs: 50, timezone: "UTC" }),
    ).rejects.toThrow("Query exceeded the statement timeout of 50 ms.");
  });
});
