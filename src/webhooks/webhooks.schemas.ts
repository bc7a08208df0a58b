/**
 * Inputs of the webhook operations, in REST's field names (GraphQL re-encodes into them, so one
 * schema validates both doors). Unknown fields are ignored, as DRF does. The URL's own rules
 * (scheme, credentials) are in rules/url.ts; kinds are those of rules/kinds.ts.
 */
import { z } from "zod";
import { drf } from "../core/validation.js";
import { WEBHOOK_KINDS } from "./rules/kinds.js";
import { MAX_URL_LENGTH } from "./rules/url.js";

/** A DRF `CharField` refusing a NUL in the field's own validation (the service's other text fields do). */
const text = (options: { maxLength?: number; allowBlank?: boolean } = {}) =>
  drf.string(options).refine((value) => !value.includes("\u0000"), {
    message: "Null characters are not allowed.",
    params: { code: "null_characters_not_allowed" },
  });

/** One change kind: `<object>.<action>` or `<object>.*` (rules/kinds.ts); a NUL refused first, as in every text field. */
const kind = text().refine((value) => WEBHOOK_KINDS.includes(value), {
  message: `Not a change kind: use one of ${WEBHOOK_KINDS.join(", ")}.`,
  params: { code: "invalid_choice" },
});

/**
 * A new webhook's fields. The first failing field is reported, in this order: `kinds` last, so that a
 * text field's own problem (a NUL) is reported before a choice the caller left unfinished.
 */
export const createWebhookSchema = z.object({
  url: text({ maxLength: MAX_URL_LENGTH, allowBlank: false }),
  description: text({ maxLength: 400 }).nullish(),
  enabled: drf.boolean().optional(),
  kinds: z.array(kind).min(1, { message: "Subscribe to at least one kind." }).max(WEBHOOK_KINDS.length),
});

/** A webhook's partial update (PATCH); PUT takes `createWebhookSchema`. */
export const updateWebhookSchema = createWebhookSchema.partial();

/** `rotate_secret`'s body: nothing to give (unknown fields ignored, as DRF does; a non-object body refused). */
export const rotateSecretSchema = z.object({});

/** A webhook's writable fields, as parsed. */
export type WebhookInput = z.output<typeof updateWebhookSchema>;

/** The delivery job's payload: which webhook, which activity-log entry. */
export const deliveryJobSchema = z.object({
  webhookId: z.int().positive(),
  eventId: z.uuid(),
  projectId: z.int().positive(),
});

/** A delivery job's payload. */
export type DeliveryJob = z.output<typeof deliveryJobSchema>;
