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

  it("refuses, before running it, a statement whose estimated cost is above maxCost, and runs one beneath it", async () => {
    const numbers = Array.from({ length: 100 }, (_, n) => n).join(", ");
    const crossJoin = (sets: number) =>
      Prisma.raw(
        `SELECT count(*)::int AS n FROM ${Array.from({ length: sets }, (_, i) => `(SELECT unnest(ARRAY[${numbers}]) AS x${i}) AS t${i}`).join(" CROSS JOIN ")}`,
      );
    // 100³ rows: estimated near 15,000. 100⁵ rows: near 150 million, and minutes of work if it ran.
    const options = { timeoutMs: 60_000, timezone: "UTC", maxCost: 100_000 };
    expect(await runReadOnly(server().db, crossJoin(3), options)).toEqual([{ n: 1_000_000 }]);
    await expect(runReadOnly(server().db, crossJoin(5), options)).rejects.toMatchObject({
      code: "query_too_expensive",
      message: expect.stringMatching(
        /^Query is too expensive to run: its estimated cost is [\d,]+, above the limit of 100,000 \(QUERY_MAX_COST\)\./,
      ),
    });
    // The same statement runs under the database's own bound when there is no cost limit.
    await expect(
      runReadOnly(server().db, crossJoin(5), { ...options, timeoutMs: 200, maxCost: 0 }),
    ).rejects.toThrow("Query exceeded the statement timeout of 200 ms.");
  });

  it("QUERY_MAX_COST defaults to 1,000,000 on the embedded database and to none on PostgreSQL", () => {
    expect(loadConfig({}).limits.queryMaxCost).toBe(1_000_000);
    expect(
      loadConfig({ DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/test" }).limits.queryMaxCost,
    ).toBe(0);
    expect(loadConfig({ QUERY_MAX_COST: "5000" }).limits.queryMaxCost).toBe(5000);
  });

  itWhere(backend === "postgres")("stops a statement at the configured timeout", async () => {
    await expect(
      runReadOnly(server().db, Prisma.sql`SELECT pg_sleep(2)`, { timeoutMs: 50, timezone: "UTC" }),
    ).rejects.toThrow("Query exceeded the statement timeout of 50 ms.");
  });
});
