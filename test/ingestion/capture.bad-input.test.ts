/**
 * Bad capture requests (issue 7 §1, "How it is shown"), on PGlite and PostgreSQL: each answers
 * capture's status (rust/capture/src/api.rs `CaptureError` → 400, 401 or 413) in PostHog's JSON
 * error body with capture's message, and stores NOTHING of the request (the database is dumped
 * before and after). Limits are made small here (10 kB events, 20 kB batches) so oversize is cheap;
 * they hold before and after decompression in every encoding (gzip however it is said, base64, a
 * GET's `data`, lz64 in a body or a form's `data`, base64 inside gzip), and a decompression bomb is refused
 * without being inflated past the limit.
 */
import { deflateSync, gzipSync } from "node:zlib";
import lzString from "lz-string";
import { beforeAll, expect, it } from "vitest";
import { projectToken, type SdkRequestOptions, sendToSdk } from "../support/capture.js";
import { eventOfBytes, lz64Bomb } from "../support/compression.js";
import { expectNothingWritten } from "../support/db-dump.js";
import { describeEachBackend } from "../support/server.js";

const EVENT_LIMIT = 10_000;
const BATCH_LIMIT = 20_000;

describeEachBackend(
  "capture refuses bad input and stores nothing",
  (server) => {
    let token: string;
    beforeAll(async () => {
      token = await projectToken(server());
    });
    const refuse = async (
      label: string,
      path: string,
      options: SdkRequestOptions,
      status: number,
      detail: string | RegExp,
    ) => {
      const answer = await expectNothingWritten(server().db, label, () => sendToSdk(server(), path, options));
      expect(answer.status, `${label}: ${answer.text}`).toBe(status);
      expect(Object.keys(answer.body ?? {}).sort(), label).toEqual(["attr", "code", "detail", "type"]);
      if (typeof detail === "string") expect(answer.body.detail, label).toBe(detail);
      else expect(answer.body.detail, label).toMatch(detail);
    };
    const good = () => ({ event: "fine", distinct_id: "u", properties: { token } });

    it("answers 405 to methods capture does not take", async () => {
      for (const method of ["PUT", "PATCH", "DELETE"]) {
        const answer = await expectNothingWritten(server().db, method, () =>
          fetch(`${server().baseUrl}/e/`, { method, headers: { origin: "https://shop.example" } }),
        );
        expect(answer.status, method).toBe(405);
        expect(answer.headers.get("access-control-allow-origin")).toBe("https://shop.example");
        expect(await answer.json()).toMatchObject({
          code: "method_not_allowed",
          detail: `Method "${method}" not allowed.`,
        });
      }
    });

    it("refuses malformed JSON, an empty body and a payload of the wrong shape", async () => {
      await refuse(
        "malformed",
        "/e/",
        { raw: '{"event": "x",', headers: { "content-type": "application/json" } },
        400,
        /^failed to parse request: /,
      );
      await refuse(
        "empty",
        "/e/",
        { raw: "", method: "POST" },
        400,
        "failed to decode request: request missing data payload",
      );
      await refuse(
        "number",
        "/e/",
        { raw: "12", headers: { "content-type": "application/json" } },
        400,
        /^failed to parse request: /,
      );
    });

    it("refuses a missing token (401), an unknown token (401) and tokens that disagree (401)", async () => {
      await refuse(
        "no token",
        "/e/",
        { json: { event: "x", distinct_id: "u" } },
        401,
        "event submitted without an api_key",
      );
      await refuse(
        "unknown token",
        "/e/",
        { json: { event: "x", distinct_id: "u", api_key: "phc_nosuchproject" } },
        401,
        "Project API key invalid. You can find your project API key in PostHog project settings.",
      );
      await refuse(
        "two tokens",
        "/e/",
        { json: [good(), { event: "x", distinct_id: "u", properties: { token: "phc_other" } }] },
        401,
        "batch submitted with inconsistent api_key values",
      );
    });

    it("refuses events without distinct_id or name, with non-object properties or a bad uuid", async () => {
      await refuse(
        "no distinct id",
        "/e/",
        { json: { event: "x", properties: { token } } },
        400,
        "event submitted without a distinct_id",
      );
      await refuse(
        "empty distinct id",
        "/e/",
        { json: { event: "x", distinct_id: "", properties: { token } } },
        400,
        "event submitted without a distinct_id",
      );
      await refuse(
        "no name",
        "/e/",
        { json: { distinct_id: "u", properties: { token } } },
        400,
        "failed to parse request: missing field `event`",
      );
      await refuse(
        "empty name",
        "/e/",
        { json: { event: "", distinct_id: "u", properties: { token } } },
        400,
        "event submitted with an empty event name",
      );
      await refuse(
        "list properties",
        "/e/",
        { json: { event: "x", distinct_id: "u", token, properties: [1] } },
        400,
        /`properties` must be an object/,
      );
      await refuse("bad uuid", "/e/", { json: { ...good(), uuid: "not-a-uuid" } }, 400, /not a UUID/);
      await refuse(
        "text offset",
        "/e/",
        { json: { ...good(), offset: "soon" } },
        400,
        /`offset` must be an integer/,
      );
      await refuse(
        "empty batch",
        "/batch/",
        { json: { api_key: token, batch: [] } },
        400,
        "request holds no event",
      );
    });

    it("refuses the whole batch when one event is bad, storing none of the good ones", async () => {
      await refuse(
        "one bad event",
        "/batch/",
        { json: { api_key: token, batch: [good(), good(), { event: "bad" }, good()] } },
        400,
        "event submitted without a distinct_id",
      );
    });

    it("refuses corrupt gzip and lz64 data", async () => {
      const corrupt = Buffer.concat([
        gzipSync(JSON.stringify(good())).subarray(0, 12),
        Buffer.from("garbage"),
      ]);
      await refuse(
        "corrupt gzip",
        "/e/?compression=gzip-js",
        { raw: corrupt },
        400,
        "failed to decode request: invalid gzip data",
      );
      await refuse(
        "corrupt lz64",
        "/e/?compression=lz64",
        { raw: "data=%%%%", headers: { "content-type": "application/x-www-form-urlencoded" } },
        400,
        /^failed to decode request: /,
      );
      const gzipped = gzipSync(JSON.stringify(good()));
      await refuse(
        "gzip cut short",
        "/e/",
        { raw: gzipped.subarray(0, gzipped.length - 6), headers: { "content-encoding": "gzip" } },
        400,
        "failed to decode request: invalid gzip data",
      );
      await refuse(
        "deflate, which capture does not take",
        "/e/",
        { raw: deflateSync(JSON.stringify(good())), headers: { "content-encoding": "deflate" } },
        400,
        /^failed to (decode|parse) request: /,
      );
      await refuse(
        "lz64 that is not lz-string's",
        "/e/?compression=lz64",
        { raw: "5AAy" },
        400,
        /^failed to decode request: /,
      );
      await refuse(
        "form without data",
        "/e/",
        { raw: "compression=gzip", headers: { "content-type": "application/x-www-form-urlencoded" } },
        400,
        "failed to decode request: missing data field",
      );
    });

    it("answers 413 for a body over the path's limit, and for a payload that only inflates past it", async () => {
      const batch = (n: number) => ({
        api_key: token,
        batch: Array.from({ length: n }, (_, i) => ({
          event: "big",
          distinct_id: `u${i}`,
          properties: { pad: "x".repeat(200) },
        })),
      });
      await refuse(
        "oversize event body",
        "/e/",
        { json: batch(60) },
        413,
        `Request body is larger than the limit of ${EVENT_LIMIT} bytes.`,
      );
      await refuse(
        "oversize batch",
        "/batch/",
        { json: batch(120) },
        413,
        `Request body is larger than the limit of ${BATCH_LIMIT} bytes.`,
      );
      const bomb = gzipSync(JSON.stringify(batch(500)));
      expect(bomb.length).toBeLessThan(EVENT_LIMIT);
      await refuse(
        "gzip bomb",
        "/e/",
        { raw: bomb, headers: { "content-encoding": "gzip" } },
        413,
        `Request body is larger than the limit of ${EVENT_LIMIT} bytes.`,
      );
      // The batch path takes what the event paths refuse.
      const accepted = await sendToSdk(server(), "/batch/", { json: batch(60) });
      expect(accepted.status, accepted.text).toBe(200);
    });

    /** Ways an SDK sends a JSON text: a label, the path's query and the request's body. */
    const encodings: Array<[string, (text: string) => { query: string; options: SdkRequestOptions }]> = [
      [
        "plain",
        (text) => ({ query: "", options: { raw: text, headers: { "content-type": "application/json" } } }),
      ],
      [
        "Content-Encoding: gzip",
        (text) => ({ query: "", options: { raw: gzipSync(text), headers: { "content-encoding": "gzip" } } }),
      ],
      [
        "?compression=gzip-js",
        (text) => ({ query: "?compression=gzip-js", options: { raw: gzipSync(text) } }),
      ],
      ["gzip unannounced", (text) => ({ query: "", options: { raw: gzipSync(text) } })],
      ["base64 of gzip", (text) => ({ query: "", options: { raw: gzipSync(text).toString("base64") } })],
      ["lz64", (text) => ({ query: "?compression=lz64", options: { raw: lzString.compressToBase64(text) } })],
      [
        "form data= of lz64",
        (text) => ({
          query: "",
          options: {
            raw: `compression=lz64&data=${encodeURIComponent(lzString.compressToBase64(text))}`,
            headers: { "content-type": "application/x-www-form-urlencoded" },
          },
        }),
      ],
      [
        "GET ?data= of gzip",
        (text) => ({
          query: `?compression=gzip-js&data=${encodeURIComponent(gzipSync(text).toString("base64"))}`,
          options: { method: "GET" },
        }),
      ],
      [
        "gzip of base64 of gzip",
        (text) => ({
          query: "",
          options: {
            raw: gzipSync(gzipSync(text).toString("base64")),
            headers: { "content-encoding": "gzip" },
          },
        }),
      ],
    ];

    it("serves a payload decoding to exactly the path's limit and refuses one byte more, in every encoding", async () => {
      for (const [path, limit] of [
        ["/e/", EVENT_LIMIT],
        ["/batch/", BATCH_LIMIT],
      ] as const) {
        for (const [label, encode] of encodings) {
          const at = encode(eventOfBytes(token, limit));
          const served = await sendToSdk(server(), `${path}${at.query}`, at.options);
          expect(served.status, `${path} ${label} at the limit: ${served.text}`).toBe(200);
          const past = encode(eventOfBytes(token, limit + 1));
          await refuse(
            `${path} ${label} one past`,
            `${path}${past.query}`,
            past.options,
            413,
            `Request body is larger than the limit of ${limit} bytes.`,
          );
        }
      }
    });

    it("refuses decompression bombs in every encoding without inflating them past the limit", async () => {
      // About 5 MB of JSON from about 5 kB of gzip: under the limit as sent, 500 times over it inflated.
      const inflated = eventOfBytes(token, 5_000_000);
      for (const [path, limit] of [
        ["/e/", EVENT_LIMIT],
        ["/batch/", BATCH_LIMIT],
      ] as const) {
        for (const [label, encode] of encodings) {
          if (label === "plain" || label.includes("lz64")) continue;
          const bomb = encode(inflated);
          await refuse(
            `${path} ${label} bomb`,
            `${path}${bomb.query}`,
            bomb.options,
            413,
            `Request body is larger than the limit of ${limit} bytes.`,
          );
        }
        // A GET's `data` is bounded as sent too, though the request line may be longer (64 kB).
        const query = Buffer.from(eventOfBytes(token, limit - 100)).toString("base64");
        await refuse(
          `${path} GET ?data= over the limit as sent`,
          `${path}?data=${encodeURIComponent(query)}`,
          { method: "GET" },
          413,
          `Request body is larger than the limit of ${limit} bytes.`,
        );
        // 9.5 kB of lz64 standing for 12.5 million characters (lz-string would build them all).
        const lz64 = lz64Bomb(5_000);
        expect(lz64.length).toBeLessThan(EVENT_LIMIT);
        await refuse(
          `${path} lz64 bomb`,
          `${path}?compression=lz64`,
          { raw: lz64 },
          413,
          `Request body is larger than the limit of ${limit} bytes.`,
        );
      }
    });
  },
  {
    env: {
      CAPTURE_BODY_LIMIT_BYTES: String(EVENT_LIMIT),
      CAPTURE_BATCH_BODY_LIMIT_BYTES: String(BATCH_LIMIT),
    },
  },
);
