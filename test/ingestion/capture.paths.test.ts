/**
 * Capture through HTTP on every path and in every body shape PostHog's SDKs use (issue 7 §1), on
 * PGlite and PostgreSQL: plain JSON, `Content-Encoding: gzip`, `?compression=gzip-js`, base64,
 * lz64, the form `data=` body, `sendBeacon`'s text/plain, GET `?data=`; single events, lists and
 * batches; CORS; idempotent resend; clock-skew correction; what the answer is.
 */
import { gzipSync } from "node:zlib";
import lzString from "lz-string";
import { beforeAll, expect, it } from "vitest";
import { generateProjectApiToken } from "../../src/core/auth/api-keys.js";
import { projectToken, sendToSdk, storedEvents } from "../support/capture.js";
import { describeEachBackend } from "../support/server.js";

const PATHS = ["/e/", "/i/v0/e/", "/capture/", "/track/", "/engage/", "/batch/"];

describeEachBackend("capture paths and body shapes", (server) => {
  let token: string;
  beforeAll(async () => {
    token = await projectToken(server());
  });
  const event = (name: string, extra: Record<string, unknown> = {}) => ({
    event: name,
    distinct_id: "user-1",
    properties: { token, $current_url: "https://example.com/", ...extra },
  });
  const countOf = async (name: string) =>
    (await storedEvents(server())).filter((e) => e.event === name).length;

  it("stores a single JSON event on every path, with and without the trailing slash", async () => {
    for (const path of PATHS) {
      for (const url of [path, path.slice(0, -1)]) {
        const name = `single ${url}`;
        const answer = await sendToSdk(server(), url, { json: event(name) });
        expect(answer.status, `${url}: ${answer.text}`).toBe(200);
        expect(answer.body).toEqual({ status: "Ok" });
        expect(await countOf(name), url).toBe(1);
      }
    }
  });

  it("stores a list of events and a {api_key, batch, sent_at} batch", async () => {
    const list = await sendToSdk(server(), "/e/", { json: [event("list a"), event("list b")] });
    expect(list.status).toBe(200);
    const batch = await sendToSdk(server(), "/batch/", {
      json: {
        api_key: token,
        sent_at: new Date().toISOString(),
        batch: [
          { event: "batch a", distinct_id: "u", properties: {} },
          { event: "batch b", distinct_id: "u" },
        ],
      },
    });
    expect(batch.status, batch.text).toBe(200);
    for (const name of ["list a", "list b", "batch a", "batch b"]) expect(await countOf(name), name).toBe(1);
  });

  it("decodes Content-Encoding: gzip, ?compression=gzip-js, base64, lz64, form data= and text/plain", async () => {
    const json = (name: string) => JSON.stringify([event(name)]);
    const shapes: Array<[string, string, Parameters<typeof sendToSdk>[2]]> = [
      [
        "gzip header",
        "/batch/",
        {
          raw: gzipSync(json("gzip header")),
          headers: { "content-encoding": "gzip", "content-type": "application/json" },
        },
      ],
      [
        "gzip-js",
        "/e/?compression=gzip-js",
        { raw: gzipSync(json("gzip-js")), headers: { "content-type": "text/plain" } },
      ],
      ["base64", "/e/?compression=base64", { raw: Buffer.from(json("base64")).toString("base64") }],
      [
        "lz64",
        "/e/?compression=lz64",
        {
          raw: `data=${encodeURIComponent(lzString.compressToBase64(json("lz64")))}&compression=lz64`,
          headers: { "content-type": "application/x-www-form-urlencoded" },
        },
      ],
      [
        "lz64 body",
        "/e/?compression=lz64",
        { raw: lzString.compressToBase64(json("lz64 body")), headers: { "content-type": "text/plain" } },
      ],
      [
        "form base64",
        "/e/",
        {
          raw: `data=${Buffer.from(json("form base64")).toString("base64")}`,
          headers: { "content-type": "application/x-www-form-urlencoded" },
        },
      ],
      [
        "form json",
        "/track/",
        {
          raw: `data=${encodeURIComponent(json("form json"))}`,
          headers: { "content-type": "application/x-www-form-urlencoded" },
        },
      ],
      ["beacon", "/e/?beacon=1", { raw: json("beacon"), headers: { "content-type": "text/plain" } }],
      ["no type", "/capture/", { raw: json("no type") }],
    ];
    for (const [name, path, options] of shapes) {
      const answer = await sendToSdk(server(), path, options);
      expect(answer.status, `${name}: ${answer.text}`).toBe(name === "beacon" ? 204 : 200);
      expect(await countOf(name), name).toBe(1);
    }
  });

  it("takes GET ?data= (JSON and base64) as old clients send it", async () => {
    const data = JSON.stringify(event("get json"));
    const plain = await sendToSdk(server(), `/e/?data=${encodeURIComponent(data)}`);
    expect(plain.status, plain.text).toBe(200);
    const base64 = Buffer.from(JSON.stringify(event("get base64"))).toString("base64");
    const encoded = await sendToSdk(server(), `/capture/?data=${encodeURIComponent(base64)}`);
    expect(encoded.status, encoded.text).toBe(200);
    expect(await countOf("get json")).toBe(1);
    expect(await countOf("get base64")).toBe(1);
  });

  it("names the event $identify on /engage/ when it has no name", async () => {
    const answer = await sendToSdk(server(), "/engage/", {
      json: { $token: token, $distinct_id: "engaged", $set: { plan: "pro" } },
    });
    expect(answer.status, answer.text).toBe(200);
    const stored = (await storedEvents(server())).find((e) => e.distinctId === "engaged");
    expect(stored?.event).toBe("$identify");
  });

  it("stores NUL and lone surrogates as U+FFFD, and cuts distinct ids to 200 characters", async () => {
    const answer = await sendToSdk(server(), "/e/", {
      raw: `{"event":"odd\\u0000text","distinct_id":"${"d".repeat(250)}","token":"${token}","properties":{"k\\ud800":"v\\u0000"}}`,
      headers: { "content-type": "application/json" },
    });
    expect(answer.status, answer.text).toBe(200);
    const stored = (await storedEvents(server())).find((e) => e.event === "odd\ufffdtext");
    expect(stored?.distinctId).toBe("d".repeat(200));
    expect(stored?.properties).toMatchObject({ "k\ufffd": "v\ufffd" });
  });

  it("accepts but does not store an $identify sent with $process_person_profile: false", async () => {
    const answer = await sendToSdk(server(), "/e/", {
      json: [
        {
          event: "$identify",
          distinct_id: "personless",
          properties: { token, $process_person_profile: false },
        },
        {
          event: "personless view",
          distinct_id: "personless",
          properties: { token, $process_person_profile: false },
        },
      ],
    });
    expect(answer.status, answer.text).toBe(200);
    const stored = (await storedEvents(server())).filter((e) => e.distinctId === "personless");
    expect(stored.map((e) => e.event)).toEqual(["personless view"]);
  });

  it("stores a resent uuid once", async () => {
    const uuid = "0190b2d4-4c4e-7c4e-8d7e-9a1b2c3d4e5f";
    for (let i = 0; i < 2; i++) {
      const answer = await sendToSdk(server(), "/e/", { json: { ...event("resent"), uuid } });
      expect(answer.status).toBe(200);
    }
    const rows = (await storedEvents(server())).filter((e) => e.uuid === uuid);
    expect(rows).toHaveLength(1);
  });

  it("keeps the client's uuid and gives others a UUIDv7", async () => {
    await sendToSdk(server(), "/e/", { json: event("v7") });
    const [stored] = (await storedEvents(server())).filter((e) => e.event === "v7");
    expect(stored?.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("corrects the client's clock skew with sent_at, and takes offset", async () => {
    // The client's clock is 2 hours ahead: its timestamp is 10 s before its sent_at.
    const clientNow = Date.now() + 2 * 3600 * 1000;
    const before = Date.now();
    const answer = await sendToSdk(server(), "/batch/", {
      json: {
        api_key: token,
        sent_at: new Date(clientNow).toISOString(),
        batch: [
          { event: "skewed", distinct_id: "u", timestamp: new Date(clientNow - 10_000).toISOString() },
          { event: "offset", distinct_id: "u", offset: 60_000 },
          {
            event: "ignored skew",
            distinct_id: "u",
            timestamp: "2024-05-01T10:00:00Z",
            properties: { $ignore_sent_at: true },
          },
        ],
      },
    });
    const after = Date.now();
    expect(answer.status, answer.text).toBe(200);
    const stored = await storedEvents(server());
    const at = (name: string) => stored.find((e) => e.event === name)!.timestamp.getTime();
    expect(at("skewed")).toBeGreaterThanOrEqual(before - 10_000 - 5);
    expect(at("skewed")).toBeLessThanOrEqual(after - 10_000 + 5);
    expect(at("offset")).toBeGreaterThanOrEqual(before - 60_000 - 5);
    expect(at("offset")).toBeLessThanOrEqual(after - 60_000 + 5);
    expect(at("ignored skew")).toBe(Date.parse("2024-05-01T10:00:00Z"));
  });

  it("answers CORS: preflight and the origin mirrored with credentials", async () => {
    const preflight = await sendToSdk(server(), "/e/", {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, x-custom",
      },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(preflight.headers.get("access-control-allow-credentials")).toBe("true");
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET,POST,OPTIONS");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("content-type, x-custom");
    const sent = await sendToSdk(server(), "/e/", {
      json: event("cors"),
      headers: { origin: "https://shop.example" },
    });
    expect(sent.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    const refused = await sendToSdk(server(), "/e/", {
      json: { event: "x", distinct_id: "u", token: "phc_unknown" },
      headers: { origin: "https://shop.example" },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("https://shop.example");
  });

  it("answers 401, storing nothing, once the project of a token it has seen is deleted", async () => {
    const { organizationId } = await server().db.project.findUniqueOrThrow({
      where: { id: server().projectId },
    });
    const doomed = await server().db.project.create({
      data: { organizationId, name: "to be deleted", apiToken: generateProjectApiToken() },
    });
    const send = () =>
      sendToSdk(server(), "/batch/", {
        json: { api_key: doomed.apiToken, batch: [{ event: "before", distinct_id: "gone-user" }] },
      });
    expect((await send()).status).toBe(200);
    await server().db.project.delete({ where: { id: doomed.id } });
    const refused = await send();
    expect(refused.status, refused.text).toBe(401);
    expect(refused.body).toMatchObject({ type: "authentication_error", code: "authentication_failed" });
    expect(await server().db.event.count({ where: { projectId: doomed.id } })).toBe(0);
  });
});
