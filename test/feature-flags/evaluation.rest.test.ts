/**
 * `evaluation_reasons` and `my_flags` (spec rows 15 and 17, posthog-behavior.md §2.10) through
 * HTTP, on PGlite and PostgreSQL: PostHog's shapes from stored persons, groups and cohorts, inactive
 * flags `disabled`, bad input, the scope (`feature_flag:read`, decision 2), and that neither writes.
 */
import { beforeAll, expect, it } from "vitest";
import { expectNothingWritten } from "../support/db-dump.js";
import {
  createEvaluationFixtures,
  EVALUATED_ID,
  type EvaluationFixtures,
} from "../support/flag-evaluation.js";
import { flagsPath } from "../support/flags.js";
import { insertPerson } from "../support/people.js";
import { describeEachBackend } from "../support/server.js";

describeEachBackend("evaluation_reasons and my_flags", (server) => {
  let fixtures: EvaluationFixtures;
  beforeAll(async () => {
    fixtures = await createEvaluationFixtures(server());
  });

  const reason = (value: boolean | string, reason: string, condition_index: number | null = 0) => ({
    value,
    evaluation: { reason, condition_index },
  });

  it("gives every flag's value, reason and condition index, inactive flags disabled", async () => {
    const s = server();
    const groups = encodeURIComponent(JSON.stringify({ company: "acme" }));
    const answer = await expectNothingWritten(s.db, "evaluation_reasons", () =>
      s.request("GET", flagsPath(s, `evaluation_reasons/?distinct_id=${EVALUATED_ID}&groups=${groups}`)),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      "on-for-all": reason(true, "condition_match"),
      "off-for-all": reason(false, "out_of_rollout_bound"),
      "pro-only": reason(true, "condition_match"),
      "new-checkout": reason("control", "condition_match"),
      "override-variant": reason("test", "condition_match"),
      "company-flag": reason(true, "condition_match"),
      "vip-flag": reason(true, "condition_match"),
      "inactive-flag": reason(false, "disabled", null),
      "server-only": reason(true, "condition_match"),
      "client-only": reason(true, "condition_match"),
      tagged: reason(true, "condition_match"),
    });
    const noGroups = await s.request("GET", flagsPath(s, `evaluation_reasons/?distinct_id=${EVALUATED_ID}`));
    expect(noGroups.body["company-flag"]).toEqual(reason(false, "no_group_type"));
    const stranger = await s.request("GET", flagsPath(s, "evaluation_reasons/?distinct_id=stranger"));
    expect(stranger.body["pro-only"]).toEqual(reason(false, "no_condition_match"));
    expect(stranger.body["vip-flag"]).toEqual(reason(false, "no_condition_match"));
  });

  it("refuses evaluation_reasons without a distinct_id, or with groups that are not a JSON object", async () => {
    const s = server();
    const missing = await s.request("GET", flagsPath(s, "evaluation_reasons/"));
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      type: "validation_error",
      code: "required",
      detail: "This field is required.",
      attr: "distinct_id",
    });
    const cases: Array<[string, string]> = [
      ["{not json", "Invalid JSON in groups parameter"],
      ['["acme"]', "groups must be a JSON object"],
      ['{"company": {"key": 1}}', "groups must be a JSON object"],
    ];
    for (const [groups, detail] of cases) {
      const path = flagsPath(s, `evaluation_reasons/?distinct_id=x&groups=${encodeURIComponent(groups)}`);
      const answer = await s.request("GET", path);
      expect(answer.status, groups).toBe(400);
      expect(answer.body, groups).toEqual({
        type: "validation_error",
        code: "invalid_input",
        detail,
        attr: "groups",
      });
    }
  });

  it("lists my flags, newest first, with values for the key's user", async () => {
    const s = server();
    const user = await s.db.user.findUniqueOrThrow({ where: { id: s.userId } });
    await insertPerson(s.db, s.projectId, { distinctIds: [user.distinctId], properties: { plan: "pro" } });
    const answer = await s.request(
      "GET",
      flagsPath(s, `my_flags/?groups=${encodeURIComponent('{"company":"acme"}')}`),
    );
    expect(answer.status, answer.text).toBe(200);
    const ids = Object.values(fixtures.flags).sort((a, b) => b - a);
    expect(answer.body.map((item: { feature_flag: { id: number } }) => item.feature_flag.id)).toEqual(ids);
    const values = Object.fromEntries(
      answer.body.map((item: { feature_flag: { key: string }; value: unknown }) => [
        item.feature_flag.key,
        item.value,
      ]),
    );
    expect(values).toMatchObject({
      "pro-only": true,
      "vip-flag": false,
      "company-flag": true,
      "inactive-flag": false,
      "new-checkout": expect.any(String),
    });
    expect(answer.body[0].feature_flag).toEqual({
      id: fixtures.flags["tagged"],
      team_id: s.projectId,
      name: "",
      key: "tagged",
      filters: expect.objectContaining({ groups: [expect.objectContaining({ rollout_percentage: 100 })] }),
      deleted: false,
      active: true,
      ensure_experience_continuity: false,
      has_encrypted_payloads: false,
      version: 1,
      evaluation_runtime: "all",
      bucketing_identifier: "distinct_id",
      evaluation_tags: ["web"],
    });
    const bad = await s.request("GET", flagsPath(s, "my_flags/?groups=%5B%5D"));
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe("groups must be a JSON object");
  });

  it("needs feature_flag:read for both", async () => {
    const s = server();
    const key = await s.createKey(["cohort:read"]);
    for (const path of [`evaluation_reasons/?distinct_id=${EVALUATED_ID}`, "my_flags/"]) {
      const answer = await s.request("GET", flagsPath(s, path), { key });
      expect(answer.status, path).toBe(403);
      expect(answer.body.detail).toBe("API key missing required scope 'feature_flag:read'");
    }
    const reader = await s.createKey(["feature_flag:read"]);
    const allowed = await s.request("GET", flagsPath(s, "my_flags/"), { key: reader });
    expect(allowed.status).toBe(200);
  });
});
