import { describe, expect, it } from "vitest";
import { generateProjectApiToken } from "../../src/core/auth/api-keys.js";
import { projectToken } from "../support/capture.js";
import { useSecondProcess } from "../support/second-process.js";
import {
  availableBackends,
  describeEachBackend,
  readResponse,
  type TestResponse,
  type TestServer,
} from "../support/server.js";

/** One request naming a project by `token`, as an SDK (or a server SDK with `key`) sends it. */
type TokenRequest = (baseUrl: string, token: string, key: string) => Promise<TestResponse>;

const post = async (url: string, body: unknown, headers: Record<string, string> = {}) =>
  readResponse(
    await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
  );

/** Every kind of path that takes a project token, and the status it refuses an unknown one with. */
const TOKEN_PATHS: Record<string, { send: TokenRequest; refused: number }> = {
  "/e/": {
    send: (base, token) => post(`${base}/e/`, { api_key: token, event: "rotated", distinct_id: "u1" }),
    refused: 401,
  },
  "/batch/": {
    send: (base, token) =>
      post(`${base}/batch/`, { api_key: token, batch: [{ event: "rotated", distinct_id: "u1" }] }),
    refused: 401,
  },
  "/flags/": {
    send: (base, token) => post(`${base}/flags/?v=2`, { api_key: token, distinct_id: "u1" }),
    refused: 401,
  },
  "/decide/": {
    send: (base, token) => post(`${base}/decide/?v=3`, { api_key: token, distinct_id: "u1" }),
    refused: 401,
  },
  OFREP: {
    send: (base, token) =>
      post(
        `${base}/ofrep/v1/evaluate/flags`,
        { context: { targetingKey: "u1" } },
        { authorization: `Bearer ${token}` },
      ),
    refused: 401,
  },
  "/array/:token/config": {
    send: async (base, token) => readResponse(await fetch(`${base}/array/${token}/config`)),
    refused: 404,
  },
  "/flags/definitions": {
    send: async (base, token, key) =>
      readResponse(
        await fetch(`${base}/flags/definitions?token=${token}`, {
          headers: { authorization: `Bearer ${key}` },
        }),
      ),
    refused: 401,
  },
  "/api/feature_flag/local_evaluation": {
    send: async (base, token, key) =>
      readResponse(
        await fetch(`${base}/api/feature_flag/local_evaluation?token=${token}`, {
          headers: { authorization: `Bearer ${key}` },
        }),
      ),
    refused: 401,
  },
};

/** Rotates the project's token as an operator would (SQL outside any service); returns the new one. */
async function rotate(s: TestServer): Promise<string> {
  const token = generateProjectApiToken();
  await s.db.$executeRaw`UPDATE projects SET api_token = ${token} WHERE id = ${s.projectId}`;
  return token;
}

describeEachBackend("a rotated project token", (server) => {
  it("is refused on every token path as soon as the rotation commits, and the new one works", async () => {
    const s = server();
    const old = await projectToken(s);
    for (const [name, { send }] of Object.entries(TOKEN_PATHS)) {
      const answer = await send(s.baseUrl, old, s.key);
      expect(answer.status, `${name}: ${answer.text}`).toBeLessThan(300);
      // Twice: the second is answered with the token as this process remembers it.
      expect((await send(s.baseUrl, old, s.key)).status, name).toBeLessThan(300);
    }
    const rotated = await rotate(s);
    for (const [name, { send, refused }] of Object.entries(TOKEN_PATHS)) {
      const answer = await send(s.baseUrl, old, s.key);
      expect(answer.status, `${name}: ${answer.text}`).toBe(refused);
      expect((await send(s.baseUrl, rotated, s.key)).status, name).toBeLessThan(300);
    }
  });
});

describe.skipIf(!availableBackends().includes("postgres"))("a rotated project token across processes", () => {
  const processes = useSecondProcess("signalbox-rotation-");

  it("is refused by the other process once the change feed brings the rotation, within 2 s", async () => {
    const { server: s, otherUrl } = processes();
    const old = await projectToken(s);
    const paths = Object.entries(TOKEN_PATHS);
    for (const [name, { send }] of paths) {
      expect((await send(otherUrl, old, s.key)).status, name).toBeLessThan(300);
    }
    const rotated = await rotate(s);
    const deadline = Date.now() + 2_000;
    for (const [name, { send, refused }] of paths) {
      let status = (await send(otherUrl, old, s.key)).status;
      while (status !== refused && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        status = (await send(otherUrl, old, s.key)).status;
      }
      expect(status, `${name} on the other process`).toBe(refused);
      expect((await send(otherUrl, rotated, s.key)).status, name).toBeLessThan(300);
    }
  });
});
