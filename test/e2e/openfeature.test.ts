/**
 * OpenFeature's own server SDK (`@openfeature/server-sdk`) with its OFREP provider
 * (`@openfeature/ofrep-provider`), unchanged, against our server on PGlite and PostgreSQL: for the
 * same persons, every flag resolves to what `evaluation_reasons` says (boolean and multivariate
 * flags, rollouts, a person-property flag, a static cohort, a group flag, a disabled flag); the
 * context's attributes target as person properties; a missing flag falls back to the caller's
 * default with `FLAG_NOT_FOUND`. The browser's OFREP provider is in test/e2e/browser.test.ts.
 */
import { OFREPProvider } from "@openfeature/ofrep-provider";
import { type Client, ErrorCode, OpenFeature, StandardResolutionReasons } from "@openfeature/server-sdk";
import { afterAll, beforeAll, expect, it } from "vitest";
import { projectToken } from "../support/capture.js";
import { createEvaluationFixtures, EVALUATED_ID } from "../support/flag-evaluation.js";
import { createFlag, flagsPath } from "../support/flags.js";
import { insertPersons } from "../support/people.js";
import { describeEachBackend } from "../support/server.js";

/** Stored persons of-user-0…23: even ones on plan pro, odd ones on plan free. */
const PERSONS = Array.from({ length: 24 }, (_, i) => ({
  distinctIds: [`of-user-${i}`],
  properties: { plan: i % 2 === 0 ? "pro" : "free" },
}));

/** The fixtures' multivariate flags (a string client), the others are boolean. */
const MULTIVARIATE = new Set(["new-checkout", "override-variant", "mv-partial"]);

/** What a string client gets when PostHog's value is `false` (a type mismatch: the caller's default). */
const NO_VARIANT = "no-variant";

describeEachBackend("OpenFeature's server SDK with the OFREP provider", (server) => {
  let client: Client;
  let domain: string;
  beforeAll(async () => {
    const s = server();
    await createEvaluationFixtures(s);
    await createFlag(s, { key: "half-rollout", filters: { groups: [{ rollout_percentage: 50 }] } });
    await createFlag(s, {
      key: "mv-partial",
      filters: {
        groups: [{ rollout_percentage: 60 }],
        multivariate: {
          variants: [
            { key: "red", rollout_percentage: 34 },
            { key: "green", rollout_percentage: 33 },
            { key: "blue", rollout_percentage: 33 },
          ],
        },
      },
    });
    await insertPersons(s.db, s.projectId, PERSONS);
    domain = `signalbox-${s.backend}`;
    await OpenFeature.setProviderAndWait(
      domain,
      new OFREPProvider({
        baseUrl: s.baseUrl,
        headers: [["Authorization", `Bearer ${await projectToken(s)}`]],
      }),
    );
    client = OpenFeature.getClient(domain);
  });
  afterAll(async () => {
    await OpenFeature.clearProviders();
  });

  /** `evaluation_reasons` for a distinct id: flag key → `{value, evaluation: {reason}}`. */
  const evaluationReasons = async (distinctId: string, groups?: Record<string, string>) => {
    const s = server();
    const query = new URLSearchParams({ distinct_id: distinctId });
    if (groups) query.set("groups", JSON.stringify(groups));
    const answer = await s.request("GET", flagsPath(s, `evaluation_reasons/?${query}`));
    expect(answer.status, answer.text).toBe(200);
    return answer.body as Record<string, { value: boolean | string; evaluation: { reason: string } }>;
  };

  it("resolves every flag as evaluation_reasons does, for 25 persons", async () => {
    let compared = 0;
    const distinctIds = [EVALUATED_ID, ...PERSONS.map((person) => person.distinctIds[0]!)];
    for (const distinctId of distinctIds) {
      const groups = { company: "acme" };
      const expected = await evaluationReasons(distinctId, groups);
      const context = { targetingKey: distinctId, groups };
      for (const [key, { value, evaluation }] of Object.entries(expected)) {
        if (MULTIVARIATE.has(key)) {
          const details = await client.getStringDetails(key, NO_VARIANT, context);
          if (value === false) {
            expect(details, `${distinctId} ${key}`).toMatchObject({
              value: NO_VARIANT,
              errorCode: ErrorCode.TYPE_MISMATCH,
            });
          } else {
            expect(details, `${distinctId} ${key}`).toMatchObject({ value, variant: value });
            expect(details.errorCode).toBeUndefined();
          }
        } else {
          const details = await client.getBooleanDetails(key, !value, context);
          expect(details.value, `${distinctId} ${key}`).toBe(value);
          expect(details.errorCode).toBeUndefined();
          expect(details.flagMetadata["reason"]).toBe(
            evaluation.reason === "disabled" ? "flag_disabled" : evaluation.reason,
          );
        }
        compared++;
      }
    }
    expect(compared).toBe(25 * 13);
  });

  it("answers a disabled flag DISABLED and a missing one with the caller's default and FLAG_NOT_FOUND", async () => {
    const context = { targetingKey: EVALUATED_ID };
    expect(await client.getBooleanDetails("inactive-flag", true, context)).toMatchObject({
      value: false,
      reason: StandardResolutionReasons.DISABLED,
    });
    const missing = await client.getBooleanDetails("no-such-flag", true, context);
    expect(missing).toMatchObject({
      value: true,
      reason: StandardResolutionReasons.ERROR,
      errorCode: ErrorCode.FLAG_NOT_FOUND,
    });
    // No targeting key: OFREP's TARGETING_KEY_MISSING, the caller's default.
    expect(await client.getBooleanDetails("on-for-all", false, {})).toMatchObject({
      value: false,
      errorCode: ErrorCode.TARGETING_KEY_MISSING,
    });
  });

  it("targets with the context's attributes as person properties, and its groups", async () => {
    const stranger = { targetingKey: "never-stored" };
    expect(await client.getBooleanValue("pro-only", true, stranger)).toBe(false);
    expect(await client.getBooleanDetails("pro-only", false, { ...stranger, plan: "pro" })).toMatchObject({
      value: true,
      reason: StandardResolutionReasons.TARGETING_MATCH,
      flagMetadata: { reason: "condition_match", conditionIndex: 0 },
    });
    expect(await client.getBooleanValue("company-flag", true, stranger)).toBe(false);
    expect(
      await client.getBooleanValue("company-flag", false, { ...stranger, groups: { company: "acme" } }),
    ).toBe(true);
  });

  it("follows an edit at once (no caching on the server provider's path)", async () => {
    const s = server();
    const context = { targetingKey: EVALUATED_ID };
    expect(await client.getBooleanValue("off-for-all", true, context)).toBe(false);
    const list = await s.request("GET", flagsPath(s, "?search=off-for-all"));
    const id = list.body.results[0].id;
    const patched = await s.request("PATCH", flagsPath(s, `${id}/`), {
      body: { filters: { groups: [{ rollout_percentage: 100 }] } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(await client.getBooleanDetails("off-for-all", false, context)).toMatchObject({
      value: true,
      reason: StandardResolutionReasons.STATIC,
      flagMetadata: { version: 2 },
    });
  });
});
