/**
 * Generated input on every capture path (capture's SDK module, not a hand list), on PGlite and PostgreSQL,
 * as test/app/bad-input.rest.property.test.ts does for the REST door: random JSON payloads, events
 * with values of any type in every field capture reads, Unicode edge cases (NUL, lone surrogates)
 * in names, ids and properties, values nested far deeper than allowed, random bytes under every
 * encoding hint. Whatever comes in: never a 5xx, no error logged, every refusal PostHog's
 * `{type, code, detail, attr}` with the database unchanged, every success capture's
 * `{"status": "Ok"}` with the events stored storable (NUL and lone surrogates replaced).
 */
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { deeplyNestedJson, edgeString, jsonText, jsonValue, propertyRuns } from "../support/arbitraries.js";
import { projectToken, type SdkRequestOptions, sendToSdk } from "../support/capture.js";
import { dumpRows } from "../support/db-dump.js";
import { CAPTURE_ROUTES } from "../support/sdk-routes.js";
import { describeEachBackend } from "../support/server.js";

/** The fields capture reads in an event and a batch. */
const FIELDS = [
  "event",
  "distinct_id",
  "$distinct_id",
  "properties",
  "uuid",
  "timestamp",
  "offset",
  "$set",
  "$set_once",
  "$unset",
  "token",
  "api_key",
  "batch",
  "sent_at",
];
const HINTS = ["", "?compression=gzip-js", "?compression=lz64", "?compression=base64", "?beacon=1", "?_=1"];
const CONTENT_TYPES = [
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
];

describeEachBackend("capture paths under generated input", (server) => {
  let token: string;
  beforeAll(async () => {
    token = await projectToken(server());
  });

  /** Sends one request and checks the invariants of the module comment. */
  const check = async (path: string, options: SdkRequestOptions) => {
    const s = server();
    const logged = s.errorLogs.length;
    const before = await dumpRows(s.db);
    const response = await sendToSdk(s, path, options);
    const what = `${path}: ${response.status} ${response.text.slice(0, 300)}`;
    expect(s.errorLogs.slice(logged), `${what}: logged an error`).toEqual([]);
    expect(response.status, what).toBeLessThan(500);
    if (response.status >= 400) {
      expect(await dumpRows(s.db), `${what}: wrote to the database`).toEqual(before);
      expect(Object.keys(response.body ?? {}).sort(), what).toEqual(["attr", "code", "detail", "type"]);
    } else if (response.status === 200) {
      expect(response.body, what).toEqual({ status: "Ok" });
    }
  };

  const anyEvent = fc.dictionary(fc.constantFrom(...FIELDS), jsonValue(FIELDS), { minKeys: 1, maxKeys: 6 });
  const validEvent = fc.record({
    event: edgeString,
    distinct_id: fc.oneof(edgeString, fc.integer(), jsonValue([])),
    properties: fc.dictionary(edgeString, jsonValue(FIELDS), { maxKeys: 5 }),
  });

  for (const route of CAPTURE_ROUTES) {
    it(`${route.path}: any JSON payload, with or without the token`, async () => {
      await fc.assert(
        fc.asyncProperty(jsonValue(FIELDS), fc.boolean(), async (payload, withToken) => {
          const body =
            withToken && payload !== null && typeof payload === "object" && !Array.isArray(payload)
              ? { ...payload, api_key: token }
              : payload;
          await check(route.path, { json: body });
        }),
        propertyRuns(15),
      );
    });

    it(`${route.path}: events and batches with values of any type in capture's fields`, async () => {
      const payload = fc.oneof(
        anyEvent.map((event) => ({ ...event, api_key: token })),
        fc.array(anyEvent, { maxLength: 4 }).map((events) => ({ api_key: token, batch: events })),
        fc
          .array(anyEvent, { minLength: 1, maxLength: 4 })
          .map((events) => events.map((event) => ({ ...event, token }))),
      );
      await fc.assert(
        fc.asyncProperty(payload, async (body) => check(route.path, { json: body })),
        propertyRuns(20),
      );
    });

    it(`${route.path}: Unicode edge cases in names, ids and properties are stored storable`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(validEvent, { minLength: 1, maxLength: 3 }), async (events) => {
          await check(route.path, { json: { api_key: token, batch: events } });
        }),
        propertyRuns(15),
      );
    });

    it(`${route.path}: deep nesting, random bytes and any encoding hint`, async () => {
      const body = fc.oneof(
        deeplyNestedJson.map(
          (deep) =>
            `{"event":"deep","distinct_id":"u","api_key":"${token}","properties":{"a":${jsonText(deep)}}}`,
        ),
        fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
        fc.uint8Array({ maxLength: 200 }).map((bytes) => gzipSync(Buffer.from(bytes))),
        edgeString,
      );
      await fc.assert(
        fc.asyncProperty(
          body,
          fc.constantFrom(...HINTS),
          fc.constantFrom(...CONTENT_TYPES),
          async (raw, hint, type) => {
            await check(`${route.path}${hint}`, { raw, method: "POST", headers: { "content-type": type } });
          },
        ),
        propertyRuns(15),
      );
    });
  }
});
