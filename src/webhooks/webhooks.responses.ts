/**
 * Webhooks and their delivery log as the REST door answers them, written once as zod schemas: the
 * serialisers return their types, fastify writes bodies with them (exactly these properties, so a
 * secret can only appear where a schema names it), the OpenAPI document names them.
 */
import { z } from "zod";
import { drfDateTime } from "../rest/date-time.js";
import { paginatedListSchema } from "../rest/pagination.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";
import type { DeliveryRecord, WebhookRecord, WebhookWithSecret } from "./webhooks.queries.js";

/** A webhook, without its secret. */
export const webhookSchema = z
  .object({
    id: z.int(),
    url: z.string(),
    kinds: z.array(z.string()).describe("Change kinds delivered: `<object>.<action>` or `<object>.*`."),
    enabled: z.boolean(),
    description: z.string(),
    created_by: userBasicSchema.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Webhook" });

/** A webhook with its secret: the answer of creation and rotation only. */
export const webhookWithSecretSchema = webhookSchema
  .extend({
    secret: z
      .string()
      .describe("`whsec_<base64>`: the Standard Webhooks signing secret. Shown only in this answer."),
  })
  .meta({ id: "WebhookWithSecret" });

/** One delivery attempt. */
export const deliverySchema = z
  .object({
    id: z.uuid(),
    event_id: z.uuid().describe("The activity-log entry delivered (the `webhook-id` header)."),
    kind: z.string(),
    attempt: z.int().describe("1 for the first try, counting retries."),
    status: z.enum(["succeeded", "failed"]),
    status_code: z.int().nullable().describe("The receiver's HTTP status; null when none came."),
    response_time_ms: z.int().nullable(),
    error: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "WebhookDelivery" });

/** A page of webhooks. */
export const webhookPageSchema = paginatedListSchema(webhookSchema, "PaginatedWebhookList");

/** A page of delivery attempts. */
export const deliveryPageSchema = paginatedListSchema(deliverySchema, "PaginatedWebhookDeliveryList");

/** A webhook in its REST shape (never the secret). */
export function serializeWebhook(w: WebhookRecord): z.output<typeof webhookSchema> {
  return {
    id: w.id,
    url: w.url,
    kinds: w.kinds,
    enabled: w.enabled,
    description: w.description,
    created_by: w.createdBy ? serializeUserBasic(w.createdBy) : null,
    created_at: drfDateTime(w.createdAt),
    updated_at: drfDateTime(w.updatedAt),
  };
}

/** A webhook with the secret it was just given (creation, rotation). */
export function serializeWebhookWithSecret(w: WebhookWithSecret): z.output<typeof webhookWithSecretSchema> {
  return { ...serializeWebhook(w), secret: w.revealedSecret };
}

/** A delivery attempt in its REST shape. */
export function serializeDelivery(d: DeliveryRecord): z.output<typeof deliverySchema> {
  return {
    id: d.id,
    event_id: d.eventId,
    kind: d.kind,
    attempt: d.attempt,
    status: d.status === "succeeded" ? "succeeded" : "failed",
    status_code: d.statusCode,
    response_time_ms: d.responseTimeMs,
    error: d.error,
    created_at: drfDateTime(d.createdAt),
  };
}
