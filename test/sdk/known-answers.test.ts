/**
 * Answers from memory before routing (src/sdk/known-answers.ts), on PGlite and PostgreSQL, on the
 * definitions paths SDKs poll (the SDK door's personal-key paths): once the key and the payload are
 * held, a poll is answered without fastify, with exactly the bytes the door sends (status, headers
 * in order, body; only the request id and the date differ), CORS headers included; anything the
 * process does not hold, and every error, is answered by the door with the work begun before
 * routing (not run again); a write, a revoked scope or a deleted key is seen at once. The REST
 * door's project path serves the same payload through fastify.
 */
import http from "node:http";
import { beforeAll, expect, it } from "vitest";
import { hashApiKey } from "../../src/core/auth/api-keys.js";
import { projectToken } from "../support/capture.js";
import { createFlag, flagsPath } from "../support/flags.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

/** A raw answer: status, headers as sent (name, value, in order), body bytes. */
interface RawAnswer {
  status: number;
  headers: Array<[string, string]>;
  body: Buffer;
}

/** GET `path` with `headers`, as Node's http client sees the answer on the wire. */
function get(s: TestServer, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    http
      .get(`${s.baseUrl}${path}`, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const raw = response.rawHeaders;
          const pairs: Array<[string, string]> = [];
          for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
          resolve({ status: response.statusCode!, headers: pairs, body: Buffer.concat(chunks) });
        });
      })
      .on("error", reject);
  });
}

/** The answer with the values that differ per request (request id, date) blanked. */
function comparable(answer: RawAnswer) {
  return {
    ...answer,
    headers: answer.headers.map(([name, value]) =>
      /^(x-request-id|date)$/i.test(name) ? [name, "…"] : [name, value],
    ),
  };
}

const header = (answer: RawAnswer, name: string) =>
  answer.headers.find(([key]) => key.toLowerCase() === name)?.[1];

describeEachBackend("answers from memory before routing", (server) => {
  let paths: string[];
  const auth = () => ({ authorization: `Bearer ${server().key}` });
  /** Requests answered from memory so far. */
  const answered = () => server().app.knownAnswers.answered;

  beforeAll(async () => {
    const s = server();
    const token = await projectToken(s);
    await createFlag(s, { key: "known-answer", filters: { groups: [{ rollout_percentage: 40 }] } });
    paths = [
      `/flags/definitions?token=${token}&send_cohorts`,
      `/api/feature_flag/local_evaluation/?token=${token}`,
    ];
  });

  it("leaves the REST door's project path to fastify, with the same payload and tag", async () => {
    const s = server();
    const restPath = flagsPath(s, "local_evaluation?send_cohorts");
    await get(s, restPath, auth());
    await get(s, paths[0]!, auth()); // the door reads the token
    const before = answered();
    const rest = await get(s, restPath, auth());
    const sdk = await get(s, paths[0]!, auth());
    expect(answered()).toBe(before + 1);
    expect(rest.status).toBe(200);
    expect(rest.body.equals(sdk.body)).toBe(true);
    expect(header(rest, "etag")).toBe(header(sdk, "etag"));
  });

  it("answers a held poll, 200 and 304, with the door's bytes on every path", async () => {
    const s = server();
    for (const path of paths) {
      await get(s, path, auth()); // the door reads the key and the payload
      const before = answered();
      const known = await get(s, path, auth());
      expect(answered()).toBe(before + 1);
      // A GET that declares a body (even empty) is the door's, which answers the same request.
      const door = await get(s, path, { ...auth(), "content-length": "0" });
      expect(answered()).toBe(before + 1);
      expect(known.status).toBe(200);
      expect(comparable(known)).toEqual(comparable(door));
      // A page on another origin: the CORS headers, written here as the door writes them.
      const cross = { ...auth(), origin: "https://app.example" };
      const crossKnown = await get(s, path, cross);
      const crossDoor = await get(s, path, { ...cross, "content-length": "0" });
      expect(answered()).toBe(before + 2);
      expect(comparable(crossKnown)).toEqual(comparable(crossDoor));
      expect(header(crossKnown, "access-control-expose-headers")).toBe("ETag, Cache-Control");
      expect(header(known, "server-timing")).toBe('db;dur=0.0;desc="0 statements"');
      expect(JSON.parse(known.body.toString()).flags.map((flag: { key: string }) => flag.key)).toContain(
        "known-answer",
      );

      const etag = header(known, "etag")!;
      const notModified = await get(s, path, { ...auth(), "if-none-match": etag });
      const notModifiedByDoor = await get(s, path, {
        ...auth(),
        "if-none-match": etag,
        "content-length": "0",
      });
      expect(answered()).toBe(before + 3);
      expect(notModified.status).toBe(304);
      expect(notModified.body.length).toBe(0);
      expect(comparable(notModified)).toEqual(comparable(notModifiedByDoor));
    }
  });

  it("serves a write's payload at once: the moved revision is not held, so the door reloads it", async () => {
    const s = server();
    const path = paths[0]!;
    const first = await get(s, path, auth());
    await createFlag(s, { key: "known-answer-2", filters: { groups: [{ rollout_percentage: 10 }] } });
    const before = answered();
    const next = await get(s, path, { ...auth(), "if-none-match": header(first, "etag")! });
    expect(next.status).toBe(200);
    expect(answered()).toBe(before);
    expect(header(next, "etag")).not.toBe(header(first, "etag"));
    expect(JSON.parse(next.body.toString()).flags.map((flag: { key: string }) => flag.key)).toContain(
      "known-answer-2",
    );
    const again = await get(s, path, { ...auth(), "if-none-match": header(next, "etag")! });
    expect(again.status).toBe(304);
    expect(answered()).toBe(before + 1);
  });

  it("hands a poll it cannot answer at once to the door with its work begun: run once, counted once", async () => {
    const s = server();
    const path = paths[0]!;
    const key = await s.createKey(["feature_flag:read"]);
    const before = answered();
    // A key the process does not hold: read (one statement) and marked used (one), before routing;
    // the door answers with that outcome and counts those statements in the request's Server-Timing.
    const first = await get(s, path, { authorization: `Bearer ${key}` });
    expect(first.status).toBe(200);
    expect(answered()).toBe(before);
    expect(header(first, "server-timing")).toMatch(/desc="2 statements"$/);
    const stored = await s.db.personalApiKey.findUniqueOrThrow({ where: { secureValue: hashApiKey(key) } });
    expect(stored.lastUsedAt).not.toBeNull();
    const held = await get(s, path, { authorization: `Bearer ${key}` });
    expect(answered()).toBe(before + 1);
    expect(comparable(held)).toEqual({ ...comparable(first), headers: comparable(held).headers });
    expect(header(held, "server-timing")).toBe('db;dur=0.0;desc="0 statements"');
  });

  it("leaves every error to the door, and sees a revoked scope or a deleted key at once", async () => {
    const s = server();
    const path = paths[0]!;
    const key = await s.createKey(["feature_flag:read"]);
    const bearer = { authorization: `Bearer ${key}` };
    expect((await get(s, path, bearer)).status).toBe(200);
    expect((await get(s, path, bearer)).status).toBe(200);
    const before = answered();

    const unscoped = await s.createKey(["cohort:read"]);
    await get(s, path, { authorization: `Bearer ${unscoped}` });
    const denied = await get(s, path, { authorization: `Bearer ${unscoped}` });
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body.toString())).toMatchObject({ type: "authentication_error" });
    expect((await get(s, path, {})).status).toBe(401);
    expect((await get(s, `/flags/definitions?token=phc_unknown`, bearer)).status).toBe(401);
    expect(answered()).toBe(before);

    await s.db.personalApiKey.update({
      where: { secureValue: hashApiKey(key) },
      data: { scopes: ["cohort:read"] },
    });
    expect((await get(s, path, bearer)).status).toBe(403);
    await s.db.personalApiKey.delete({ where: { secureValue: hashApiKey(key) } });
    expect((await get(s, path, bearer)).status).toBe(401);
    expect(answered()).toBe(before);
  });
});
