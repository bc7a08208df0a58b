/**
 * How webhooks are kept: every write of the webhook tables (the webhook's row, its delivery log) and
 * every read a write decides from (the webhook's row locked for a write, the webhooks an activity
 * entry is delivered to, the webhook a delivery job sends to and the activity entry it sends). The service says what happens
 * (webhooks.service.ts); this module says how it is stored. Reads that answer callers are the read
 * model's (webhooks.queries.ts).
 *
 * Invariant: every statement filters by `project_id` or by a row id read under it. A write of a
 * request takes the transaction it belongs to (`tx`), never the client; the delivery job's reads and
 * its delivery-log row are single statements on the client (`db`), in no transaction.
 */
import { lockAndRead } from "../core/row-lock.js";
import { writeRowChange } from "../db/row-change.js";
import { type ActivityLog, Prisma, type Webhook } from "../generated/prisma/client.js";
import { type Db, findWebhook, WEBHOOK_INCLUDE, type WebhookRecord } from "./webhooks.queries.js";

/** A new webhook's fields, as decided (kinds without duplicates, defaults applied). */
export interface NewWebhook {
  url: string;
  /** Change kinds (rules/kinds.ts), each once. */
  kinds: string[];
  /** `whsec_<base64>`. */
  secret: string;
  enabled: boolean;
  description: string;
}

/** What an update writes over a webhook's row; an absent (undefined) field keeps its value. */
export interface WebhookChange {
  url?: string | undefined;
  /** Change kinds (rules/kinds.ts), each once. */
  kinds?: string[] | undefined;
  enabled?: boolean | undefined;
  description?: string | undefined;
}

/** The fields of a webhook an update writes (`WebhookChange`'s). */
const CHANGEABLE = ["url", "kinds", "enabled", "description"] as const;

/** One delivery attempt, as the delivery log keeps it. */
export interface DeliveryAttempt {
  projectId: number;
  webhookId: number;
  /** The activity-log entry delivered (UUID). */
  eventId: string;
  kind: string;
  /** 1 for the first try, counting retries. */
  attempt: number;
  status: "succeeded" | "failed";
  /** The receiver's HTTP status; null when no answer came. */
  statusCode: number | null;
  /** Milliseconds from the request's start to the answer's headers (or the failure); null when not timed. */
  responseTimeMs: number | null;
  error: string | null;
}

/**
 * Locks webhook `id`'s row in `tx` (core/row-lock.ts, PostHog's `select_for_update`) and reads it
 * again, its creator included: the state a write decides from, which no other writer changes until
 * `tx` ends. @throws NotFoundError when the project has no such webhook (or a writer before deleted it).
 */
export function lockWebhook(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: number,
): Promise<WebhookRecord> {
  return lockAndRead(tx, "webhooks", id, () => findWebhook(tx, projectId, id));
}

/**
 * The ids of the project's enabled webhooks subscribed to any of `kinds`, ascending: those an
 * activity entry is delivered to, read in the entry's transaction. One hand-written statement (every
 * logged write sends it; a Prisma model read cost about twice its CPU).
 */
export async function selectSubscribedWebhookIds(
  tx: Prisma.TransactionClient,
  projectId: number,
  kinds: string[],
): Promise<number[]> {
  const webhooks = await tx.$queryRaw<Array<{ id: number }>>(Prisma.sql`
    SELECT id FROM webhooks WHERE project_id = ${projectId} AND enabled AND kinds && ${kinds}::text[]
    ORDER BY id`);
  return webhooks.map((webhook) => webhook.id);
}

/** Inserts a webhook of the project with `webhook`'s fields, created by `userId`. Returns it as written, its creator included. */
export function insertWebhook(
  tx: Prisma.TransactionClient,
  projectId: number,
  webhook: NewWebhook,
  userId: number,
): Promise<WebhookRecord> {
  return tx.webhook.create({
    data: {
      projectId,
      url: webhook.url,
      kinds: webhook.kinds,
      secret: webhook.secret,
      enabled: webhook.enabled,
      description: webhook.description,
      createdById: userId,
    },
    include: WEBHOOK_INCLUDE,
  });
}

/**
 * Writes `change` over webhook `id`'s row, locked in `tx`, updated at `now`. Returns it as written,
 * its creator included.
 */
export function writeWebhookRow(
  tx: Prisma.TransactionClient,
  id: number,
  change: WebhookChange,
  now: Date,
): Promise<WebhookRecord> {
  return writeRowChange(tx.webhook, id, change, CHANGEABLE, now, WEBHOOK_INCLUDE);
}

/**
 * Writes `secret` (`whsec_<base64>`) as webhook `id`'s signing key, its row locked in `tx`, updated
 * at `now`. Returns it as written, its creator included.
 */
export function writeWebhookSecret(
  tx: Prisma.TransactionClient,
  id: number,
  secret: string,
  now: Date,
): Promise<WebhookRecord> {
  return tx.webhook.update({
    where: { id },
    data: { secret, updatedAt: now },
    include: WEBHOOK_INCLUDE,
  });
}

/** Removes webhook `id`'s row, locked in `tx`; its delivery log goes with it (cascade). */
export async function deleteWebhookRow(tx: Prisma.TransactionClient, id: number): Promise<void> {
  await tx.webhook.delete({ where: { id } });
}

/**
 * Webhook `webhookId` of the project as a delivery job reads it (its row, secret included, no
 * creator), or null when it is gone. One statement.
 */
export function findDeliveryTarget(db: Db, projectId: number, webhookId: number): Promise<Webhook | null> {
  return db.webhook.findFirst({ where: { id: webhookId, projectId } });
}

/** Appends `attempt` to the delivery log (its id and `created_at` the table's defaults). One statement. */
export async function insertDeliveryAttempt(db: Db, attempt: DeliveryAttempt): Promise<void> {
  await db.webhookDelivery.create({
    data: {
      projectId: attempt.projectId,
      webhookId: attempt.webhookId,
      eventId: attempt.eventId,
      kind: attempt.kind,
      attempt: attempt.attempt,
      status: attempt.status,
      statusCode: attempt.statusCode,
      responseTimeMs: attempt.responseTimeMs,
      error: attempt.error,
    },
  });
}

/** An activity-log entry as a delivery job sends it, with its user (null: system activity, or the user is gone). */
export type DeliveredEntry = ActivityLog & {
  user: { id: number; uuid: string; email: string; firstName: string } | null;
};

/**
 * Activity-log entry `eventId` (UUID) of the project with its user, as a delivery job reads it, or
 * null when it is gone. One statement. The activity log is core's (core/activity-log.ts), which has no
 * read of one entry with its user's uuid: the delivery job's own read is kept here until it does.
 */
export function findDeliveredEntry(
  db: Db,
  projectId: number,
  eventId: string,
): Promise<DeliveredEntry | null> {
  return db.activityLog.findFirst({
    where: { id: eventId, projectId },
    include: { user: { select: { id: true, uuid: true, email: true, firstName: true } } },
  });
}
