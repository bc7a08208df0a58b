/**
 * No credential in any log line (src/core/logger.ts), on both backends: the real server logs at
 * `trace` into a captured destination while requests carry each kind of secret in each place a
 * client can put it (headers, query string under a plain or percent-encoded name, JSON and form
 * bodies) through REST, GraphQL, the SDK paths, answers given from memory, requests Node's parser
 * refuses, and a signed webhook delivery; no secret, plain or percent-encoded, appears in the
 * output. The logger's layers are also tried alone on objects no request logs today.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import { Writable } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { createLogger, redactUrl } from "../../src/core/logger.js";
import { createFlag } from "../support/flags.js";
import { describeEachBackend, type TestServer } from "../support/server.js";
import { eventually, useReceiver } from "../webhooks/receiver.js";

/** A random opaque value: a secret with no recognisable prefix, found only by where it is sent. */
const opaque = (label: string) => `${label}-${randomBytes(12).toString("hex")}`;

/** Sends `text` as raw bytes on a new connection and resolves with whatever comes back. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.end(text));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}

/** Every line that holds `secret` as sent, percent-encoded, or as the bytes of a JSON Buffer (`[104,101,...]`). */
function linesWith(lines: readonly string[], secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret), Buffer.from(secret).toJSON().data.join(",")];
  return lines.filter((line) => forms.some((form) => line.includes(form)));
}

describeEachBackend(
  "log redaction",
  (server) => {
    let s: TestServer;
    const receiver = useReceiver();
    beforeAll(() => {
      s = server();
    });

    it("writes no credential from any place a request carries one", async () => {
      const project = await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } });
      const port = new URL(s.baseUrl).port;
      const secrets = {
        key: s.key,
        unknownKey: `phx_${randomBytes(24).toString("hex")}`,
        projectToken: project.apiToken,
        queryToken: opaque("token"),
        queryApiKey: opaque("api-key"),
        encodedName: opaque("encoded-name"),
        bodyKey: opaque("body-key"),
        formKey: opaque("form-key"),
        cookie: opaque("cookie"),
        xApiKey: opaque("x-api-key"),
        rawPacket: opaque("raw-packet"),
      };
      const flags = `/api/projects/${s.projectId}/feature_flags/`;

      // REST: header, query string (plain and percent-encoded names), JSON and form bodies, cookies.
      expect(
        (await s.request("GET", flags, { headers: { cookie: `session=${secrets.cookie}` } })).status,
      ).toBe(200);
      expect((await s.request("GET", `${flags}?personal_api_key=${s.key}`, { key: null })).status).toBe(200);
      expect((await s.request("GET", flags, { key: secrets.unknownKey })).status).toBe(401);
      expect(
        (await s.request("GET", `${flags}?personal%5Fapi%5Fkey=${secrets.encodedName}`, { key: null }))
          .status,
      ).toBe(401);
      expect(
        (await s.request("POST", flags, { key: null, body: { personal_api_key: secrets.bodyKey, key: "x" } }))
          .status,
      ).toBe(401);
      const form = await fetch(`${s.baseUrl}${flags}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `personal_api_key=${secrets.formKey}&key=x`,
      });
      expect(form.status).toBe(401);

      // Local evaluation, twice: the second answer comes from memory (rest/known-answers.ts), logged apart.
      const localEvaluation = `/api/feature_flag/local_evaluation?token=${project.apiToken}&personal_api_key=${s.key}`;
      for (let i = 0; i < 2; i++)
        expect((await s.request("GET", localEvaluation, { key: null })).status).toBe(200);
      const answered = s.app.knownAnswers.answered;
      expect((await s.request("GET", localEvaluation, { key: null })).status).toBe(200);
      expect(s.app.knownAnswers.answered).toBe(answered + 1);

      // SDK paths: tokens in the query string and the body, the OFREP key header.
      expect(
        (
          await s.request("POST", `/flags/?v=2&token=${secrets.queryToken}`, {
            key: null,
            body: { distinct_id: "u" },
          })
        ).status,
      ).toBe(401);
      expect(
        (
          await s.request("POST", `/e/?api_key=${secrets.queryApiKey}`, {
            key: null,
            body: { event: "e", distinct_id: "u" },
          })
        ).status,
      ).toBe(401);
      expect(
        (
          await s.request("POST", "/flags/?v=2", {
            key: null,
            body: { token: project.apiToken, distinct_id: "u" },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await s.request("POST", "/ofrep/v1/evaluate/flags", {
            key: null,
            headers: { "x-api-key": secrets.xApiKey },
            body: { context: { targetingKey: "u" } },
          })
        ).status,
      ).toBe(401);

      // GraphQL: the header, the query string, and a failing document.
      const viewer = encodeURIComponent("{ viewer { user { email } } }");
      expect(
        (await s.request("POST", "/graphql", { body: { query: "{ viewer { user { email } } }" } })).status,
      ).toBe(200);
      expect(
        (await s.request("GET", `/graphql?query=${viewer}&personal_api_key=${s.key}`, { key: null })).status,
      ).toBe(200);
      expect(
        (await s.request("POST", "/graphql", { body: { query: "{ viewer {" } })).body.errors,
      ).toHaveLength(1);

      // Refused by Node's parser: headers over MAX_HEADER_BYTES, and a malformed header; the raw bytes
      // are in the error the server logs.
      const overflow = await rawRequest(
        Number(port),
        `GET ${flags}?personal_api_key=${secrets.rawPacket} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.key}\r\n` +
          `X-Filler: ${"b".repeat(5000)}\r\n\r\n`,
      );
      expect(overflow).toMatch(/^HTTP\/1\.1 431/);
      const malformed = await rawRequest(
        Number(port),
        `GET ${flags}?token=${secrets.rawPacket} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.key}\r\nBad Header\r\n\r\n`,
      );
      expect(malformed).toMatch(/^HTTP\/1\.1 400/);

      // A webhook: its secret in the answers of creation and rotation, then a signed delivery.
      const created = await s.request("POST", `/api/projects/${s.projectId}/webhooks/`, {
        body: { url: `http://127.0.0.1:${receiver().port}/hook`, kinds: ["feature_flag.created"] },
      });
      expect(created.status).toBe(201);
      const rotated = await s.request(
        "POST",
        `/api/projects/${s.projectId}/webhooks/${created.body.id}/rotate_secret/`,
        {
          body: {},
        },
      );
      expect(rotated.status).toBe(200);
      const webhookSecrets = [created.body.secret as string, rotated.body.secret as string];
      await createFlag(s, { key: "log-redaction" });
      await eventually(async () => (receiver().received.length > 0 ? true : undefined));
      // The job logs its completion after the receiver has answered.
      await eventually(async () =>
        s.logLines.some((line) => line.includes('"msg":"job completed"')) ? true : undefined,
      );

      const lines = s.logLines;
      // The capture saw the requests: the URLs are there, with the credentials' values replaced.
      expect(
        lines.some((line) => line.includes("local_evaluation?token=[Redacted]&personal_api_key=[Redacted]")),
      ).toBe(true);
      expect(lines.some((line) => line.includes('"msg":"client error"'))).toBe(true);
      expect(lines.some((line) => line.includes('"msg":"job completed"'))).toBe(true);
      for (const [name, secret] of Object.entries(secrets))
        expect(linesWith(lines, secret), name).toEqual([]);
      for (const secret of webhookSecrets) expect(linesWith(lines, secret), "webhook secret").toEqual([]);
    }, 30_000);
  },
  {
    logLevel: "trace",
    env: { MAX_HEADER_BYTES: "4096", WEBHOOK_ALLOW_LOOPBACK: "true", JOB_POLL_INTERVAL_MS: "100" },
  },
);

describe("the logger's layers", () => {
  /** The lines `log` writes through a logger at `trace`. */
  function captured(log: (logger: ReturnType<typeof createLogger>) => void): string {
    let text = "";
    const sink = new Writable({
      write(chunk, _encoding, done) {
        text += chunk;
        done();
      },
    });
    log(createLogger("trace", sink));
    return text;
  }

  it("redacts credential headers and fields where an object or one level down holds them", () => {
    const text = captured((logger) => {
      const headers = {
        authorization: "Bearer h-1",
        "proxy-authorization": "Basic h-2",
        cookie: "a=h-3",
        "set-cookie": ["b=h-4"],
        "x-api-key": "h-5",
      };
      logger.info({ headers, res: { headers }, req: { headers } }, "headers");
      logger.info(
        { personal_api_key: "f-1", body: { api_key: "f-2", token: "f-3" }, result: { secret: "f-4" } },
        "fields",
      );
      logger
        .child({ component: "jobs" })
        .warn({ err: Object.assign(new Error("boom"), { rawPacket: "p-1" }) });
    });
    for (const secret of ["h-1", "h-2", "h-3", "h-4", "h-5", "f-1", "f-2", "f-3", "f-4", "p-1"]) {
      expect(text, secret).not.toContain(secret);
    }
    expect(text).toContain("boom");
  });

  it("redacts keys and secrets by their shape in messages, errors and stacks", () => {
    const key = `phx_${randomBytes(16).toString("hex")}`;
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    const text = captured((logger) => {
      logger.error(
        { err: new Error(`Invalid call: { secure_value: "${key}", secret: "${secret}" }`) },
        "failed",
      );
      logger.info(`Bearer%20${encodeURIComponent(key)} and phc_${"a".repeat(10)}`);
    });
    expect(text).not.toContain(key);
    expect(text).not.toContain(secret.slice(6, 20));
    expect(text).not.toContain("phc_a");
    expect(text).toContain("[Redacted]");
  });

  it("keeps a URL's other parameters and masked keys as they are", () => {
    expect(redactUrl("/a/?search=x&Personal_Api_Key=k&token&api%5Fkey=v&limit=2")).toBe(
      "/a/?search=x&Personal_Api_Key=[Redacted]&token=[Redacted]&api%5Fkey=[Redacted]&limit=2",
    );
    expect(redactUrl("/a/%zz?%zz=1&secret=s")).toBe("/a/%zz?%zz=1&secret=[Redacted]");
    expect(redactUrl("/a/")).toBe("/a/");
    expect(captured((logger) => logger.info("key phx_...abcd"))).toContain("phx_...abcd");
  });
});
