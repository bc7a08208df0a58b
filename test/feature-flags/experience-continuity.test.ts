/**
 * Experience continuity (posthog-behavior.md §3.2) end to end through HTTP, on PGlite and
 * PostgreSQL: an anonymous visitor gets a variant; they identify (capture merges their ids into one
 * person); the first `/flags` after identify carries `$anon_distinct_id` and writes the person's
 * hash key, so the identified user keeps the anonymous variant on every later request, first write
 * winning. Flags without continuity follow the identified id. Persons come from capture, as SDKs
 * leave them; the keys written are read back from the table.
 */
import { beforeAll, expect, it } from "vitest";
import { projectToken, sendToSdk } from "../support/capture.js";
import { createFlag } from "../support/flags.js";
import { describeEachBackend, type TestResponse } from "../support/server.js";

const VARIANTS = ["a", "b", "c", "d"];
const fourWay = {
  groups: [{ rollout_percentage: 100 }],
  multivariate: { variants: VARIANTS.map((key) => ({ key, rollout_percentage: 25 })) },
};

describeEachBackend("experience continuity", (server) => {
  let token: string;
  beforeAll(async () => {
    token = await projectToken(server());
    await createFlag(server(), { key: "sticky", ensure_experience_continuity: true, filters: fourWay });
    await createFlag(server(), { key: "loose", filters: fourWay });
  });

  const flags = async (body: Record<string, unknown>): Promise<Record<string, string>> => {
    const answer: TestResponse = await sendToSdk(server(), "/flags/?v=1", { json: { token, ...body } });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.featureFlags;
  };
  const capture = async (event: Record<string, unknown>) => {
    const answer = await sendToSdk(server(), "/e/", {
      json: { ...event, properties: { token, ...(event["properties"] as object) } },
    });
    expect(answer.status, answer.text).toBe(200);
  };
  /** An identified id whose variant (with no continuity) differs from `anon`'s for both flags. */
  const idWithOtherVariants = async (anon: Record<string, string>, prefix: string) => {
    for (let i = 0; i < 200; i++) {
      const candidate = `${prefix}-${i}`;
      const own = await flags({ distinct_id: candidate });
      if (own["sticky"] !== anon["sticky"] && own["loose"] !== anon["loose"]) return { id: candidate, own };
    }
    throw new Error("no distinct id with other variants among 200");
  };
  const storedKeys = () =>
    server().db.featureFlagHashKeyOverride.findMany({
      where: { projectId: server().projectId },
      select: { featureFlagKey: true, hashKey: true },
    });

  it("keeps the anonymous variant after identify, written once, first write winning", async () => {
    const anonId = "anon-visitor-1";
    await capture({ event: "$pageview", distinct_id: anonId });
    const anon = await flags({ distinct_id: anonId });
    expect(VARIANTS).toContain(anon["sticky"]);
    const { id: userId, own } = await idWithOtherVariants(anon, "user-1");

    await capture({ event: "$identify", distinct_id: userId, properties: { $anon_distinct_id: anonId } });
    const first = await flags({ distinct_id: userId, $anon_distinct_id: anonId });
    expect(first).toEqual({ sticky: anon["sticky"], loose: own["loose"] });
    expect(await storedKeys()).toEqual([{ featureFlagKey: "sticky", hashKey: anonId }]);

    // Later requests without the anonymous id read the stored key.
    expect(await flags({ distinct_id: userId })).toEqual({ sticky: anon["sticky"], loose: own["loose"] });
    // The first key written wins over a later anonymous id.
    expect(await flags({ distinct_id: userId, $anon_distinct_id: "another-device" })).toEqual({
      sticky: anon["sticky"],
      loose: own["loose"],
    });
    expect(await storedKeys()).toEqual([{ featureFlagKey: "sticky", hashKey: anonId }]);
  });

  it("hashes the anonymous id before any person exists, without writing a key", async () => {
    const anonId = "anon-visitor-2";
    const anon = await flags({ distinct_id: anonId });
    const { id: userId, own } = await idWithOtherVariants(anon, "user-2");
    const before = (await storedKeys()).length;
    expect(await flags({ distinct_id: userId, $anon_distinct_id: anonId })).toEqual({
      sticky: anon["sticky"],
      loose: own["loose"],
    });
    expect((await storedKeys()).length).toBe(before);
    expect(await flags({ distinct_id: userId })).toEqual(own);
  });

  it("carries the key to the surviving person when two persons merge", async () => {
    const anonId = "anon-visitor-3";
    await capture({ event: "$pageview", distinct_id: anonId });
    const anon = await flags({ distinct_id: anonId });
    const { id: userId } = await idWithOtherVariants(anon, "user-3");
    // Both ids get a person of their own, and the key is written for both (PostHog writes it for the
    // persons of the distinct id and of the anonymous id).
    await capture({ event: "$pageview", distinct_id: userId });
    await flags({ distinct_id: userId, $anon_distinct_id: anonId });
    // Then they merge; the key survives with the merged person.
    await capture({
      event: "$merge_dangerously",
      distinct_id: userId,
      properties: { alias: anonId },
    });
    expect((await flags({ distinct_id: userId }))["sticky"]).toBe(anon["sticky"]);
    expect((await flags({ distinct_id: anonId }))["sticky"]).toBe(anon["sticky"]);
  });
});
