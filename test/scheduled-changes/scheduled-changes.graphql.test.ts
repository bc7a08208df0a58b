/**
 * Scheduled changes through the GraphQL door, on both backends: `createScheduledChange`,
 * `updateScheduledChange` and `deleteScheduledChange` with PostHog's rules as typed errors (bad input,
 * a missing scope, another project's change), `FeatureFlag.scheduledChanges` (a connection) and
 * `node(id:)`, and a change applied on time heard by a `featureFlagChanged` subscriber.
 */
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { createFlag } from "../support/flags.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend, type TestServer } from "../support/server.js";
import { subscribeSse } from "../support/sse.js";

const CreateScheduledChange = graphql(`
  mutation CreateScheduledChange($input: CreateScheduledChangeInput!) {
    createScheduledChange(input: $input) {
      __typename
      ... on CreateScheduledChangeSuccess {
        scheduledChange {
          id
          databaseId
          recordId
          modelName
          payload
          scheduledAt
          isRecurring
          recurrenceInterval
          cronExpression
          timezone
          createdBy { email }
          featureFlag { key }
        }
      }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const UpdateScheduledChange = graphql(`
  mutation UpdateScheduledChange($input: UpdateScheduledChangeInput!) {
    updateScheduledChange(input: $input) {
      __typename
      ... on UpdateScheduledChangeSuccess { scheduledChange { databaseId isRecurring recurrenceInterval scheduledAt } }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const DeleteScheduledChange = graphql(`
  mutation DeleteScheduledChange($input: DeleteScheduledChangeInput!) {
    deleteScheduledChange(input: $input) {
      __typename
      ... on DeleteScheduledChangeSuccess { scheduledChange { databaseId } }
      ... on Error { message code }
    }
  }
`);

const FlagScheduledChanges = graphql(`
  query FlagScheduledChanges($project: ID!, $flag: ID!) {
    project(id: $project) {
      featureFlag(id: $flag) {
        key
        scheduledChanges(first: 10) {
          totalCount
          edges { node { databaseId payload executedAt failureReason } }
        }
      }
    }
  }
`);

const ScheduledChangeNode = graphql(`
  query ScheduledChangeNode($id: ID!) {
    node(id: $id) { __typename ... on ScheduledChange { databaseId recordId } }
  }
`);

const FLAG_CHANGED = `subscription ($projectId: ID!, $keys: [String!]!) {
  featureFlagChanged(projectId: $projectId, keys: $keys) { activity key userId featureFlag { key active } }
}`;

describeEachBackend("scheduled changes over GraphQL", (server) => {
  let s: TestServer;
  let flag: { id: number; key: string };
  beforeAll(async () => {
    s = server();
    flag = await createFlag(s, { key: "scheduled-graphql" });
  });

  const input = (extra: Record<string, unknown> = {}) => ({
    projectId: String(s.projectId),
    featureFlagId: String(flag.id),
    payload: { operation: "UPDATE_STATUS" as const, value: false },
    scheduledAt: "2099-01-01T09:00:00Z",
    ...extra,
  });

  it("creates, lists on the flag, reads as a node, updates and deletes", async () => {
    const created = await execute(s, CreateScheduledChange, {
      input: input({ isRecurring: true, recurrenceInterval: "WEEKLY" }),
    });
    expect(created.errors).toBeUndefined();
    const change = created.data.createScheduledChange;
    expect(change?.__typename).toBe("CreateScheduledChangeSuccess");
    if (change?.__typename !== "CreateScheduledChangeSuccess") return;
    expect(change.scheduledChange).toMatchObject({
      recordId: String(flag.id),
      modelName: "FeatureFlag",
      payload: { operation: "update_status", value: false },
      scheduledAt: "2099-01-01T09:00:00.000Z",
      isRecurring: true,
      recurrenceInterval: "WEEKLY",
      cronExpression: null,
      timezone: "UTC",
      createdBy: { email: "admin@example.com" },
      featureFlag: { key: "scheduled-graphql" },
    });
    const id = change.scheduledChange.databaseId;

    const listed = await execute(s, FlagScheduledChanges, {
      project: String(s.projectId),
      flag: String(flag.id),
    });
    expect(listed.errors).toBeUndefined();
    expect(listed.data.project?.featureFlag?.scheduledChanges).toMatchObject({
      totalCount: 1,
      edges: [{ node: { databaseId: id, executedAt: null, failureReason: null } }],
    });
    const node = await execute(s, ScheduledChangeNode, { id: change.scheduledChange.id });
    expect(node.data.node).toEqual({
      __typename: "ScheduledChange",
      databaseId: id,
      recordId: String(flag.id),
    });

    // Pausing by the global id as the input's id.
    const paused = await execute(s, UpdateScheduledChange, {
      input: { projectId: String(s.projectId), id: change.scheduledChange.id, isRecurring: false },
    });
    expect(paused.data.updateScheduledChange).toMatchObject({
      __typename: "UpdateScheduledChangeSuccess",
      scheduledChange: { databaseId: id, isRecurring: false, recurrenceInterval: "WEEKLY" },
    });
    const deleted = await execute(s, DeleteScheduledChange, {
      input: { projectId: String(s.projectId), id: String(id) },
    });
    expect(deleted.data.deleteScheduledChange).toEqual({
      __typename: "DeleteScheduledChangeSuccess",
      scheduledChange: { databaseId: id },
    });
    const again = await execute(s, DeleteScheduledChange, {
      input: { projectId: String(s.projectId), id: String(id) },
    });
    expect(again.data.deleteScheduledChange).toMatchObject({
      __typename: "NotFoundError",
      code: "not_found",
    });
  });

  it("answers PostHog's messages as typed errors", async () => {
    const both = await execute(s, CreateScheduledChange, {
      input: input({ isRecurring: true, recurrenceInterval: "DAILY", cronExpression: "0 9 * * *" }),
    });
    expect(both.data.createScheduledChange).toEqual({
      __typename: "ValidationError",
      message: "Cannot set both cron_expression and recurrence_interval. Use one or the other.",
      code: "invalid",
      attr: "cron_expression",
    });
    const missing = await execute(s, CreateScheduledChange, { input: input({ featureFlagId: "987654" }) });
    expect(missing.data.createScheduledChange).toMatchObject({
      __typename: "ValidationError",
      message: "Feature flag not found",
      attr: null,
    });
    const created = await execute(s, CreateScheduledChange, { input: input() });
    if (created.data.createScheduledChange?.__typename !== "CreateScheduledChangeSuccess")
      throw new Error("not created");
    const id = String(created.data.createScheduledChange.scheduledChange.databaseId);
    const other = await createFlag(s, { key: "scheduled-graphql-other" });
    const moved = await execute(s, UpdateScheduledChange, {
      input: { projectId: String(s.projectId), id, featureFlagId: String(other.id) },
    });
    expect(moved.data.updateScheduledChange).toMatchObject({
      __typename: "ValidationError",
      message: "Cannot change the target record of an existing scheduled change.",
      attr: "record_id",
    });
    const early = await execute(s, UpdateScheduledChange, {
      input: {
        projectId: String(s.projectId),
        id,
        isRecurring: true,
        cronExpression: "0 9 * * *",
        endDate: "2098-01-01T00:00:00Z",
      },
    });
    expect(early.data.updateScheduledChange).toMatchObject({
      __typename: "ValidationError",
      message: "End date must be after the scheduled start date.",
      attr: "end_date",
    });
  });

  it("refuses a key without feature_flag:write, and another project's change", async () => {
    const reader = await s.createKey(["feature_flag:read"]);
    const refused = await execute(s, CreateScheduledChange, { input: input() }, reader);
    expect(refused.data.createScheduledChange).toEqual({
      __typename: "PermissionDeniedError",
      message: "API key missing required scope 'feature_flag:write'",
      code: "permission_denied",
    });
    const otherProject = await s.createProject("scheduled graphql other");
    const theirFlag = await createFlag(s, { key: "scheduled-graphql-theirs" }, otherProject);
    const theirs = await execute(s, CreateScheduledChange, {
      input: input({ projectId: String(otherProject), featureFlagId: String(theirFlag.id) }),
    });
    if (theirs.data.createScheduledChange?.__typename !== "CreateScheduledChangeSuccess")
      throw new Error("not created");
    const foreign = await execute(s, UpdateScheduledChange, {
      input: {
        projectId: String(s.projectId),
        id: String(theirs.data.createScheduledChange.scheduledChange.databaseId),
        isRecurring: false,
      },
    });
    expect(foreign.data.updateScheduledChange).toMatchObject({ __typename: "NotFoundError" });
  });

  it("is heard by featureFlagChanged subscribers when it applies", async () => {
    const target = await createFlag(s, {
      key: "scheduled-graphql-live",
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    });
    const stream = await subscribeSse(s.baseUrl, s.key, FLAG_CHANGED, {
      projectId: String(s.projectId),
      keys: ["scheduled-graphql-live"],
    });
    try {
      expect(stream.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const created = await execute(s, CreateScheduledChange, {
        input: input({
          featureFlagId: String(target.id),
          scheduledAt: new Date(Date.now() + 1_000).toISOString(),
        }),
      });
      expect(created.data.createScheduledChange?.__typename).toBe("CreateScheduledChangeSuccess");
      for (;;) {
        const event = await stream.next(8_000);
        if (event.event === "complete") throw new Error("the subscription completed");
        if (event.event !== "next" && event.event !== undefined) continue;
        expect(JSON.parse(event.data).data.featureFlagChanged).toEqual({
          activity: "updated",
          key: "scheduled-graphql-live",
          userId: s.userId,
          featureFlag: { key: "scheduled-graphql-live", active: false },
        });
        break;
      }
    } finally {
      stream.close();
    }
  });
});
