/**
 * OpenFeature's Remote Evaluation Protocol on the SDK door (`POST /ofrep/v1/evaluate/flags/{key}`,
 * bulk `POST /ofrep/v1/evaluate/flags`) through HTTP, on PGlite and PostgreSQL, with raw requests as
 * OFREP providers send them: values, variants, reasons and metadata per kind of flag, the context as
 * distinct id, person properties and groups, the bulk ETag and 304 (and the ETag moving when a flag
 * or the subject's data changes), the token in `Authorization` or `X-API-Key`, CORS, OFREP's error
 * shapes, the statements per request, and what a failure to read stored data answers.
 * test/e2e/openfeature.test.ts runs OpenFeature's own clients against the same paths.
 */
import { beforeAll, expect, it } from "vitest";
import { projectToken, sendToSdk } from "../../support/capture.js";
import {
  createEvaluationFixtures,
  EVALUATED_ID,
  type EvaluationFixtures,
  FIXTURE_VALUES,
} from "../../support/flag-evaluation.js";
import { flagsPath } from "../../support/flags.js";
import { insertPerson } from "../../support/people.js";
import { describeEachBackend, statementsOf } from "../../support/server.js";

const BULK = "/ofrep/v1/evaluate/flags";
const ONE = (key: string) => `/ofrep/v1/evaluate/flags/${key}`;

describeEachBackend("OpenFeature remote evaluation (OFREP)", (server) => {
  let token: string;
  let fixtures: EvaluationFixtures;
  beforeAll(async () => {
    token = await projectToken(server());
    fixtures = await createEvaluationFixtures(server());
  });

  /** An OFREP request: `{context}` with the token as a Bearer unless `headers` say otherwise. */
  const ofrep = (path: string, context: unknown, headers: Record<string, string> = {}) =>
    sendToSdk(server(), path, {
      json: context === undefined ? {} : { context },
      headers: { authorization: `Bearer ${token}`, ...headers },
    });
  const subject = (extra: Record<string, unknown> = {}) => ({
    targetingKey: EVALUATED_ID,
    groups: { company: "acme" },
    ...extra,
  });

  it("evaluates one flag: PostHog's value, the variant, OFREP's reason and PostHog's terms in metadata", async () => {
    // key, OFREP reason, PostHog reason, condition index, payload (the value is FIXTURE_VALUES').
    const cases: Array<[string, string, string, number | null, string | null]> = [
      ["on-for-all", "STATIC", "condition_match", 0, '{"a":1}'],
      ["new-checkout", "SPLIT", "condition_match", 0, '"c"'],
      ["override-variant", "STATIC", "condition_match", 0, null],
      ["pro-only", "TARGETING_MATCH", "condition_match", 0, null],
      ["off-for-all", "SPLIT", "out_of_rollout_bound", 0, null],
      ["vip-flag", "TARGETING_MATCH", "condition_match", 0, null],
      ["company-flag", "TARGETING_MATCH", "condition_match", 0, null],
      ["inactive-flag", "DISABLED", "flag_disabled", null, null],
    ];
    for (const [key, reason, posthogReason, conditionIndex, payload] of cases) {
      const value = FIXTURE_VALUES[key]!;
      const answer = await ofrep(ONE(key), subject());
      expect(answer.status, `${key}: ${answer.text}`).toBe(200);
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
      expect(answer.body, key).toStrictEqual({
        key,
        value,
        reason,
        ...(typeof value === "string" ? { variant: value } : {}),
        metadata: {
          flagId: fixtures.flags[key],
          version: 1,
          reason: posthogReason,
          ...(conditionIndex === null ? {} : { conditionIndex }),
          ...(payload === null ? {} : { payload }),
        },
      });
    }
  });

  it("reads the context: other attributes are person properties that win, groups name the subject's groups", async () => {
    const stranger = { targetingKey: "someone-new" };
    expect((await ofrep(ONE("pro-only"), stranger)).body).toMatchObject({
      value: false,
      reason: "DEFAULT",
      metadata: { reason: "no_condition_match", conditionIndex: 0 },
    });
    expect((await ofrep(ONE("pro-only"), { ...stranger, plan: "pro" })).body).toMatchObject({
      value: true,
      reason: "TARGETING_MATCH",
    });
    // The context wins over the stored `plan: pro`.
    expect((await ofrep(ONE("pro-only"), subject({ plan: "free" }))).body.value).toBe(false);
    // Without its group, a group flag is PostHog's no_group_type: OFREP's DEFAULT.
    expect((await ofrep(ONE("company-flag"), { targetingKey: EVALUATED_ID })).body).toMatchObject({
      value: false,
      reason: "DEFAULT",
      metadata: { reason: "no_group_type" },
    });
    const overridden = await ofrep(
      ONE("company-flag"),
      subject({ groupProperties: { company: { tier: "free" } } }),
    );
    expect(overridden.body).toMatchObject({ value: false, metadata: { reason: "no_condition_match" } });
  });

  it("evaluates every flag in bulk, inactive ones DISABLED, with an ETag; If-None-Match gets 304", async () => {
    const answer = await ofrep(BULK, subject());
    expect(answer.status, answer.text).toBe(200);
    const byKey = Object.fromEntries(
      answer.body.flags.map((flag: { key: string; value: unknown }) => [flag.key, flag.value]),
    );
    expect(byKey).toEqual(FIXTURE_VALUES);
    const single = await ofrep(ONE("new-checkout"), subject());
    expect(answer.body.flags.find((flag: { key: string }) => flag.key === "new-checkout")).toEqual(
      single.body,
    );
    const etag = answer.headers.get("etag");
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);

    const again = await ofrep(BULK, subject(), { "if-none-match": etag! });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    // A list naming it matches too; another tag does not.
    expect((await ofrep(BULK, subject(), { "if-none-match": `W/"other", ${etag}` })).status).toBe(304);
    expect((await ofrep(BULK, subject(), { "if-none-match": 'W/"other"' })).status).toBe(200);
  });

  it("moves the bulk ETag when the subject's data or a flag changes, and only then", async () => {
    const s = server();
    await insertPerson(s.db, s.projectId, { distinctIds: ["etag-user"], properties: { plan: "free" } });
    const context = { targetingKey: "etag-user" };
    const first = (await ofrep(BULK, context)).headers.get("etag");
    expect((await ofrep(BULK, context)).headers.get("etag")).toBe(first);
    // The context changes a value.
    const withPlan = (await ofrep(BULK, { ...context, plan: "pro" })).headers.get("etag");
    expect(withPlan).not.toBe(first);
    // The stored person changes a value.
    await s.db.person.updateMany({
      where: { projectId: s.projectId, distinctIds: { some: { distinctId: "etag-user" } } },
      data: { properties: { plan: "pro" } },
    });
    const stored = (await ofrep(BULK, context)).headers.get("etag");
    expect(stored).not.toBe(first);
    expect(stored).toBe(withPlan);
    // A flag edited (its payload): a new ETag, and the old one no longer gets 304.
    const patched = await s.request("PATCH", flagsPath(s, `${fixtures.flags["on-for-all"]}/`), {
      body: { filters: { groups: [{ rollout_percentage: 100 }], payloads: { true: '{"a":2}' } } },
    });
    expect(patched.status, patched.text).toBe(200);
    const edited = await ofrep(BULK, context, { "if-none-match": stored! });
    expect(edited.status).toBe(200);
    expect(edited.headers.get("etag")).not.toBe(stored);
    expect(
      edited.body.flags.find((flag: { key: string }) => flag.key === "on-for-all").metadata,
    ).toMatchObject({
      payload: '{"a":2}',
      version: 2,
    });
  });

  it("costs one statement for a subject not seen yet, and none once warm (the definitions' revision and the subject come from caches the change feed keeps)", async () => {
    await ofrep(BULK, subject());
    expect(statementsOf(await ofrep(BULK, subject({ targetingKey: "ofrep-not-seen-yet" })))).toBe(1);
    expect(statementsOf(await ofrep(BULK, subject()))).toBe(0);
    expect(statementsOf(await ofrep(ONE("pro-only"), subject()))).toBe(0);
  });

  it("answers FLAG_NOT_FOUND (404) for a key the project has no flag under", async () => {
    const answer = await ofrep(ONE("no-such-flag"), subject());
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({
      key: "no-such-flag",
      errorCode: "FLAG_NOT_FOUND",
      errorDetails: 'Flag "no-such-flag" was not found',
    });
  });

  it("refuses a context without targetingKey, a malformed context and a body that is not JSON (400)", async () => {
    const missing = { errorCode: "TARGETING_KEY_MISSING", errorDetails: expect.any(String) };
    expect(await ofrep(ONE("pro-only"), undefined)).toMatchObject({
      status: 400,
      body: { key: "pro-only", ...missing },
    });
    expect(await ofrep(BULK, { plan: "pro" })).toMatchObject({ status: 400, body: missing });
    expect(await ofrep(BULK, { targetingKey: "" })).toMatchObject({ status: 400, body: missing });
    const empty = await sendToSdk(server(), BULK, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(empty).toMatchObject({ status: 400, body: missing });
    expect((await ofrep(BULK, undefined)).body).not.toHaveProperty("key");

    for (const context of [
      "u_42",
      [EVALUATED_ID],
      { targetingKey: 42 },
      { targetingKey: EVALUATED_ID, groups: "acme" },
      { targetingKey: EVALUATED_ID, groups: { company: { key: "acme" } } },
      { targetingKey: EVALUATED_ID, groupProperties: { company: 1 } },
      { targetingKey: EVALUATED_ID, note: "nul\u0000" },
    ]) {
      const answer = await ofrep(ONE("pro-only"), context);
      expect(answer.status, JSON.stringify(context)).toBe(400);
      expect(answer.body).toMatchObject({ key: "pro-only", errorCode: "INVALID_CONTEXT" });
    }
    const groups = await ofrep(BULK, { targetingKey: EVALUATED_ID, groups: "acme" });
    expect(groups.body.errorDetails).toMatch(/^context\.groups: /);

    const notJson = await sendToSdk(server(), ONE("pro-only"), {
      raw: "{context:",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ key: "pro-only", errorCode: "PARSE_ERROR" });
  });

  it("takes the project token as a Bearer or in X-API-Key; none, an unknown one or a personal key is a 401", async () => {
    const body = { context: subject() };
    const send = (headers: Record<string, string>) =>
      sendToSdk(server(), ONE("pro-only"), { json: body, headers });
    expect((await send({ authorization: `bearer ${token}` })).body.value).toBe(true);
    expect((await send({ "x-api-key": token })).body.value).toBe(true);
    const refused: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer phc_unknown" },
      { "x-api-key": "phc_unknown" },
      { authorization: `Basic ${token}` },
      { authorization: `Bearer ${server().key}` },
    ];
    for (const headers of refused) {
      const answer = await send(headers);
      expect(answer.status, JSON.stringify(headers)).toBe(401);
      expect(answer.body).toEqual({ errorDetails: expect.any(String) });
    }
    // A token in the body is not OFREP's: still a 401.
    const inBody = await sendToSdk(server(), BULK, { json: { token, context: subject() } });
    expect(inBody.status).toBe(401);
  });

  it("answers CORS preflights and lets pages read the ETag; other methods are 405", async () => {
    const origin = "https://app.example.com";
    const preflight = await sendToSdk(server(), BULK, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,if-none-match",
      },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(origin);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    expect(preflight.headers.get("access-control-allow-headers")).toBe(
      "authorization,content-type,if-none-match",
    );
    const answer = await ofrep(BULK, subject(), { origin });
    expect(answer.headers.get("access-control-allow-origin")).toBe(origin);
    expect(answer.headers.get("access-control-expose-headers")).toBe("ETag");
    const refused = await ofrep(BULK, {}, { origin });
    expect(refused.headers.get("access-control-allow-origin")).toBe(origin);
    const get = await sendToSdk(server(), ONE("pro-only"), {
      method: "GET",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(get.status).toBe(405);
    expect(get.body).toMatchObject({ key: "pro-only", errorCode: "GENERAL" });
  });

  it("still answers when stored data cannot be read: flags the context decides, the others GENERAL", async () => {
    const s = server();
    await s.db.$executeRawUnsafe("DROP TABLE cohort_people CASCADE");
    // Distinct ids never read before: the subject cache holds nothing for them.
    const bulk = await ofrep(BULK, subject({ targetingKey: "ofrep-never-read", plan: "pro" }));
    expect(bulk.status, bulk.text).toBe(200);
    const byKey = Object.fromEntries(bulk.body.flags.map((flag: { key: string }) => [flag.key, flag]));
    expect(byKey["on-for-all"]).toMatchObject({ value: true, reason: "STATIC" });
    expect(byKey["pro-only"]).toMatchObject({ value: true, reason: "TARGETING_MATCH" });
    expect(byKey["vip-flag"]).toEqual({
      key: "vip-flag",
      errorCode: "GENERAL",
      errorDetails: expect.stringContaining("could not be evaluated"),
    });
    const single = await ofrep(ONE("vip-flag"), subject({ targetingKey: "ofrep-never-read-either" }));
    expect(single.status).toBe(500);
    expect(single.body).toMatchObject({ key: "vip-flag", errorCode: "GENERAL" });
    expect(s.errorLogs.some((log) => log["msg"] === "flag evaluation could not read stored data")).toBe(true);
  });
});
