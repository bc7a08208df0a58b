/**
 * `Project.evaluateFeatureFlags` through the GraphQL door, over HTTP on the real server, on PGlite
 * and PostgreSQL: the same values and reasons as REST's `evaluation_reasons`, payloads parsed, the
 * caller's properties winning, typed errors for malformed properties and the scope, and a bounded
 * number of SQL statements.
 */
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { createEvaluationFixtures, EVALUATED_ID } from "../support/flag-evaluation.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const Evaluate = graphql(`
  query EvaluateFlags(
    $projectId: ID!
    $distinctId: String!
    $groups: [FeatureFlagEvaluationGroupInput!]
    $personProperties: JSON
    $keys: [String!]
  ) {
    project(id: $projectId) {
      evaluateFeatureFlags(
        distinctId: $distinctId
        groups: $groups
        personProperties: $personProperties
        keys: $keys
      ) {
        __typename
        ... on EvaluateFeatureFlagsSuccess {
          evaluations { key flagId enabled variant reason conditionIndex payload }
        }
        ... on Error { message code }
        ... on ValidationError { attr field }
      }
    }
  }
`);

describeEachBackend("flag evaluation over GraphQL", (server) => {
  beforeAll(async () => {
    await createEvaluationFixtures(server());
  });
  const projectId = () => String(server().projectId);

  it("evaluates every flag as evaluation_reasons does, with payloads parsed, in a bounded number of statements", async () => {
    const s = server();
    const variables = {
      projectId: projectId(),
      distinctId: EVALUATED_ID,
      groups: [{ groupType: "company", groupKey: "acme" }],
    };
    await execute(s, Evaluate, variables); // loads the definitions once
    const answer = await execute(s, Evaluate, variables);
    expect(answer.errors).toBeUndefined();
    const result = answer.data.project?.evaluateFeatureFlags;
    if (result?.__typename !== "EvaluateFeatureFlagsSuccess") throw new Error(JSON.stringify(result));
    const byKey = Object.fromEntries(result.evaluations.map((evaluation) => [evaluation.key, evaluation]));
    expect(byKey["new-checkout"]).toMatchObject({
      enabled: true,
      variant: "control",
      reason: "CONDITION_MATCH",
      conditionIndex: 0,
      payload: "c",
    });
    expect(byKey["on-for-all"]).toMatchObject({ enabled: true, variant: null, payload: { a: 1 } });
    expect(byKey["off-for-all"]).toMatchObject({
      enabled: false,
      reason: "OUT_OF_ROLLOUT_BOUND",
      payload: null,
    });
    expect(byKey["inactive-flag"]).toMatchObject({
      enabled: false,
      reason: "FLAG_DISABLED",
      conditionIndex: null,
    });
    expect(byKey["company-flag"]).toMatchObject({ enabled: true });
    expect(byKey["vip-flag"]).toMatchObject({ enabled: true });

    const rest = await s.request(
      "GET",
      `/api/projects/${s.projectId}/feature_flags/evaluation_reasons/?distinct_id=${EVALUATED_ID}&groups=${encodeURIComponent('{"company":"acme"}')}`,
    );
    for (const [key, { value }] of Object.entries(rest.body as Record<string, { value: unknown }>)) {
      expect(byKey[key]?.variant ?? byKey[key]?.enabled, key).toBe(value);
    }
    // At most the key lookup, the definitions' revision and the subject (the first two known once seen).
    expect(answer.statements).toBeLessThanOrEqual(3);
  });

  it("lets the caller's properties win, and evaluates only the keys asked for", async () => {
    const answer = await execute(server(), Evaluate, {
      projectId: projectId(),
      distinctId: EVALUATED_ID,
      groups: [{ groupType: "company", groupKey: "acme", properties: { tier: "startup" } }],
      personProperties: { plan: "free" },
      keys: ["pro-only", "company-flag"],
    });
    const result = answer.data.project?.evaluateFeatureFlags;
    if (result?.__typename !== "EvaluateFeatureFlagsSuccess") throw new Error(JSON.stringify(result));
    const evaluations = result.evaluations.map(({ key, enabled, reason }) => ({ key, enabled, reason }));
    expect(evaluations.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { key: "company-flag", enabled: false, reason: "NO_CONDITION_MATCH" },
      { key: "pro-only", enabled: false, reason: "NO_CONDITION_MATCH" },
    ]);
  });

  it("answers malformed properties with a typed ValidationError naming the field", async () => {
    const bad = await execute(server(), Evaluate, {
      projectId: projectId(),
      distinctId: EVALUATED_ID,
      personProperties: ["plan"],
    });
    expect(bad.data.project?.evaluateFeatureFlags).toEqual({
      __typename: "ValidationError",
      message: "Expected a JSON object.",
      code: "not_a_dict",
      attr: "person_properties",
      field: "personProperties",
    });
    const twice = await execute(server(), Evaluate, {
      projectId: projectId(),
      distinctId: EVALUATED_ID,
      groups: [
        { groupType: "company", groupKey: "acme" },
        { groupType: "company", groupKey: "globex" },
      ],
    });
    expect(twice.data.project?.evaluateFeatureFlags).toMatchObject({
      __typename: "ValidationError",
      field: "groups.1.groupType",
    });
  });

  it("needs feature_flag:read", async () => {
    const key = await server().createKey(["project:read"]);
    const answer = await execute(
      server(),
      Evaluate,
      { projectId: projectId(), distinctId: EVALUATED_ID },
      key,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.project?.evaluateFeatureFlags).toEqual({
      __typename: "PermissionDeniedError",
      message: "API key missing required scope 'feature_flag:read'",
      code: "permission_denied",
    });
  });
});
