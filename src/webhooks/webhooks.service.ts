/**
 * Webhooks (issue 12 item 4): a project's subscriptions to change kinds (rules/kinds.ts), and the
 * delivery of each committed change to them.
 *
 * Guarantees:
 * - **Same transaction**: every activity-log entry of a delivered kind enqueues one delivery job per
 *   enabled matching subscription inside the write's own transaction (`enqueueWebhookDeliveries`, an
 *   `ActivityListener` the composition root registers; core/jobs/in-transaction.ts), so a rolled-back
 *   write sends nothing and a committed one is delivered even after a crash or restart.
 * - **Signed**: Standard Webhooks headers, `webhook-id` = the entry's id, stable across retries
 *   (delivery/signing.ts). The secret is shown once, at creation or rotation, never in reads.
 * - **Retried**: a network error, time-out or non-2xx answer fails the job, which the queue runs again
 *   after its back-off (core/jobs/jobs.ts `backoffMs`: 2.7 s, 7.4 s, 20 s, ...) until
 *   `WEBHOOK_MAX_ATTEMPTS`; a target refused before connecting is not retried (the URL must change).
 * - **Logged**: every attempt is a row of the delivery log (status code, time, attempt, error).
 * - **Safe targets**: delivery/ssrf.ts and delivery/send.ts (resolution checked, address pinned, no
 *   redirects, time and size limits).
 * Scopes `webhook:read|write`; activity scope `Webhook`. Writes lock the webhook's row and decide
 * from it (core/row-lock.ts): concurrent writers of one webhook take turns.
 */
import { type ActivityListener, changesBetween, recordActivity } from "../core/activity-log.js";
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { idRecordReads } from "../core/id-record-reads.js";
import { enqueueInTransaction } from "../core/jobs/in-transaction.js";
import { DEFAULT_MAX_ATTEMPTS, type JobRun } from "../core/jobs/jobs.js";
import type { OffsetPage } from "../core/paging.js";
import { databaseOf, type ServiceDeps } from "../core/services.js";
import { parseInput } from "../core/validation.js";
import { sendWebhook } from "./delivery/send.js";
import { newWebhookSecret, signedHeaders } from "./delivery/signing.js";
import { kindOf, subscribedBy } from "./rules/kinds.js";
import { checkWebhookUrl } from "./rules/url.js";
import {
  type DeliveryRecord,
  findWebhook,
  selectDeliveryPage,
  selectWebhookPage,
  selectWebhooks,
  type WebhookRecord,
  type WebhookWithSecret,
} from "./webhooks.queries.js";
import {
  createWebhookSchema,
  type DeliveryJob,
  rotateSecretSchema,
  updateWebhookSchema,
} from "./webhooks.schemas.js";
import {
  deleteWebhookRow,
  findDeliveredEntry,
  findDeliveryTarget,
  insertDeliveryAttempt,
  insertWebhook,
  lockWebhook,
  selectSubscribedWebhookIds,
  writeWebhookRow,
  writeWebhookSecret,
} from "./webhooks.store.js";

/** The delivery job's name (also graphile-worker's task identifier). */
export const WEBHOOK_DELIVERY_JOB = "webhook-delivery";

/** What the delivery log's `secret` change shows instead of a secret. */
const MASKED = "masked";

/** The fields an activity entry compares. */
const snapshot = (w: WebhookRecord) => ({
  url: w.url,
  kinds: w.kinds,
  enabled: w.enabled,
  description: w.description,
});

/**
 * The `ActivityListener` that enqueues deliveries: for an entry of a delivered kind, one job per
 * enabled webhook of the entry's project subscribed to the kind or its object's `*`, in the entry's
 * transaction. One statement for an entry of a delivered scope, two more when a webhook matches; none
 * for other scopes. Jobs are added with the queue's default attempts; the handler gives up earlier,
 * at `WEBHOOK_MAX_ATTEMPTS` (so the setting applies to jobs already queued).
 */
export const enqueueWebhookDeliveries: ActivityListener = async (tx, entry) => {
  const kind = kindOf(entry.scope, entry.activity);
  if (kind === null) return;
  const webhookIds = await selectSubscribedWebhookIds(tx, entry.projectId, subscribedBy(kind));
  await enqueueInTransaction(
    tx,
    webhookIds.map((webhookId) => ({
      name: WEBHOOK_DELIVERY_JOB,
      payload: { webhookId, eventId: entry.id, projectId: entry.projectId } satisfies DeliveryJob,
      maxAttempts: DEFAULT_MAX_ATTEMPTS,
    })),
  );
};

/** What a delivery job came to (logged by the queue at debug). */
export type DeliveryResult =
  | { delivered: true; statusCode: number | null }
  | { delivered: false; skipped: string }
  | { delivered: false; givenUp: string };

/** Creates the webhook service. */
export function createWebhookService(deps: ServiceDeps) {
  const settings = deps.config.webhooks;

  const reads = idRecordReads("webhook:read", {
    findOne: findWebhook,
    selectMany: selectWebhooks,
    selectPage: selectWebhookPage,
  });
  /** The webhook `id` of the project, unchecked (for the writes). @throws NotFoundError */
  const { find } = reads;

  return {
    /** One page of the project's webhooks, newest first: `{count, results}`. Scope `webhook:read`. */
    list: reads.list,

    /** One webhook (without its secret in any door). Scope `webhook:read`. @throws NotFoundError */
    get: reads.get,

    /**
     * Webhooks of project `projectId` by id, in order, null where the project has none with that id
     * (GraphQL's `node`/`nodes`). One statement after the project check. Scope `webhook:read`.
     */
    getMany: reads.getMany,

    /**
     * Creates a webhook with a new `whsec_` secret, returned this once as `revealedSecret`.
     * Activity `created`. Scope `webhook:write`.
     * @throws ValidationError (attr `url`: not http(s), credentials; `kinds`: unknown or none)
     */
    async create(ctx: ServiceContext, projectId: number, body: unknown): Promise<WebhookWithSecret> {
      const project = await authorizeProject(ctx, projectId, "webhook:write");
      const input = parseInput(createWebhookSchema, body, ctx.limits);
      const url = checkWebhookUrl(input.url);
      const secret = newWebhookSecret();
      const userId = ctx.actor.user.id;
      const created = await ctx.db.$transaction(async (tx) => {
        const row = await insertWebhook(
          tx,
          project.id,
          {
            url,
            kinds: [...new Set(input.kinds)],
            secret,
            enabled: input.enabled ?? true,
            description: input.description ?? "",
          },
          userId,
        );
        await recordActivity(tx, {
          projectId: project.id,
          userId,
          scope: "Webhook",
          itemId: String(row.id),
          activity: "created",
          name: row.url,
          changes: null,
        });
        return row;
      });
      return { ...created, revealedSecret: secret };
    },

    /**
     * Changes a webhook (PATCH: absent fields keep; PUT: `url` and `kinds` required). Activity
     * `updated` with the changed fields. Scope `webhook:write`. @throws NotFoundError, ValidationError
     */
    async update(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
      partial: boolean,
    ): Promise<WebhookRecord> {
      await authorizeProject(ctx, projectId, "webhook:write");
      await find(ctx, projectId, id);
      const input = parseInput(partial ? updateWebhookSchema : createWebhookSchema, body, ctx.limits);
      const url = input.url === undefined ? undefined : checkWebhookUrl(input.url);
      return ctx.db.$transaction(async (tx) => {
        const current = await lockWebhook(tx, projectId, id);
        const updated = await writeWebhookRow(
          tx,
          current.id,
          {
            url,
            kinds: input.kinds !== undefined ? [...new Set(input.kinds)] : undefined,
            enabled: input.enabled,
            description: input.description !== undefined ? (input.description ?? "") : undefined,
          },
          deps.now(),
        );
        await recordActivity(tx, {
          projectId,
          userId: ctx.actor.user.id,
          scope: "Webhook",
          itemId: String(id),
          activity: "updated",
          name: updated.url,
          changes: changesBetween("Webhook", snapshot(current), snapshot(updated)),
        });
        return updated;
      });
    },

    /**
     * Gives a webhook a new secret, returned this once as `revealedSecret`; the old one stops signing
     * at once (deliveries already queued are signed with the new one). Activity `updated` (field
     * `secret`, masked). `body` takes no field (a JSON object; REST's request body, `{}` from GraphQL).
     * Scope `webhook:write`. @throws NotFoundError, ValidationError (a body that is not an object, or nested too deep)
     */
    async rotateSecret(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown = {},
    ): Promise<WebhookWithSecret> {
      await authorizeProject(ctx, projectId, "webhook:write");
      await find(ctx, projectId, id);
      parseInput(rotateSecretSchema, body, ctx.limits);
      const secret = newWebhookSecret();
      const updated = await ctx.db.$transaction(async (tx) => {
        const current = await lockWebhook(tx, projectId, id);
        const row = await writeWebhookSecret(tx, current.id, secret, deps.now());
        await recordActivity(tx, {
          projectId,
          userId: ctx.actor.user.id,
          scope: "Webhook",
          itemId: String(id),
          activity: "updated",
          name: row.url,
          changes: [{ type: "Webhook", action: "changed", field: "secret", before: MASKED, after: MASKED }],
        });
        return row;
      });
      return { ...updated, revealedSecret: secret };
    },

    /**
     * Deletes a webhook and its delivery log; its queued deliveries find it gone. Returns it as it
     * was. Activity `deleted`. Scope `webhook:write`. @throws NotFoundError
     */
    async remove(ctx: ServiceContext, projectId: number, id: number): Promise<WebhookRecord> {
      await authorizeProject(ctx, projectId, "webhook:write");
      return ctx.db.$transaction(async (tx) => {
        // Of concurrent deletes the first deletes; the others find no row (404).
        const current = await lockWebhook(tx, projectId, id);
        await deleteWebhookRow(tx, current.id);
        await recordActivity(tx, {
          projectId,
          userId: ctx.actor.user.id,
          scope: "Webhook",
          itemId: String(id),
          activity: "deleted",
          name: current.url,
          changes: null,
        });
        return current;
      });
    },

    /**
     * One page of a webhook's delivery log, newest first: `{count, results}`, one row per attempt.
     * Scope `webhook:read`. @throws NotFoundError
     */
    async listDeliveries(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      page: OffsetPage,
    ): Promise<{ count: number; results: DeliveryRecord[] }> {
      await authorizeProject(ctx, projectId, "webhook:read");
      const webhook = await find(ctx, projectId, id);
      return selectDeliveryPage(ctx.db, projectId, webhook.id, page);
    },

    /**
     * Runs one delivery attempt (the `webhook-delivery` job): reads the webhook and the entry, signs
     * and sends the payload, and logs the attempt. Resolves when delivered, skipped (webhook deleted or
     * disabled, entry gone) or given up (target refused, or the last attempt failed).
     * @throws Error (the receiver's failure) to have the queue retry it after its back-off.
     */
    async deliver(job: DeliveryJob, run: JobRun): Promise<DeliveryResult> {
      const db = databaseOf(deps, "webhook service").prisma;
      const webhook = await findDeliveryTarget(db, job.projectId, job.webhookId);
      if (!webhook) return { delivered: false, skipped: "the webhook was deleted" };
      if (!webhook.enabled) return { delivered: false, skipped: "the webhook is disabled" };
      const entry = await findDeliveredEntry(db, job.projectId, job.eventId);
      const kind = entry ? kindOf(entry.scope, entry.activity) : null;
      if (!entry || kind === null) return { delivered: false, skipped: "the change is no longer logged" };
      const body = JSON.stringify({
        type: kind,
        timestamp: entry.createdAt.toISOString(),
        data: {
          event_id: entry.id,
          kind,
          project_id: entry.projectId,
          scope: entry.scope,
          item_id: entry.itemId,
          activity: entry.activity,
          detail: entry.detail,
          user: entry.user
            ? {
                id: entry.user.id,
                uuid: entry.user.uuid,
                email: entry.user.email,
                first_name: entry.user.firstName,
              }
            : null,
          is_system: entry.isSystem === true || entry.userId === null,
          created_at: entry.createdAt.toISOString(),
        },
      });
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = signedHeaders(webhook.secret, entry.id, timestamp, body);
      const outcome = await sendWebhook(webhook.url, headers, body, settings);
      await insertDeliveryAttempt(db, {
        projectId: job.projectId,
        webhookId: webhook.id,
        eventId: entry.id,
        kind,
        attempt: run.attempt,
        status: outcome.error === null ? "succeeded" : "failed",
        statusCode: outcome.statusCode,
        responseTimeMs: outcome.responseTimeMs,
        error: outcome.error,
      });
      if (outcome.error === null) return { delivered: true, statusCode: outcome.statusCode };
      if (outcome.refused) return { delivered: false, givenUp: outcome.error };
      if (run.attempt >= Math.min(settings.maxAttempts, run.maxAttempts)) {
        return { delivered: false, givenUp: `${outcome.error} (attempt ${run.attempt}, the last)` };
      }
      throw new Error(`webhook ${webhook.id} delivery of ${entry.id} failed: ${outcome.error}`);
    },
  };
}

/** The webhook service's operations. */
export type WebhookService = ReturnType<typeof createWebhookService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createWebhookService`. */
    webhooks: WebhookService;
  }
}

declare module "../core/activity-log.js" {
  interface ActivityScopes {
    /** Webhook subscriptions' entries (src/webhooks/): not themselves delivered. */
    Webhook: true;
  }
}

declare module "../core/row-lock.js" {
  interface LockableTables {
    /** Webhooks (`id` integer). */
    webhooks: number;
  }
}
