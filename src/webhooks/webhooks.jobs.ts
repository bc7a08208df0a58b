/**
 * The webhooks' job: `webhook-delivery`, one attempt to deliver one activity-log entry to one
 * webhook, enqueued in the write's transaction (webhooks.service.ts `enqueueWebhookDeliveries`) and
 * retried by the queue with its back-off while the handler throws.
 */
import { DEFAULT_MAX_ATTEMPTS, type JobModule } from "../core/jobs/jobs.js";
import { deliveryJobSchema } from "./webhooks.schemas.js";
import { WEBHOOK_DELIVERY_JOB } from "./webhooks.service.js";

/** The webhook delivery job definition. */
export const webhookJobs: JobModule = ({ services }) => [
  {
    name: WEBHOOK_DELIVERY_JOB,
    payload: deliveryJobSchema,
    // The ceiling; the handler gives up at WEBHOOK_MAX_ATTEMPTS (≤ 25) itself.
    maxAttempts: DEFAULT_MAX_ATTEMPTS,
    // The queue parsed the payload with the schema already; parsing again types it.
    handler: (payload, run) => services.webhooks.deliver(deliveryJobSchema.parse(payload), run),
  },
];
