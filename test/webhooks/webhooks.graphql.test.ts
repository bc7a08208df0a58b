/**
 * Webhooks through the GraphQL door, on both backends: create (the secret once), the
 * `Project.webhooks` connection and `Project.webhook`, update, rotate, delete and the delivery log
 * connection, with the service's rules as typed errors (bad input, missing scope, another project's id).
 */
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

const CreateWebhook = graphql(`
  mutation CreateWebhook($input: CreateWebhookInput!) {
    createWebhook(input: $input) {
      __typename
      ... on CreateWebhookSuccess { created { secret webhook { databaseId url kinds enabled description } } }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const UpdateWebhook = graphql(`
  mutation UpdateWebhook($input: UpdateWebhookInput!) {
    updateWebhook(input: $input) {
      __typename
      ... on UpdateWebhookSuccess { webhook { databaseId enabled kinds } }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const RotateAndDelete = graphql(`
  mutation RotateAndDeleteWebhook($project: ID!, $id: ID!) {
    rotateWebhookSecret(input: { projectId: $project, id: $id }) {
      __typename
      ... on RotateWebhookSecretSuccess { rotated { secret webhook { databaseId } } }
      ... on Error { message code }
    }
    deleteWebhook(input: { projectId: $project, id: $id }) {
      __typename
      ... on DeleteWebhookSuccess { webhook { databaseId url } }
      ... on Error { message code }
    }
  }
`);

const Webhooks = graphql(`
  query ProjectWebhooks($project: ID!, $id: ID!) {
    project(id: $project) {
      webhooks(first: 10) { totalCount edges { node { databaseId url } } }
      webhook(id: $id) {
        databaseId
        url
        createdBy { email }
        deliveries(first: 5) { totalCount edges { node { attempt status statusCode } } }
      }
    }
  }
`);

describeEachBackend("webhooks over GraphQL", (server) => {
  let s: TestServer;
  let other: number;
  beforeAll(async () => {
    s = server();
    other = await s.createProject("graphql webhooks other");
  });

  const create = (projectId: number, url: string, kinds: string[], key?: string) =>
    execute(s, CreateWebhook, { input: { projectId: String(projectId), url, kinds } }, key);

  it("creates, lists, updates, rotates and deletes a webhook", async () => {
    const created = await create(s.projectId, "https://hooks.example.com/gql", ["endpoint.*"]);
    const success = created.data.createWebhook;
    if (success?.__typename !== "CreateWebhookSuccess") throw new Error(JSON.stringify(created));
    expect(success.created.secret).toMatch(/^whsec_/);
    expect(success.created.webhook).toMatchObject({ url: "https://hooks.example.com/gql", enabled: true });
    const id = String(success.created.webhook.databaseId);

    const read = await execute(s, Webhooks, { project: String(s.projectId), id });
    expect(read.errors).toBeUndefined();
    expect(read.data.project?.webhooks?.totalCount).toBeGreaterThanOrEqual(1);
    expect(read.data.project?.webhook).toMatchObject({
      url: "https://hooks.example.com/gql",
      createdBy: { email: "admin@example.com" },
      deliveries: { totalCount: 0, edges: [] },
    });

    const updated = await execute(s, UpdateWebhook, {
      input: { projectId: String(s.projectId), id, enabled: false, kinds: ["cohort.deleted"] },
    });
    expect(updated.data.updateWebhook).toEqual({
      __typename: "UpdateWebhookSuccess",
      webhook: { databaseId: Number(id), enabled: false, kinds: ["cohort.deleted"] },
    });

    const gone = await execute(s, RotateAndDelete, { project: String(s.projectId), id });
    const rotated = gone.data.rotateWebhookSecret;
    if (rotated?.__typename !== "RotateWebhookSecretSuccess") throw new Error(JSON.stringify(gone));
    expect(rotated.rotated.secret).not.toBe(success.created.secret);
    expect(gone.data.deleteWebhook).toMatchObject({ __typename: "DeleteWebhookSuccess" });
    const after = await execute(s, Webhooks, { project: String(s.projectId), id });
    expect(after.data.project?.webhook).toBeNull();
  });

  it("answers bad input, a missing scope and another project's webhook with typed errors", async () => {
    const badUrl = await create(s.projectId, "ftp://files.example.com/", ["endpoint.*"]);
    expect(badUrl.data.createWebhook).toMatchObject({ __typename: "ValidationError", attr: "url" });
    const badKind = await create(s.projectId, "https://example.com/", ["flag.changed"]);
    expect(badKind.data.createWebhook).toMatchObject({ __typename: "ValidationError", attr: "kinds__0" });

    const key = await s.createKey(["webhook:read"]);
    const denied = await create(s.projectId, "https://example.com/", ["endpoint.*"], key);
    expect(denied.data.createWebhook).toEqual({
      __typename: "PermissionDeniedError",
      message: "API key missing required scope 'webhook:write'",
      code: "permission_denied",
    });

    const theirs = await create(other, "https://example.com/theirs", ["endpoint.*"]);
    if (theirs.data.createWebhook?.__typename !== "CreateWebhookSuccess") throw new Error("not created");
    const id = String(theirs.data.createWebhook.created.webhook.databaseId);
    const foreign = await execute(s, UpdateWebhook, {
      input: { projectId: String(s.projectId), id, enabled: false },
    });
    expect(foreign.data.updateWebhook).toMatchObject({ __typename: "NotFoundError", code: "not_found" });
    const read = await execute(s, Webhooks, { project: String(s.projectId), id });
    expect(read.data.project?.webhook).toBeNull();
  });
});
