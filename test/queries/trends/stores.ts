/**
 * The analytics stores the Trends cases run on (issue 30): PostgreSQL on both backends (PGlite, and
 * a server where one answers), events captured into PostgreSQL; and ClickHouse (chdb, the real
 * engine: test/support/clickhouse.ts), events captured through the same HTTP server into ClickHouse
 * (persons in PGlite, mirrored), the query run through the same orchestration (run-trends.ts) with
 * the ClickHouse store (src/queries/trends/clickhouse-store.ts). The ClickHouse half is skipped,
 * loudly, where chdb is not installed.
 */
import { afterAll, beforeAll, describe } from "vitest";
import { clickHouseTrendsStore } from "../../../src/queries/trends/clickhouse-store.js";
import type { TrendsQueryResponse } from "../../../src/queries/trends/run-trends.js";
import { chdbInstalled, openTestClickHouse, type TestClickHouse } from "../../support/clickhouse.js";
import { describeEachBackend, startTestServer, type TestServer } from "../../support/server.js";
import { countingReader, type RunOptions, runOn } from "./fixture.js";

/** Which store a case runs on. */
export type StoreName = "postgres" | "clickhouse";

/** What a case sees of its store. */
export interface StoreContext {
  store: StoreName;
  server(): TestServer;
  /** Runs a Trends query (runOn's options) on this store. */
  run(
    query: Record<string, unknown>,
    options?: Omit<RunOptions, "store" | "reader">,
  ): Promise<TrendsQueryResponse>;
  /**
   * Runs a Trends query counting the statements the store sends for the events (PostgreSQL's
   * reader; ClickHouse's client queries).
   */
  runCounting(query: Record<string, unknown>): Promise<number>;
}

/** Declares `body` once per store (and PostgreSQL backend), each on a fresh server and database. */
export function describeEachStore(name: string, body: (ctx: StoreContext) => void): void {
  describeEachBackend(name, (server) => {
    body({
      store: "postgres",
      server,
      run: (query, options) => runOn(server(), query, options),
      async runCounting(query) {
        const counting = countingReader(server().database.reader);
        await runOn(server(), query, { reader: counting.reader });
        return counting.count();
      },
    });
  });

  describe.skipIf(!chdbInstalled)(`${name} [clickhouse]`, () => {
    let clickhouse: TestClickHouse | undefined;
    let server: TestServer | undefined;
    beforeAll(async () => {
      clickhouse = await openTestClickHouse();
      server = await startTestServer("pglite", { clickhouse: clickhouse.client });
    });
    afterAll(async () => {
      await server?.close();
      await clickhouse?.close();
    });
    const current = () => {
      if (!server || !clickhouse) throw new Error("server not started");
      return { server, clickhouse };
    };
    body({
      store: "clickhouse",
      server: () => current().server,
      run: (query, options) => {
        const { server: s, clickhouse: ch } = current();
        return runOn(s, query, { ...options, store: clickHouseTrendsStore({ client: ch.client, db: s.db }) });
      },
      async runCounting(query) {
        const { server: s, clickhouse: ch } = current();
        let statements = 0;
        const counting = new Proxy(ch.client, {
          get(target, key, receiver) {
            if (key === "query") {
              return (params: Parameters<typeof target.query>[0]) => {
                statements += 1;
                return target.query(params);
              };
            }
            return Reflect.get(target, key, receiver);
          },
        });
        await runOn(s, query, { store: clickHouseTrendsStore({ client: counting, db: s.db }) });
        return statements;
      },
    });
  });
}
