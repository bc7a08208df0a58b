/**
 * The approval mutations: `approveChangeRequest`, `rejectChangeRequest`, `cancelChangeRequest` (REST
 * `change_requests/:id/approve|reject|cancel/`) and `createApprovalPolicy`, `updateApprovalPolicy`,
 * `deleteApprovalPolicy` (REST `approval_policies/`), through the same service methods (inputs
 * re-encoded into REST's bodies, so the same rules and messages apply).
 */
import { encodeGlobalID } from "@pothos/plugin-relay";
import { NotFoundError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId, projectOwnedLocalId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { mutationResult, WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { ChangeRequestActionError } from "../approvals.errors.js";
import type { Decision } from "../approvals.service.js";
import { ApprovalPolicyRef, ChangeRequestRef, parseChangeRequestId, parsePolicyId } from "./types.js";

/** The UUID an id input names (its UUID or global id). @throws NotFoundError for one naming none. */
function mutationId(raw: string, parse: (raw: string) => string | null): string {
  const id = parse(raw);
  if (id === null) throw new NotFoundError();
  return id;
}

const PROJECT_ID = "The project: PostHog's integer id or the project's global `id`.";

const DecisionRef = builder.objectRef<Decision>("ChangeRequestDecision").implement({
  description: "What a vote or a cancel did (REST's `{status, message, change_request, result}`).",
  fields: (t) => ({
    id: t.id({
      description: "The change request's global id (as `changeRequest.id`).",
      resolve: (d) =>
        encodeGlobalID("ChangeRequest", projectOwnedLocalId(d.changeRequest.projectId, d.changeRequest.id)),
    }),
    status: t.exposeString("status", {
      description: "`approved` (recorded, or quorum reached), `applied`, `failed`, `rejected` or `canceled`.",
    }),
    message: t.exposeString("message", { description: "What happened, for people." }),
    changeRequest: t.field({
      type: ChangeRequestRef,
      description: "The request after it.",
      resolve: (d) => d.changeRequest,
    }),
    result: t.field({
      type: "JSON",
      nullable: true,
      description: "`{resource_id, resource_version}` when the vote applied the change.",
      resolve: (d) => d.result ?? null,
    }),
  }),
});

for (const [name, action, verb, description] of [
  [
    "approveChangeRequest",
    "approve",
    "approved",
    "Approves a pending change request (REST `change_requests/:id/approve/`); at quorum the change is applied at once as its requester, or fails if its resource changed since.",
  ],
  [
    "rejectChangeRequest",
    "reject",
    "rejected",
    "Rejects a pending change request with a `reason` (required); one rejection ends it (REST `reject/`).",
  ],
  [
    "cancelChangeRequest",
    "cancel",
    "canceled",
    "Cancels your own pending change request, while it has no approval or once it is stale (REST `cancel/`).",
  ],
] as const) {
  const Name = `${name[0]!.toUpperCase()}${name.slice(1)}`;
  const Input = builder.inputType(`${Name}Input`, {
    description: `Which change request, and why (REST \`${action}/\`'s body).`,
    fields: (t) => ({
      projectId: t.id({ required: true, description: PROJECT_ID }),
      id: t.id({ required: true, description: "The change request's UUID." }),
      reason: t.string({ description: action === "reject" ? "Why (required)." : "An optional note." }),
    }),
  });
  builder.mutationField(name, (t) =>
    t.field({
      type: DecisionRef,
      nullable: true,
      description: `${description} Scope \`approvals:write\`.`,
      extensions: requiresScopes("approvals:write"),
      args: { input: t.arg({ type: Input, required: true, description: "The request and the reason." }) },
      errors: mutationResult({
        name: Name,
        field: "decision",
        what: "The change request",
        verb,
        types: [...WRITE_ERRORS, ChangeRequestActionError],
      }),
      resolve: async (_root, { input }, ctx) =>
        ctx.services.approvals[action](
          await ctx.serviceContext(),
          parseProjectId(input.projectId),
          mutationId(String(input.id), parseChangeRequestId),
          input.reason == null ? {} : { reason: input.reason },
        ),
    }),
  );
}

/** The writable policy fields, with their REST names. */
const POLICY_FIELDS = {
  actionKey: "action_key",
  conditions: "conditions",
  approverConfig: "approver_config",
  allowSelfApprove: "allow_self_approve",
  bypassOrgMembershipLevels: "bypass_org_membership_levels",
  expiresAfter: "expires_after",
  enabled: "enabled",
} as const;

const ApproverConfigInput = builder.inputType("ApproverConfigInput", {
  description: "Who approves (REST's `approver_config`).",
  fields: (t) => ({
    quorum: t.int({ required: true, description: "How many approvals apply the change (at least 1)." }),
    users: t.intList({ description: "The approvers' user ids." }),
  }),
});

const policyInputFields =
  (required: boolean) => (t: PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">) => ({
    actionKey: t.string({ required, description: "The gated action, e.g. `feature_flag.enable`." }),
    conditions: t.field({
      type: "JSON",
      description: "`{}` (every change) or `{type, field, operator, value}`.",
    }),
    approverConfig: t.field({
      type: ApproverConfigInput,
      required,
      description: "Who approves, and how many.",
    }),
    allowSelfApprove: t.boolean({ description: "Whether requesters may approve their own (default false)." }),
    bypassOrgMembershipLevels: t.intList({
      description: "Membership levels whose writes pass (8 admin, 15 owner).",
    }),
    expiresAfter: t.string({
      description: "How long requests stay open: `14 00:00:00` or `P14D` (default 14 days).",
    }),
    enabled: t.boolean({ description: "Whether it gates writes (default true)." }),
  });

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const CreateInput = builder.inputType("CreateApprovalPolicyInput", {
  description: "A new approval policy (REST `POST approval_policies/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID }),
    ...policyInputFields(true)(t),
  }),
});

const UpdateInput = builder.inputType("UpdateApprovalPolicyInput", {
  description:
    "Changes to an approval policy (REST `PATCH approval_policies/:id/`): absent fields keep their value.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID }),
    id: t.id({ required: true, description: "The policy's UUID." }),
    ...policyInputFields(false)(t),
  }),
});

const DeleteInput = builder.inputType("DeleteApprovalPolicyInput", {
  description: "The approval policy to delete.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID }),
    id: t.id({ required: true, description: "The policy's UUID." }),
  }),
});

const policyResult = (name: string, verb: string) =>
  mutationResult({ name, field: "approvalPolicy", what: "The approval policy", verb, types: WRITE_ERRORS });

builder.mutationField("createApprovalPolicy", (t) =>
  t.field({
    type: ApprovalPolicyRef,
    nullable: true,
    description: "Creates an approval policy (organization admins). Scope `approvals:write`.",
    extensions: requiresScopes("approvals:write"),
    args: { input: t.arg({ type: CreateInput, required: true, description: "The policy." }) },
    errors: policyResult("CreateApprovalPolicy", "created"),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, ...fields } = input;
      return ctx.services.approvals.createPolicy(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        postHogFields(fields, POLICY_FIELDS),
      );
    },
  }),
);

builder.mutationField("updateApprovalPolicy", (t) =>
  t.field({
    type: ApprovalPolicyRef,
    nullable: true,
    description: "Changes an approval policy (organization admins). Scope `approvals:write`.",
    extensions: requiresScopes("approvals:write"),
    args: { input: t.arg({ type: UpdateInput, required: true, description: "The changes." }) },
    errors: policyResult("UpdateApprovalPolicy", "updated"),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, id, ...fields } = input;
      return ctx.services.approvals.updatePolicy(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        mutationId(String(id), parsePolicyId),
        postHogFields(fields, POLICY_FIELDS),
        true,
      );
    },
  }),
);

builder.mutationField("deleteApprovalPolicy", (t) =>
  t.field({
    type: ApprovalPolicyRef,
    nullable: true,
    description:
      "Deletes an approval policy (organization admins) and answers it as it was. Scope `approvals:write`.",
    extensions: requiresScopes("approvals:write"),
    args: { input: t.arg({ type: DeleteInput, required: true, description: "The policy." }) },
    errors: policyResult("DeleteApprovalPolicy", "deleted"),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.approvals.deletePolicy(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        String(input.id),
      ),
  }),
);
