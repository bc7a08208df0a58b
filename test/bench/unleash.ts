/**
 * Unleash 7.5 (npm `unleash-server`, pinned: 8.x needs Node 22) as the outside anchor of the bench's
 * REST list figure (issue 6 §4: "the REST list of 100 flags serves 0.48× what Unleash 7.5 serves for
 * its admin list of 100"). Started in the bench server process (server.ts), so that run.ts reads its
 * CPU time as it reads ours, on a throwaway PostgreSQL database of its own that it migrates itself:
 * Unleash has no embedded mode, so the PGlite half of the bench compares ours on PGlite with Unleash
 * on PostgreSQL.
 *
 * Offline and quiet: no version check, no telemetry (`SEND_TELEMETRY`: Unleash ORs the `telemetry`
 * option with that variable, so only the variable turns it off), no scheduler (its jobs are
 * maintenance and reporting, none of them feeds the admin list), no request log. Authentication is
 * Unleash's own (`open-source`) with an admin API token created at start, so both sides authenticate
 * every request. Its database pool gets 10 connections, as the bench's connections and the
 * baseline's pool (Unleash's default is 4).
 */
import { randomBytes } from "node:crypto";
import type { IUnleashOptions } from "unleash-server";

/** Unleash's `IAuthType`, which its package entry does not export. */
type AuthType = NonNullable<NonNullable<IUnleashOptions["authentication"]>["type"]>;

/** Flag tags, as the bench's own flags carry them (two each, in turn). */
const TAGS = ["beta", "checkout", "mobile"] as const;
/** Seeding requests in flight at once (each flag's three writes stay in order). */
const SEED_CONCURRENCY = 10;

/** A running Unleash: its admin list URL, the token that reads it, its frontend API, and how to stop it. */
export interface RunningUnleash {
  /**
   * The endpoint Unleash's UI reads for a project's flag list in 7.5 (its `useFeatureSearch` hook):
   * `GET /api/admin/search/features?project=IS:default&…&limit=<flags>`, newest first. Of the two
   * admin lists it is the one with the details a list row shows: per-environment state and strategy
   * presence, tags, segments, the creator (id, name, avatar) and the total; the older
   * `GET /api/admin/projects/default/features` leaves the creator and the total out.
   */
  list: string;
  /** The admin API token (`Authorization` header value, no scheme, as Unleash expects). */
  token: string;
  /**
   * Unleash's frontend API (`GET /api/frontend?userId=…&properties[…]=…`), what its client SDKs call
   * to have flags evaluated for one context, the peer of PostHog's remote `/flags`; and the frontend
   * token (environment `development`) that reads it.
   */
  frontend: { url: string; token: string };
  /**
   * Where Unleash updates a flag, with `<name>` appended: `PATCH /api/admin/projects/default/features/<name>`
   * with a JSON patch (what its UI sends when a flag's description is edited), with `token`.
   */
  features: string;
  close(): Promise<void>;
}

/**
 * Starts Unleash on the (empty) PostgreSQL database at `url` (it runs its own migrations) and seeds
 * `flags` flags through its admin API: each `bench-<i>` with a description, a `flexibleRollout`
 * strategy at 50% with one constraint in `development` (as ours carry a condition group at 50%:
 * `userId` containing `@example.com`, as ours ask the person's `email` to), two `simple` tags, and
 * enabled in `development`. Returns why it could not, as text, instead of throwing.
 */
export async function startUnleash(url: string, flags: number): Promise<RunningUnleash | string> {
  try {
    process.env["SEND_TELEMETRY"] = "false";
    process.env["CHECK_VERSION"] = "false";
    const { start, LogLevel, ApiTokenType } = await import("unleash-server");
    const token = `*:*.${randomBytes(16).toString("hex")}`;
    const frontendToken = `*:development.${randomBytes(16).toString("hex")}`;
    const unleash = await start({
      databaseUrl: url,
      db: { ssl: false, pool: { min: 0, max: 10 } },
      server: { port: 0, host: "127.0.0.1", enableRequestLogger: false, gracefulShutdownEnable: false },
      versionCheck: { enable: false },
      telemetry: false,
      disableScheduler: true,
      logLevel: LogLevel.error,
      authentication: {
        type: "open-source" as AuthType,
        createAdminUser: false,
        initApiTokens: [
          { environment: "*", projects: ["*"], secret: token, type: ApiTokenType.ADMIN, tokenName: "bench" },
          {
            environment: "development",
            projects: ["*"],
            secret: frontendToken,
            type: ApiTokenType.FRONTEND,
            tokenName: "bench-frontend",
          },
        ],
      },
    });
    const address = unleash.server?.address();
    if (!address || typeof address === "string") return "no port";
    const admin = `http://127.0.0.1:${address.port}/api/admin`;
    const post = async (path: string, body: unknown) => {
      const answer = await fetch(`${admin}${path}`, {
        method: "POST",
        headers: { authorization: token, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!answer.ok) throw new Error(`POST ${path}: ${answer.status} ${await answer.text()}`);
    };
    const seedFlag = async (i: number) => {
      const name = `bench-${i}`;
      await post("/projects/default/features", { name, description: `Bench flag ${i}` });
      await post(`/projects/default/features/${name}/environments/development/strategies`, {
        name: "flexibleRollout",
        constraints: [
          {
            contextName: "userId",
            operator: "STR_CONTAINS",
            values: ["@example.com"],
            caseInsensitive: true,
          },
        ],
        parameters: { rollout: "50", stickiness: "default", groupId: name },
      });
      for (const tag of [TAGS[i % 3]!, TAGS[(i + 1) % 3]!]) {
        await post(`/features/${name}/tags`, { type: "simple", value: tag });
      }
      // Enabled, as ours are active: the frontend API evaluates enabled flags only.
      await post(`/projects/default/features/${name}/environments/development/on`, {});
    };
    try {
      await Promise.all(
        Array.from({ length: SEED_CONCURRENCY }, async (_, worker) => {
          for (let i = worker; i < flags; i += SEED_CONCURRENCY) await seedFlag(i);
        }),
      );
      // The frontend API answers from a cache that refreshes when the configuration revision moves,
      // which its scheduler (off here) would notice; notice it once, as the scheduler would.
      await unleash.services.configurationRevisionService.updateMaxRevisionId();
    } catch (error) {
      await unleash.stop();
      throw error;
    }
    return {
      list: `${admin}/search/features?project=IS%3Adefault&offset=0&limit=${flags}&sortBy=createdAt&sortOrder=desc`,
      token,
      frontend: { url: `http://127.0.0.1:${address.port}/api/frontend`, token: frontendToken },
      features: `${admin}/projects/default/features/`,
      close: () => unleash.stop(),
    };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
