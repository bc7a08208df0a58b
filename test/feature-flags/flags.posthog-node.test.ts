/**
 * PostHog's Node SDK (posthog-node 5.70, unchanged) evaluating flags remotely against our server,
 * as it does without a personal API key (every call a `POST /flags/?v=2` with `evaluation_runtime:
 * server`), on PGlite and PostgreSQL: single flags, all flags, payloads, with groups and person
 * properties, and the `$feature_flag_called` events it sends back through capture.
 */
import type { PostHog } from "posthog-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { posthogNodeClient, storedEvents } from "../support/capture.js";
import { createEvaluationFixtures, EVALUATED_ID } from "../support/flag-evaluation.js";
import { describeEachBackend } from "../support/server.js";

describeEachBackend("posthog-node evaluating flags remotely", (server) => {
  let client: PostHog;
  beforeAll(async () => {
    await createEvaluationFixtures(server());
    client = await posthogNodeClient(server());
  });
  afterAll(async () => {
    await client.shutdown();
  });

  it("gets single flags: booleans, variants, and false out of rollout", async () => {
    expect(await client.getFeatureFlag("on-for-all", EVALUATED_ID)).toBe(true);
    expect(await client.getFeatureFlag("off-for-all", EVALUATED_ID)).toBe(false);
    expect(await client.getFeatureFlag("new-checkout", EVALUATED_ID)).toBe("control");
    expect(await client.getFeatureFlag("pro-only", EVALUATED_ID)).toBe(true);
    expect(await client.isFeatureEnabled("vip-flag", EVALUATED_ID)).toBe(true);
  });

  it("sends person properties and groups, which win over and add to the stored ones", async () => {
    expect(
      await client.getFeatureFlag("pro-only", EVALUATED_ID, { personProperties: { plan: "free" } }),
    ).toBe(false);
    expect(await client.getFeatureFlag("pro-only", "stranger", { personProperties: { plan: "pro" } })).toBe(
      true,
    );
    expect(await client.getFeatureFlag("company-flag", EVALUATED_ID)).toBe(false);
    expect(await client.getFeatureFlag("company-flag", EVALUATED_ID, { groups: { company: "acme" } })).toBe(
      true,
    );
    expect(
      await client.getFeatureFlag("company-flag", EVALUATED_ID, {
        groups: { company: "acme" },
        groupProperties: { company: { tier: "startup" } },
      }),
    ).toBe(false);
  });

  it("gets all flags as a server SDK sees them (server-only in, client-only and inactive out)", async () => {
    const all = await client.getAllFlags(EVALUATED_ID, { groups: { company: "acme" } });
    expect(all).toEqual({
      "on-for-all": true,
      "off-for-all": false,
      "pro-only": true,
      "new-checkout": "control",
      "override-variant": "test",
      "company-flag": true,
      "vip-flag": true,
      tagged: true,
      "server-only": true,
    });
  });

  it("gets payloads, parsed, for the value the flag has", async () => {
    expect(await client.getFeatureFlagPayload("on-for-all", EVALUATED_ID)).toEqual({ a: 1 });
    expect(await client.getFeatureFlagPayload("new-checkout", EVALUATED_ID)).toBe("c");
    const both = await client.getAllFlagsAndPayloads(EVALUATED_ID);
    expect(both.featureFlagPayloads).toEqual({ "on-for-all": { a: 1 }, "new-checkout": "c" });
  });

  it("reports the flags it was asked for back through capture ($feature_flag_called)", async () => {
    await client.getFeatureFlag("override-variant", "reporter");
    await client.flush();
    const called = (await storedEvents(server())).filter(
      (event) => event.event === "$feature_flag_called" && event.distinctId === "reporter",
    );
    expect(
      called.map((event) => [event.properties["$feature_flag"], event.properties["$feature_flag_response"]]),
    ).toEqual([["override-variant", "test"]]);
  });
});
