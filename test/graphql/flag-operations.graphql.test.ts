/**
 * The flag operations without an evaluation engine through the GraphQL door, on both backends:
 * `FeatureFlag.dependentFlags`, `hasActiveDependents` (batched: a constant number of SQL statements
 * for a page of flags), `remoteConfig`, `status`/`statusReason`, and `Project.featureFlagBlastRadius`,
 * each agreeing with its REST counterpart.
 */
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { createFlag, flagsPath } from "../support/flags.js";
import { execute } from "../support/graphql.js";
import { insertPersons } from "../support/people.js";
import { describeEachBackend } from "../support/server.js";

const Dependents = graphql(`
  query FlagDependents($projectId: ID!, $search: String!) {
    project(id: $projectId) {
      featureFlags(first: 100, filter: { search: $search }, orderBy: KEY_ASC) {
        edges { node { key hasActiveDependents dependentFlags { key databaseId hasActiveDependents } } }
      }
    }
  }
`);

const OneFlag = graphql(`
  query OneFlagOperations($projectId: ID!, $key: String!) {
    project(id: $projectId) {
      featureFlag(key: $key) { key remoteConfig status statusReason hasActiveDependents }
    }
  }
`);

const BlastRadius = graphql(`
  query BlastRadius($projectId: ID!, $condition: FeatureFlagConditionGroupInput!, $groupTypeIndex: Int) {
    project(id: $projectId) {
      featureFlagBlastRadius(condition: $condition, groupTypeIndex: $groupTypeIndex) { usersAffected totalUsers }
    }
  }
`);

/** A `type: flag` condition on flag `id`. */
const dependsOn = (id: number) => ({
  filters: {
    groups: [
      {
        properties: [{ key: String(id), type: "flag", value: true, operator: "flag_evaluates_to" }],
        rollout_percentage: 100,
      },
    ],
  },
});

describeEachBackend("flag operations over GraphQL", (server) => {
  beforeAll(async () => {
    const s = server();
    await insertPersons(s.db, s.projectId, [
      { distinctIds: ["g-1"], properties: { plan: "pro" } },
      { distinctIds: ["g-2"], properties: { plan: "free" } },
      { distinctIds: ["g-3"], properties: { plan: "pro" } },
    ]);
  });

  it("lists each flag's dependents, as REST does, in a constant number of SQL statements", async () => {
    const s = server();
    const projectId = String(s.projectId);
    const roots = [];
    for (let i = 0; i < 3; i++) roots.push(await createFlag(s, { key: `gdep-root-${i}` }));
    for (let i = 0; i < 3; i++) await createFlag(s, { key: `gdep-child-${i}-a`, ...dependsOn(roots[i]!.id) });
    await execute(s, Dependents, { projectId, search: "gdep-" }); // the key is looked up once per process
    const few = await execute(s, Dependents, { projectId, search: "gdep-" });
    expect(few.errors).toBeUndefined();
    const nodes = few.data.project!.featureFlags!.edges.map((edge) => edge.node);
    const root = nodes.find((node) => node.key === "gdep-root-0")!;
    expect(root.hasActiveDependents).toBe(true);
    expect(root.dependentFlags.map((flag) => flag.key)).toEqual(["gdep-child-0-a"]);
    expect(nodes.find((node) => node.key === "gdep-child-0-a")).toMatchObject({
      hasActiveDependents: false,
      dependentFlags: [],
    });
    const rest = await s.request("GET", flagsPath(s, `${roots[0]!.id}/dependent_flags/`));
    expect(root.dependentFlags.map((flag) => flag.databaseId)).toEqual(
      rest.body.map((f: { id: number }) => f.id),
    );

    // Three times the flags, the same statements: the page, the project's flags, the dependents' records.
    for (let i = 3; i < 9; i++) {
      const extra = await createFlag(s, { key: `gdep-root-${i}` });
      await createFlag(s, { key: `gdep-child-${i}-a`, ...dependsOn(extra.id) });
    }
    const many = await execute(s, Dependents, { projectId, search: "gdep-" });
    expect(many.data.project!.featureFlags!.edges).toHaveLength(18);
    expect(many.statements).toBe(few.statements);
  });

  it("shows a remote configuration's payload and the flag's status with its reason", async () => {
    const s = server();
    await createFlag(s, {
      key: "g-remote",
      is_remote_configuration: true,
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        payloads: { true: { color: "blue" } },
      },
    });
    await createFlag(s, { key: "g-plain" });
    const remote = await execute(s, OneFlag, { projectId: String(s.projectId), key: "g-remote" });
    expect(remote.data.project!.featureFlag).toEqual({
      key: "g-remote",
      remoteConfig: '{"color": "blue"}',
      status: "ACTIVE",
      statusReason: "Flag has no usage data yet",
      hasActiveDependents: false,
    });
    const plain = await execute(s, OneFlag, { projectId: String(s.projectId), key: "g-plain" });
    expect(plain.data.project!.featureFlag!.remoteConfig).toBeNull();
  });

  it("counts a condition's blast radius as REST does", async () => {
    const s = server();
    const projectId = String(s.projectId);
    const condition = {
      properties: [{ key: "plan", type: "person", value: "pro", operator: "exact" }],
      rolloutPercentage: 10,
    };
    const answer = await execute(s, BlastRadius, { projectId, condition });
    expect(answer.data.project!.featureFlagBlastRadius).toEqual({ usersAffected: 2, totalUsers: 3 });
    const rest = await s.request("POST", flagsPath(s, "user_blast_radius/"), {
      body: { condition: { properties: condition.properties, rollout_percentage: 10 } },
    });
    expect(rest.body).toEqual({ users_affected: 2, total_users: 3 });
    const everyone = await execute(s, BlastRadius, { projectId, condition: {} });
    expect(everyone.data.project!.featureFlagBlastRadius).toEqual({ usersAffected: 3, totalUsers: 3 });
  });

  it("answers a refused condition with null and PostHog's message and code", async () => {
    const s = server();
    const answer = await execute(s, BlastRadius, {
      projectId: String(s.projectId),
      condition: { properties: [{ key: "plan", type: "person", value: "pro" }] },
      groupTypeIndex: 0,
    });
    expect(answer.data.project!.featureFlagBlastRadius).toBeNull();
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors![0]).toMatchObject({
      message: "Invalid group type index for feature flag condition.",
      path: ["project", "featureFlagBlastRadius"],
      extensions: { code: "invalid_input" },
    });
  });
});
