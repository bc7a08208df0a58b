/**
 * Generated input on every flag path of the SDK door (the flag SDK module's routes, not a hand list),
 * on PGlite and PostgreSQL, as test/ingestion/capture.property.test.ts does for capture: random JSON
 * payloads, bodies with values of any type in every field `/flags` reads, Unicode edge cases, random
 * bytes under every encoding hint. Whatever comes in: never a 5xx, no error logged, nothing written
 * (no payload here carries `$anon_distinct_id`'s person), every refusal PostHog's
 * `{type, code, detail, attr}`, every success an answer with its `requestId`.
 */
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { edgeString, jsonValue, propertyRuns } from "../support/arbitraries.js";
import { projectToken, type SdkRequestOptions, sendToSdk } from "../support/capture.js";
import { dumpRows } from "../support/db-dump.js";
import { createFlag } from "../support/flags.js";
import { FLAG_ROUTES } from "../support/sdk-routes.js";
import { describeEachBackend } from "../support/server.js";

/** The fields `/flags` reads (flag_request.rs `FlagRequest` and its aliases). */
const FIELDS = [
  "distinct_id",
  "$distinct_id",
  "groups",
  "$groups",
  "person_properties",
  "$properties",
  "group_properties",
  "$device_id",
  "flag_keys",
  "flag_keys_to_evaluate",
  "disable_flags",
  "evaluation_contexts",
  "evaluation_runtime",
];
const HINTS = ["", "?v=2", "?v=1&config=true", "?compression=gzip-js", "?compression=base64", "?v=x"];

describeEachBackend("flag paths under generated input", (server) => {
  let token: string;
  beforeAll(async () => {
    token = await projectToken(server());
    await createFlag(server(), {
      key: "generated",
      filters: {
        groups: [{ properties: [{ key: "plan", value: "pro", type: "person" }], rollout_percentage: 50 }],
        multivariate: { variants: [{ key: "a", rollout_percentage: 100 }] },
      },
    });
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
    expect(await dumpRows(s.db), `${what}: wrote to the database`).toEqual(before);
    if (response.status >= 400) {
      expect(Object.keys(response.body ?? {}).sort(), what).toEqual(["attr", "code", "detail", "type"]);
    } else {
      expect(response.status, what).toBe(200);
      expect(typeof response.body.requestId, what).toBe("string");
    }
  };

  const anyBody = fc.dictionary(fc.constantFrom(...FIELDS), jsonValue(FIELDS), { minKeys: 1, maxKeys: 6 });

  for (const route of FLAG_ROUTES.filter((r) => r.tokenIn !== "path")) {
    it(`${route.path}: any JSON payload, with or without the token`, async () => {
      await fc.assert(
        fc.asyncProperty(jsonValue(FIELDS), fc.boolean(), async (payload, withToken) => {
          const body =
            withToken && payload !== null && typeof payload === "object" && !Array.isArray(payload)
              ? { ...payload, token }
              : payload;
          await check(route.path, { json: body });
        }),
        propertyRuns(15),
      );
    });

    it(`${route.path}: values of any type in the fields it reads, and Unicode edge cases`, async () => {
      const body = fc.oneof(
        anyBody.map((fields) => ({ ...fields, token })),
        fc.record({
          token: fc.constant(token),
          distinct_id: fc.oneof(edgeString, fc.integer()),
          groups: fc.dictionary(edgeString, edgeString, { maxKeys: 2 }),
          person_properties: fc.dictionary(edgeString, jsonValue([]), { maxKeys: 3 }),
        }),
      );
      await fc.assert(
        fc.asyncProperty(body, fc.constantFrom(...HINTS), async (json, hint) =>
          check(`${route.path}${hint}`, { json }),
        ),
        propertyRuns(20),
      );
    });

    it(`${route.path}: random bytes under any encoding hint`, async () => {
      const raw = fc.oneof(
        fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
        fc.uint8Array({ maxLength: 200 }).map((bytes) => gzipSync(Buffer.from(bytes))),
        edgeString,
      );
      await fc.assert(
        fc.asyncProperty(raw, fc.constantFrom(...HINTS), async (bytes, hint) =>
          check(`${route.path}${hint}`, {
            raw: bytes,
            method: "POST",
            headers: { "content-type": "text/plain" },
          }),
        ),
        propertyRuns(15),
      );
    });
  }
});
