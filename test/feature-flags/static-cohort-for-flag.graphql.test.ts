/**
 * `createStaticCohortForFeatureFlag` through the GraphQL door, on both backends: the same cohort as
 * REST's `create_static_cohort_for_flag` (one service method), complete when answered, and typed
 * errors (unknown flag, either scope missing) that write nothing. The behaviour itself is covered
 * through REST in static-cohort-for-flag.rest.test.ts.
 */
import { encodeGlobalID } from "@pothos/plugin-relay";
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { expectNothingWritten } from "../support/db-dump.js";
import { personCondition } from "../support/flag-evaluation.js";
import { cohortMemberUuids, createFlag, staticCohortPath } from "../support/flags.js";
import { execute } from "../support/graphql.js";
import { insertPersons } from "../support/people.js";
import { describeEachBackend } from "../support/server.js";

const CreateStaticCohort = graphql(`
  mutation CreateStaticCohortForFlag($input: CreateStaticCohortForFeatureFlagInput!) {
    createStaticCohortForFeatureFlag(input: $input) {
      __typename
      ... on CreateStaticCohortForFeatureFlagSuccess {
        cohort { id databaseId name isStatic isCalculating count createdBy { email } }
      }
      ... on Error { message code }
    }
  }
`);

describeEachBackend("createStaticCohortForFeatureFlag", (server) => {
  let flag: { id: number; key: string };

  beforeAll(async () => {
    const s = server();
    await insertPersons(
      s.db,
      s.projectId,
      Array.from({ length: 16 }, (_, i) => ({
        distinctIds: [`gq-${i}`],
        properties: { plan: i % 2 === 0 ? "pro" : "free" },
      })),
    );
    flag = await createFlag(s, { key: "gql-pro", filters: { groups: [personCondition("plan", "pro", 70)] } });
  });

  it("creates the cohort REST creates, complete, by the flag's global id", async () => {
    const s = server();
    const rest = await s.request("POST", staticCohortPath(s.projectId, flag.id));
    expect(rest.status, rest.text).toBe(201);
    const answer = await execute(s, CreateStaticCohort, {
      input: {
        projectId: String(s.projectId),
        id: encodeGlobalID("FeatureFlag", `${s.projectId}:${flag.id}`),
      },
    });
    expect(answer.errors).toBeUndefined();
    const result = answer.data.createStaticCohortForFeatureFlag;
    if (result?.__typename !== "CreateStaticCohortForFeatureFlagSuccess") {
      throw new Error(`unexpected ${JSON.stringify(result)}`);
    }
    expect(result.cohort).toMatchObject({
      name: expect.stringMatching(
        /^Users with feature flag gql-pro enabled at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
      ),
      isStatic: true,
      isCalculating: false,
      count: rest.body.cohort.count,
      createdBy: { email: "admin@example.com" },
    });
    expect(rest.body.cohort.count).toBeGreaterThan(0);
    expect(await cohortMemberUuids(s, s.projectId, result.cohort.databaseId)).toEqual(
      await cohortMemberUuids(s, s.projectId, rest.body.cohort.id),
    );
  });

  it("answers typed errors for an unknown flag and for either missing scope, writing nothing", async () => {
    const s = server();
    const unknown = await expectNothingWritten(s.db, "unknown flag", () =>
      execute(s, CreateStaticCohort, { input: { projectId: String(s.projectId), id: "987654" } }),
    );
    expect(unknown.data.createStaticCohortForFeatureFlag).toEqual({
      __typename: "NotFoundError",
      message: "Not found.",
      code: "not_found",
    });
    for (const [scopes, missing] of [
      [["cohort:write"], "feature_flag:read"],
      [["feature_flag:write"], "cohort:write"],
    ] as const) {
      const key = await s.createKey([...scopes]);
      const refused = await expectNothingWritten(s.db, `a key without ${missing}`, () =>
        execute(
          s,
          CreateStaticCohort,
          { input: { projectId: String(s.projectId), id: String(flag.id) } },
          key,
        ),
      );
      expect(refused.data.createStaticCohortForFeatureFlag).toMatchObject({
        __typename: "PermissionDeniedError",
        message: `API key missing required scope '${missing}'`,
      });
    }
  });
});
