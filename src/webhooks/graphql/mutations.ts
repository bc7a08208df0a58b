/**
 * Webhook writes for GraphQL: create, update, rotate the secret, delete, through the same service
 * methods as REST (inputs re-encoded into REST's body, so the same rules and messages apply).
 */
import { NotFoundError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { mutationResult, WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { parseWebhookId, WebhookRef, WebhookWithSecretRef } from "./webhook.type.js";

const PROJECT_ID_DESCRIPTION =
  "The webhook's project: PostHog's integer id (REST's `:project_id`) or the project's global `id`.";
const ID_DESCRIPTION = "The webhook: its integer id or its global `id`.";

/** The writable fields, with their REST names. */
const FIELD_NAMES = { url: "url", kinds: "kinds", enabled: "enabled", description: "description" } as const;

/** The integer id of a mutation input's `id`. @throws NotFoundError for an id naming no webhook. */
function mutationId(raw: string): number {
  const id = parseWebhookId(raw);
  if (id === null) throw new NotFoundError();
  return id;
}

const CreateWebhookInput = builder.inputType("CreateWebhookInput", {
  description: "A new webhook (REST `POST webhooks/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    url: t.string({ required: true, description: "An http(s) URL without credentials." }),
    kinds: t.stringList({
      required: true,
      description:
        "Change kinds: `feature_flag.created|updated|deleted`, `experiment.*`, ... (at least one).",
    }),
    enabled: t.boolean({ description: "Deliver changes (default true)." }),
    description: t.string({ description: "Its description." }),
  }),
});

builder.mutationField("createWebhook", (t) =>
  t.field({
    type: WebhookWithSecretRef,
    nullable: true,
    description: "Creates a webhook; the answer holds its secret, shown this once. Scope `webhook:write`.",
    extensions: requiresScopes("webhook:write"),
    args: { input: t.arg({ type: CreateWebhookInput, required: true, description: "The new webhook." }) },
    errors: mutationResult({
      name: "CreateWebhook",
      field: "created",
      what: "The webhook and its secret",
      verb: "created",
      types: WRITE_ERRORS,
    }),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, ...fields } = input;
      return ctx.services.webhooks.create(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        postHogFields(fields, FIELD_NAMES),
      );
    },
  }),
);

const UpdateWebhookInput = builder.inputType("UpdateWebhookInput", {
  description: "Changes to a webhook (REST `PATCH webhooks/:id/`): an absent field keeps its value.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
    url: t.string({ description: "A new URL." }),
    kinds: t.stringList({ description: "New change kinds (at least one)." }),
    enabled: t.boolean({ description: "Turn deliveries on or off." }),
    description: t.string({ description: "A new description." }),
  }),
});

builder.mutationField("updateWebhook", (t) =>
  t.field({
    type: WebhookRef,
    nullable: true,
    description: "Changes a webhook. Scope `webhook:write`.",
    extensions: requiresScopes("webhook:write"),
    args: { input: t.arg({ type: UpdateWebhookInput, required: true, description: "The changes." }) },
    errors: mutationResult({
      name: "UpdateWebhook",
      field: "webhook",
      what: "The webhook",
      verb: "updated",
      types: WRITE_ERRORS,
    }),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, id, ...fields } = input;
      return ctx.services.webhooks.update(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        mutationId(id),
        postHogFields(fields, FIELD_NAMES),
        true,
      );
    },
  }),
);

const WebhookIdInput = (name: string, description: string) =>
  builder.inputType(name, {
    description,
    fields: (t) => ({
      projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
      id: t.id({ required: true, description: ID_DESCRIPTION }),
    }),
  });

const RotateWebhookSecretInput = WebhookIdInput(
  "RotateWebhookSecretInput",
  "A webhook whose secret to replace (REST `POST webhooks/:id/rotate_secret/`).",
);

builder.mutationField("rotateWebhookSecret", (t) =>
  t.field({
    type: WebhookWithSecretRef,
    nullable: true,
    description:
      "Gives a webhook a new secret, shown in this answer only; the old one stops signing at once. Scope `webhook:write`.",
    extensions: requiresScopes("webhook:write"),
    args: { input: t.arg({ type: RotateWebhookSecretInput, required: true, description: "Which webhook." }) },
    errors: mutationResult({
      name: "RotateWebhookSecret",
      field: "rotated",
      what: "The webhook and its new secret",
      verb: "rotated",
      types: WRITE_ERRORS,
    }),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.webhooks.rotateSecret(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationId(input.id),
      ),
  }),
);

const DeleteWebhookInput = WebhookIdInput(
  "DeleteWebhookInput",
  "A webhook to delete (REST `DELETE webhooks/:id/`).",
);

builder.mutationField("deleteWebhook", (t) =>
  t.field({
    type: WebhookRef,
    nullable: true,
    description: "Deletes a webhook and its delivery log; answers it as it was. Scope `webhook:write`.",
    extensions: requiresScopes("webhook:write"),
    args: { input: t.arg({ type: DeleteWebhookInput, required: true, description: "Which webhook." }) },
    errors: mutationResult({
      name: "DeleteWebhook",
      field: "webhook",
      what: "The webhook",
      verb: "deleted",
      types: WRITE_ERRORS,
    }),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.webhooks.remove(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationId(input.id),
      ),
  }),
);
