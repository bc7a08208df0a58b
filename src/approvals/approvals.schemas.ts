/**
 * Inputs of the approval operations, in REST's field names (GraphQL re-encodes into them): a policy's
 * fields as `ApprovalPolicySerializer` validates them, and the bodies of approve, reject and cancel
 * (products/approvals/backend/serializers.py). Unknown fields are ignored, as DRF does.
 */
import { z } from "zod";
import { drf } from "../core/validation.js";
import { parseDuration } from "./rules/duration.js";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `approver_config`: an object with `quorum` ≥ 1 (PostHog's `validate_approver_config`) and `users` as user ids. */
const approverConfig = z
  .custom<Record<string, unknown>>((value) => isRecord(value), { message: "Expected a dictionary of items." })
  .refine((value) => typeof value["quorum"] === "number" && value["quorum"] >= 1, {
    message: "Quorum must be at least 1",
    params: { code: "invalid" },
  })
  .refine(
    (value) =>
      value["users"] === undefined ||
      (Array.isArray(value["users"]) && value["users"].every((id) => Number.isSafeInteger(id))),
    { message: "Approver users must be a list of user ids.", params: { code: "invalid" } },
  );

/** `conditions`: an object (`{}` gates every change of the action). */
const conditions = z.custom<Record<string, unknown>>((value) => isRecord(value), {
  message: "Expected a dictionary of items.",
});

/** `bypass_org_membership_levels`: integers (PostHog's `validate_bypass_org_membership_levels`). */
const levels = z.preprocess(
  (value) =>
    Array.isArray(value)
      ? value.map((level) => (typeof level === "string" && /^-?\d+$/.test(level) ? Number(level) : level))
      : value,
  z.array(z.int({ message: "All membership levels must be integers" }), {
    message: 'Expected a list of items but got type "dict".',
  }),
);

/** `bypass_roles`: role ids; roles are not built, so any id is one that does not exist. */
const roles = z.array(z.string()).refine((ids) => ids.length === 0, {
  error: (issue) => `Roles do not exist: ${(issue.input as string[]).join(", ")}`,
  params: { code: "invalid" },
});

/** `expires_after`: a Django duration (`14 00:00:00`, `P14D`), as microseconds; a NUL refused first, as in every text field. */
const duration = z
  .string()
  .refine((text) => !text.includes("\u0000"), {
    message: "Null characters are not allowed.",
    params: { code: "null_characters_not_allowed" },
  })
  .transform((text, ctx) => {
    const micros = parseDuration(text);
    if (micros === null) {
      ctx.addIssue({
        code: "custom",
        message: "Duration has wrong format. Use one of these formats instead: [DD] [HH:[MM:]]ss[.uuuuuu].",
        params: { code: "invalid" },
      });
      return z.NEVER;
    }
    return micros;
  });

/** A new policy (POST; PUT takes it too). */
export const createPolicySchema = z.object({
  action_key: drf.string({ maxLength: 128, allowBlank: false }),
  conditions: conditions.optional(),
  approver_config: approverConfig,
  allow_self_approve: drf.boolean().optional(),
  bypass_org_membership_levels: levels.optional(),
  bypass_roles: roles.optional(),
  expires_after: duration.optional(),
  enabled: drf.boolean().optional(),
});

/** A policy's partial update (PATCH). */
export const updatePolicySchema = createPolicySchema.partial();

/** `approve`'s body: an optional reason. */
export const approveSchema = z.object({ reason: z.string().optional() });

/** `reject`'s body: a reason, required (checked by the service with PostHog's own message). */
export const rejectSchema = z.object({ reason: z.string().optional() });

/** `cancel`'s body: an optional reason (default "Canceled by requester"). */
export const cancelSchema = z.object({ reason: z.string().optional() });
