/**
 * Revocation reaches open streams (issue 24 item 4), on PGlite and PostgreSQL through the real
 * server: each kind of stream (the definitions stream named by a token or by a project path, a
 * GraphQL subscription over SSE and over WebSocket) is authorised again when the change feed says
 * access changed, and ends before a 2 s deadline with its protocol's error when its key is deleted,
 * loses the scope or the project, its user leaves the organization or is deactivated, or its token
 * rotates; a stream whose access did not change keeps going. Changes are made with SQL, as psql
 * would: the database announces them, not the services.
 */
import { type Client, createClient } from "graphql-ws";
import { expect, it } from "vitest";
import WebSocket from "ws";
import { generateProjectApiToken, hashApiKey } from "../../src/core/auth/api-keys.js";
import { dataAccessOf } from "../../src/core/context.js";
import { createPersonalApiKey } from "../../src/users/users.service.js";
import { projectToken } from "../support/capture.js";
import { describeEachBackend, type TestServer } from "../support/server.js";
import { openSse, type SseStream, subscribeSse } from "../support/sse.js";

/** Before this, every stream must have ended with its error. */
const DEADLINE_MS = 2_000;

const REVISIONS = `subscription ($project: ID!) { configurationRevision(projectId: $project) { revision } }`;

/** How a stream ended: the error's PostHog code (REST body `code`, GraphQL `extensions.code`). */
interface Ending {
  code: string;
}

/** An open stream of one kind, as the tests drive it. */
interface OpenStream {
  /** Its next data event (a payload, a revision) within `ms`. */
  next(ms?: number): Promise<unknown>;
  /** Waits for the stream to end with an error within `ms`, skipping data; checks it ended after it. */
  ending(ms: number): Promise<Ending>;
  close(): Promise<void>;
}

/** Opens one kind of stream on `projectId` with `key`; resolves once the stream sent its first event. */
type StreamKind = (s: TestServer, key: string, projectId: number) => Promise<OpenStream>;

/** A definitions stream at `path`: `event: error` with the PostHog body, then the end of the response. */
function definitionsStream(path: (projectId: number, token: string) => string): StreamKind {
  return async (s, key, projectId) => {
    const stream = await openSse(`${s.baseUrl}${path(projectId, await projectToken(s, projectId))}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(stream.status, stream.errorBody).toBe(200);
    await stream.next();
    return {
      next: async (ms) => (await stream.next(ms)).data,
      async ending(ms) {
        const deadline = Date.now() + ms;
        for (;;) {
          const event = await stream.next(Math.max(1, deadline - Date.now()));
          if (event.event !== "error") continue;
          const body = JSON.parse(event.data);
          expect(Object.keys(body).sort()).toEqual(["attr", "code", "detail", "type"]);
          await expect(stream.next(1_000)).rejects.toThrow("the stream ended");
          return body;
        }
      },
      close: async () => stream.close(),
    };
  };
}

/** GraphQL over SSE: a `next` whose result carries the error, then `complete`. */
const graphqlSse: StreamKind = async (s, key, projectId) => {
  const stream: SseStream = await subscribeSse(s.baseUrl, key, REVISIONS, { project: String(projectId) });
  expect(stream.status, stream.errorBody).toBe(200);
  const result = async (ms?: number) => {
    const event = await stream.next(ms);
    expect(event.event).toBe("next");
    return JSON.parse(event.data);
  };
  expect((await result()).data.configurationRevision).toBeTruthy();
  return {
    next: result,
    async ending(ms) {
      const deadline = Date.now() + ms;
      for (;;) {
        const { errors } = await result(Math.max(1, deadline - Date.now()));
        if (!errors) continue;
        expect((await stream.next(1_000)).event).toBe("complete");
        await expect(stream.next(1_000)).rejects.toThrow("the stream ended");
        return errors[0].extensions;
      }
    },
    close: async () => stream.close(),
  };
};

/** GraphQL over WebSocket (graphql-ws): the operation's `error` message. */
const graphqlWs: StreamKind = async (s, key, projectId) => {
  const client: Client = createClient({
    url: `${s.baseUrl.replace("http", "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${key}` },
    retryAttempts: 0,
  });
  const results: unknown[] = [];
  let failure: Ending | undefined;
  let wake = () => {};
  client.subscribe(
    { query: REVISIONS, variables: { project: String(projectId) } },
    {
      next: (result) => {
        results.push(result);
        wake();
      },
      error: (error) => {
        const first = (Array.isArray(error) ? error[0] : error) as { extensions?: Ending } | undefined;
        failure = first?.extensions ?? { code: `not a GraphQL error: ${String(error)}` };
        wake();
      },
      complete: () => {},
    },
  );
  const until = async (ready: () => boolean, ms: number, what: string) => {
    const deadline = Date.now() + ms;
    while (!ready()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  };
  const next = async (ms = 5_000) => {
    await until(() => results.length > 0, ms, "result");
    return results.shift();
  };
  await next();
  return {
    next,
    async ending(ms) {
      await until(() => failure !== undefined, ms, "error message");
      return failure!;
    },
    close: () => client.dispose() as Promise<void>,
  };
};

const KINDS: Record<string, StreamKind> = {
  "/flags/definitions/stream?token=": definitionsStream(
    (_id, token) => `/flags/definitions/stream?token=${token}`,
  ),
  "/api/projects/:id/feature_flags/local_evaluation/stream": definitionsStream(
    (id) => `/api/projects/${id}/feature_flags/local_evaluation/stream`,
  ),
  "GraphQL over SSE": graphqlSse,
  "GraphQL over WebSocket": graphqlWs,
};

/** A new member of the server's organization with a key of `scopes`, limited to `projects` when given. */
async function member(s: TestServer, label: string, scopes = ["feature_flag:read", "project:read"]) {
  const user = await s.db.user.create({ data: { email: `${label}@example.com`, distinctId: label } });
  await s.db.organizationMembership.create({ data: { organizationId: s.organizationId, userId: user.id } });
  const { key } = await createPersonalApiKey(s.db, {
    userId: user.id,
    label,
    scopes,
    scopedTeams: [],
    scopedOrganizations: [],
  });
  return { userId: user.id, key, secureValue: hashApiKey(key) };
}

/** Opens one stream of each kind with `key`, on `projectId` (default the server's project). */
async function openEach(
  s: TestServer,
  key: string,
  projectId = s.projectId,
): Promise<Record<string, OpenStream>> {
  const entries = await Promise.all(
    Object.entries(KINDS).map(async ([name, open]) => [name, await open(s, key, projectId)] as const),
  );
  return Object.fromEntries(entries);
}

/** Moves the project's revision (a write every stream hears of). */
async function write(s: TestServer): Promise<void> {
  const created = await s.request("POST", `/api/projects/${s.projectId}/feature_flags/`, {
    body: { key: `write-${Math.random().toString(36).slice(2)}` },
  });
  expect(created.status, created.text).toBe(201);
}

/** What each revocation does (with SQL, as psql would) and the code every stream ends with. */
const REVOCATIONS: Record<
  string,
  { code: string; revoke: (s: TestServer, who: Awaited<ReturnType<typeof member>>) => Promise<unknown> }
> = {
  "the key is deleted": {
    code: "authentication_failed",
    revoke: (s, who) =>
      s.db.$executeRaw`DELETE FROM personal_api_keys WHERE secure_value = ${who.secureValue}`,
  },
  "the key loses the scope": {
    code: "permission_denied",
    revoke: (s, who) =>
      s.db
        .$executeRaw`UPDATE personal_api_keys SET scopes = ARRAY['cohort:read'] WHERE secure_value = ${who.secureValue}`,
  },
  "the key loses the project": {
    code: "permission_denied",
    revoke: async (s, who) => {
      const other = await s.createProject(`Elsewhere ${who.userId}`);
      await s.db
        .$executeRaw`UPDATE personal_api_keys SET scoped_teams = ARRAY[${other}]::integer[] WHERE secure_value = ${who.secureValue}`;
    },
  },
  "the user leaves the organization": {
    code: "permission_denied",
    revoke: (s, who) => s.db.$executeRaw`DELETE FROM organization_memberships WHERE user_id = ${who.userId}`,
  },
  "the user is deactivated": {
    code: "authentication_failed",
    revoke: (s, who) => s.db.$executeRaw`UPDATE users SET is_active = false WHERE id = ${who.userId}`,
  },
};

describeEachBackend("revocation reaches open streams", (server) => {
  for (const [what, { code, revoke }] of Object.entries(REVOCATIONS)) {
    it(`ends every kind of stream with its error when ${what}`, async () => {
      const s = server();
      const who = await member(s, what.replaceAll(" ", "-"));
      const streams = await openEach(s, who.key);
      try {
        await revoke(s, who);
        const endings = await Promise.all(
          Object.entries(streams).map(async ([name, stream]) => [
            name,
            (await stream.ending(DEADLINE_MS)).code,
          ]),
        );
        expect(Object.fromEntries(endings)).toEqual(
          Object.fromEntries(Object.keys(KINDS).map((name) => [name, code])),
        );
      } finally {
        await Promise.all(Object.values(streams).map((stream) => stream.close()));
      }
    });
  }

  it("ends every kind of stream on a project when it is deleted", async () => {
    const s = server();
    const who = await member(s, "project-deleted");
    const doomed = await s.createProject("Doomed");
    const streams = await openEach(s, who.key, doomed);
    try {
      await s.db.$executeRaw`DELETE FROM projects WHERE id = ${doomed}`;
      const endings = await Promise.all(
        Object.entries(streams).map(async ([name, stream]) => [
          name,
          (await stream.ending(DEADLINE_MS)).code,
        ]),
      );
      expect(Object.fromEntries(endings)).toEqual({
        // The token names no project any more: the door refuses it before the project is looked for.
        "/flags/definitions/stream?token=": "authentication_failed",
        "/api/projects/:id/feature_flags/local_evaluation/stream": "not_found",
        "GraphQL over SSE": "not_found",
        "GraphQL over WebSocket": "not_found",
      });
    } finally {
      await Promise.all(Object.values(streams).map((stream) => stream.close()));
    }
  });

  it("keeps the streams of an untouched key going when another key is revoked", async () => {
    const s = server();
    const revoked = await member(s, "revoked-neighbour");
    const kept = await member(s, "kept-neighbour");
    const ending = await openEach(s, revoked.key);
    const going = await openEach(s, kept.key);
    try {
      await REVOCATIONS["the key is deleted"]!.revoke(s, revoked);
      await Promise.all(Object.values(ending).map((stream) => stream.ending(DEADLINE_MS)));
      await write(s);
      for (const [name, stream] of Object.entries(going)) {
        expect(await stream.next(DEADLINE_MS), name).toBeTruthy();
      }
    } finally {
      await Promise.all([...Object.values(ending), ...Object.values(going)].map((stream) => stream.close()));
    }
  });

  it("ends a stream named by a rotated token, and keeps the project's other streams going", async () => {
    const s = server();
    const who = await member(s, "rotation");
    const streams = await openEach(s, who.key);
    const named = "/flags/definitions/stream?token=";
    try {
      await s.db
        .$executeRaw`UPDATE projects SET api_token = ${generateProjectApiToken()} WHERE id = ${s.projectId}`;
      expect((await streams[named]!.ending(DEADLINE_MS)).code).toBe("authentication_failed");
      await write(s);
      for (const [name, stream] of Object.entries(streams)) {
        if (name !== named) expect(await stream.next(DEADLINE_MS), name).toBeTruthy();
      }
    } finally {
      await Promise.all(Object.values(streams).map((stream) => stream.close()));
    }
  });

  it("forgets every stream once it is closed", async () => {
    const s = server();
    const who = await member(s, "forgotten");
    const open = dataAccessOf(s.database).streams;
    // The earlier tests' streams, closed by their clients, are forgotten as the server hears it.
    await expect.poll(() => open.size).toBe(0);
    const streams = await openEach(s, who.key);
    expect(open.size).toBe(Object.keys(KINDS).length);
    await Promise.all(Object.values(streams).map((stream) => stream.close()));
    await expect.poll(() => open.size).toBe(0);
  });
});
