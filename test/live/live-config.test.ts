import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { recordActivity } from "../../src/core/activity-log.js";
import type { DatabaseChange } from "../../src/db/change-feed.js";
import { localEvaluator } from "../support/flag-parity.js";
import { createFlag, flagsPath } from "../support/flags.js";
import { useSecondProcess } from "../support/second-process.js";
import {
  availableBackends,
  describeEachBackend,
  startTestServer,
  type TestServer,
} from "../support/server.js";
import { openSse, type SseStream, subscribeSse } from "../support/sse.js";

/** Whom posthog-node evaluates the streamed definitions for. */
const PERSON = { distinctId: "u1", properties: {}, groups: {}, groupProperties: {}, staticCohortIds: [] };

const FLAG_CHANGED = `subscription ($projectId: ID!, $keys: [String!]!) {
  featureFlagChanged(projectId: $projectId, keys: $keys) {
    activity key databaseId revision userId featureFlag { key active }
  }
}`;

const EXPERIMENT_CHANGED = `subscription ($projectId: ID!) {
  experimentChanged(projectId: $projectId) { activity databaseId experiment { name } }
}`;

// A variable named unlike its argument: graphql-jit's subscribe lost those (compiled-execution.ts).
const REVISIONS = `subscription ($project: ID!) {
  configurationRevision(projectId: $project) { projectId revision }
}`;

/** A subscription's result as the tests read it: the shapes of the documents above. */
// biome-ignore lint/suspicious/noExplicitAny: assertions read the documents' result shapes
type Result = { data?: any; errors?: Array<{ extensions?: Record<string, unknown> }> };

/** A GraphQL subscription's next `next` event's payload (yoga's SSE: `event: next`, `data: {...}`). */
async function nextResult(stream: SseStream, timeoutMs = 5_000): Promise<Result> {
  for (;;) {
    const event = await stream.next(timeoutMs);
    if (event.event === "next" || event.event === undefined) return JSON.parse(event.data);
    if (event.event === "complete") throw new Error("the subscription completed");
  }
}

/** A flag that is on for everyone, with `key`. */
async function onFlag(s: TestServer, key: string): Promise<number> {
  const created = await createFlag(s, {
    key,
    filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
  });
  return created.id as number;
}

async function projectToken(s: TestServer): Promise<string> {
  return (await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } })).apiToken;
}

describeEachBackend("live configuration", (server) => {
  it("announces a committed write with what, where, which revision and who, and nothing of a rolled-back one", async () => {
    const s = server();
    const id = await onFlag(s, "announced");
    const heard: DatabaseChange[] = [];
    const unsubscribe = s.database.changes.subscribe((change) => heard.push(change));
    try {
      await s.db
        .$transaction(async (tx) => {
          await tx.featureFlag.update({ where: { id }, data: { active: false } });
          await recordActivity(tx, {
            projectId: s.projectId,
            userId: s.userId,
            scope: "FeatureFlag",
            itemId: String(id),
            activity: "updated",
            name: "announced",
            changes: [
              { type: "FeatureFlag", action: "changed", field: "active", before: true, after: false },
            ],
          });
          throw new Error("roll back");
        })
        .catch(() => {});
      const patched = await s.request("PATCH", flagsPath(s, `${id}/`), { body: { active: false } });
      expect(patched.status).toBe(200);
      const revision = (await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } })).revision;
      await expect.poll(() => heard.filter((c) => c.kind === "change").length).toBe(1);
      expect(heard.filter((c) => c.kind === "change")).toEqual([
        {
          kind: "change",
          projectId: s.projectId,
          revision,
          scope: "FeatureFlag",
          itemId: String(id),
          activity: "updated",
          userId: s.userId,
          flagKey: "announced",
        },
      ]);
      expect(heard.filter((c) => c.kind === "revision")).toEqual([
        { kind: "revision", projectId: s.projectId, revision },
      ]);
    } finally {
      unsubscribe();
    }
  });

  it("delivers a flag change to a GraphQL subscription over SSE with the flag as committed", async () => {
    const s = server();
    const id = await onFlag(s, "sse-flag");
    await onFlag(s, "other-flag");
    const stream = await subscribeSse(s.baseUrl, s.key, FLAG_CHANGED, {
      projectId: String(s.projectId),
      keys: ["sse-flag"],
    });
    try {
      expect(stream.status).toBe(200);
      // Give the subscription time to start listening: its first event is the change below.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const other = await s.db.featureFlag.findFirstOrThrow({ where: { key: "other-flag" } });
      await s.request("PATCH", flagsPath(s, `${other.id}/`), { body: { name: "not this one" } });
      await s.request("PATCH", flagsPath(s, `${id}/`), { body: { active: false } });
      const result = await nextResult(stream);
      expect(result.errors).toBeUndefined();
      expect(result.data.featureFlagChanged).toMatchObject({
        activity: "updated",
        key: "sse-flag",
        databaseId: id,
        userId: s.userId,
        featureFlag: { key: "sse-flag", active: false },
      });
      // Each event reads the flag as it is then, not as the first event's loaders held it.
      await s.request("PATCH", flagsPath(s, `${id}/`), { body: { active: true } });
      const second = await nextResult(stream);
      expect(second.data.featureFlagChanged.featureFlag).toEqual({ key: "sse-flag", active: true });
      expect(BigInt(second.data.featureFlagChanged.revision)).toBeGreaterThan(
        BigInt(result.data.featureFlagChanged.revision),
      );
    } finally {
      stream.close();
    }
  });

  it("gives every subscriber of a change the flag as committed, each through its own key's scopes", async () => {
    const s = server();
    const id = await onFlag(s, "shared-flag");
    const readOnly = await s.createKey(["feature_flag:read"]);
    const variables = { projectId: String(s.projectId), keys: ["shared-flag"] };
    // Several subscribers of one change share its flag read (core/shared-reads.ts); each must still
    // see the flag as each change committed it, not as an earlier change's read held it.
    const streams = await Promise.all([
      subscribeSse(s.baseUrl, s.key, FLAG_CHANGED, variables),
      subscribeSse(s.baseUrl, s.key, FLAG_CHANGED, variables),
      subscribeSse(s.baseUrl, readOnly, FLAG_CHANGED, variables),
    ]);
    try {
      expect(streams.map((stream) => stream.status)).toEqual([200, 200, 200]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const active of [false, true]) {
        await s.request("PATCH", flagsPath(s, `${id}/`), { body: { active } });
        const results = await Promise.all(streams.map((stream) => nextResult(stream)));
        for (const result of results) {
          expect(result.errors).toBeUndefined();
          expect(result.data.featureFlagChanged.featureFlag).toEqual({ key: "shared-flag", active });
        }
      }
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it("sends the configuration revision now and after each write, and experiment changes", async () => {
    const s = server();
    const revisions = await subscribeSse(s.baseUrl, s.key, REVISIONS, { project: String(s.projectId) });
    const experiments = await subscribeSse(s.baseUrl, s.key, EXPERIMENT_CHANGED, {
      projectId: String(s.projectId),
    });
    try {
      const first = (await nextResult(revisions)).data.configurationRevision;
      const now = (await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } })).revision;
      expect(first).toEqual({ projectId: s.projectId, revision: String(now) });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const created = await s.request("POST", `/api/projects/${s.projectId}/experiments/`, {
        body: { name: "Live test", feature_flag_key: "live-experiment" },
      });
      expect(created.status).toBe(201);
      const next = (await nextResult(revisions)).data.configurationRevision;
      expect(BigInt(next.revision)).toBeGreaterThan(now);
      const change = (await nextResult(experiments)).data.experimentChanged;
      expect(change).toEqual({
        activity: "created",
        databaseId: created.body.id,
        experiment: { name: "Live test" },
      });
    } finally {
      revisions.close();
      experiments.close();
    }
  });

  it("refuses a subscription without the scope or to another project, as queries are refused", async () => {
    const s = server();
    const noFlags = await s.createKey(["project:read"]);
    const refused = await nextResult(
      await subscribeSse(s.baseUrl, noFlags, FLAG_CHANGED, { projectId: String(s.projectId), keys: ["x"] }),
    );
    expect(refused.errors?.[0]?.extensions?.code).toBe("permission_denied");
    const other = await s.createProject("Other");
    const limited = await s.createKey(["*"], [s.projectId]);
    const elsewhere = await nextResult(
      await subscribeSse(s.baseUrl, limited, REVISIONS, { project: String(other) }),
    );
    expect(elsewhere.errors?.[0]?.extensions?.code).toBe("permission_denied");
    const foreign = await s.createForeignProject("Foreign");
    const notMember = await nextResult(
      await subscribeSse(s.baseUrl, s.key, EXPERIMENT_CHANGED, { projectId: String(foreign) }),
    );
    expect(notMember.errors?.[0]?.extensions?.code).toMatch(/permission_denied|not_found/);
    const anonymous = await openSse(`${s.baseUrl}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: REVISIONS, variables: { project: String(s.projectId) } }),
    });
    expect((anonymous.errorBody ?? (await anonymous.next()).data).toString()).toContain("not_authenticated");
    anonymous.close();
  });

  it("works over WebSocket (graphql-ws) with the key in connectionParams", async () => {
    const s = server();
    const id = await onFlag(s, "ws-flag");
    const client = createClient({
      url: `${s.baseUrl.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${s.key}` },
      retryAttempts: 0,
    });
    try {
      const events = client.iterate<Result["data"]>({
        query: FLAG_CHANGED,
        variables: { projectId: String(s.projectId), keys: ["ws-flag"] },
      });
      const first = events.next();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await s.request("PATCH", flagsPath(s, `${id}/`), { body: { name: "over the socket" } });
      const result = await first;
      expect(result.value.errors).toBeUndefined();
      expect(result.value.data.featureFlagChanged).toMatchObject({
        activity: "updated",
        featureFlag: { key: "ws-flag", active: true },
      });
      await events.return?.();

      const noScope = await s.createKey(["project:read"]);
      const refusedClient = createClient({
        url: `${s.baseUrl.replace("http", "ws")}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { Authorization: `Bearer ${noScope}` },
        retryAttempts: 0,
      });
      const refused = await refusedClient
        .iterate<Result["data"]>({
          query: FLAG_CHANGED,
          variables: { projectId: String(s.projectId), keys: ["ws-flag"] },
        })
        .next();
      expect(refused.value.errors?.[0]?.extensions?.code).toBe("permission_denied");
      await refusedClient.dispose();
    } finally {
      await client.dispose();
    }
  });

  it("streams the definitions: the payload now, each new revision's, read by posthog-node", async () => {
    const s = server();
    const id = await onFlag(s, "streamed");
    const token = await projectToken(s);
    const stream = await openSse(`${s.baseUrl}/flags/definitions/stream?token=${token}`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      const first = await stream.next();
      const polled = await s.request("GET", `/flags/definitions?token=${token}`);
      expect(first.data).toBe(JSON.stringify(polled.body));
      const revision = (await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } })).revision;
      expect(first.id).toBe(String(revision));
      const before = await localEvaluator({ body: Buffer.from(first.data), etag: 'W/"a"' });
      expect((await before.evaluate(PERSON)).decided.get("streamed")).toMatchObject({ value: true });
      await before.close();

      await s.request("PATCH", flagsPath(s, `${id}/`), { body: { active: false } });
      const second = await stream.next();
      expect(BigInt(second.id!)).toBeGreaterThan(revision);
      const after = await localEvaluator({ body: Buffer.from(second.data), etag: 'W/"b"' });
      expect((await after.evaluate(PERSON)).decided.get("streamed")).toMatchObject({ value: false });
      await after.close();
    } finally {
      stream.close();
    }
  });

  it("resumes from Last-Event-ID: nothing when nothing moved, the payload at once when it did", async () => {
    const s = server();
    const id = await onFlag(s, "resumed");
    const token = await projectToken(s);
    const url = `${s.baseUrl}/api/feature_flag/local_evaluation/stream?token=${token}`;
    const first = await openSse(url, { headers: { authorization: `Bearer ${s.key}` } });
    const seen = await first.next();
    first.close();

    const idle = await openSse(url, {
      headers: { authorization: `Bearer ${s.key}`, "last-event-id": seen.id! },
    });
    expect(await idle.collect(300)).toEqual([]);
    await s.request("PATCH", flagsPath(s, `${id}/`), { body: { active: false } });
    const moved = await idle.next();
    expect(BigInt(moved.id!)).toBeGreaterThan(BigInt(seen.id!));
    const flags = JSON.parse(moved.data).flags as Array<{ key: string; active: boolean }>;
    expect(flags.find((flag) => flag.key === "resumed")).toMatchObject({ active: false });
    idle.close();

    // A client that missed the change while away gets it at once when it comes back.
    const back = await openSse(url, {
      headers: { authorization: `Bearer ${s.key}`, "last-event-id": seen.id! },
    });
    const caughtUp = await back.next(1_000);
    expect(caughtUp).toEqual(moved);
    back.close();
  });

  it("refuses the definitions stream as the polling path refuses it", async () => {
    const s = server();
    const token = await projectToken(s);
    const noScope = await s.createKey(["project:read"]);
    const refused = await openSse(`${s.baseUrl}/flags/definitions/stream?token=${token}`, {
      headers: { authorization: `Bearer ${noScope}` },
    });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.errorBody!)).toMatchObject({ code: "permission_denied" });
    const anonymous = await openSse(`${s.baseUrl}/flags/definitions/stream?token=${token}`);
    expect(anonymous.status).toBe(401);
    const other = await s.createProject("Elsewhere");
    const limited = await s.createKey(["feature_flag:read"], [s.projectId]);
    const elsewhere = await openSse(
      `${s.baseUrl}/api/projects/${other}/feature_flags/local_evaluation/stream`,
      { headers: { authorization: `Bearer ${limited}` } },
    );
    expect(elsewhere.status).toBe(403);
    const missingToken = await openSse(`${s.baseUrl}/flags/definitions/stream`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(missingToken.status).toBe(400);
  });
});

describe("live configuration: heartbeats", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer("pglite", { env: { STREAM_HEARTBEAT_MS: "100" } });
  });
  afterAll(async () => {
    await s.close();
  });

  it("sends a comment line on an idle definitions stream every heartbeat interval", async () => {
    const stream = await openSse(
      `${s.baseUrl}/api/projects/${s.projectId}/feature_flags/local_evaluation/stream`,
      { headers: { authorization: `Bearer ${s.key}` } },
    );
    await stream.next();
    await stream.collect(350);
    expect(stream.comments.filter((c) => c === "heartbeat").length).toBeGreaterThanOrEqual(2);
    stream.close();
  });
});

describe.skipIf(!availableBackends().includes("postgres"))("live configuration across processes", () => {
  const processes = useSecondProcess("signalbox-live-");

  it("a PATCH through one server reaches a subscription on the other within a second", async () => {
    const { server: s, otherUrl } = processes();
    const id = await onFlag(s, "across");
    const stream = await subscribeSse(otherUrl, s.key, FLAG_CHANGED, {
      projectId: String(s.projectId),
      keys: ["across"],
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      // A rolled-back write on this server's database publishes nothing to the other process.
      await s.db
        .$transaction(async (tx) => {
          await tx.featureFlag.update({ where: { id }, data: { name: "rolled back" } });
          await recordActivity(tx, {
            projectId: s!.projectId,
            userId: s!.userId,
            scope: "FeatureFlag",
            itemId: String(id),
            activity: "updated",
            name: "across",
            changes: [
              { type: "FeatureFlag", action: "changed", field: "active", before: true, after: false },
            ],
          });
          throw new Error("roll back");
        })
        .catch(() => {});
      const started = performance.now();
      const patched = await s.request("PATCH", flagsPath(s, `${id}/`), { body: { active: false } });
      expect(patched.status).toBe(200);
      const result = await nextResult(stream, 1_000);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(result.data.featureFlagChanged).toMatchObject({
        activity: "updated",
        featureFlag: { key: "across", active: false },
      });
      expect(await stream.collect(300)).toEqual([]);
    } finally {
      stream.close();
    }
  });
});
