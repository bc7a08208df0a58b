/**
 * How webhooks and their delivery log are read: the webhook read model, for the webhook service's
 * answers (a page, a batch, one webhook, a page of its delivery log). One Prisma read per record or
 * batch, the creator included; a page is two statements run together (its rows and its total).
 * Writes, and the reads a write decides from, are webhooks.store.ts's.
 *
 * Invariant: every statement filters by `project_id`.
 */

import type { OffsetPage } from "../core/paging.js";
import { USER_BASIC_SELECT } from "../core/records.js";
import type { Prisma, PrismaClient } from "../generated/prisma/client.js";

/** A database client or an interactive transaction's client. */
export type Db = Prisma.TransactionClient | PrismaClient;

/** What a webhook read includes: its creator. */
export const WEBHOOK_INCLUDE = {
  createdBy: { select: USER_BASIC_SELECT },
} as const satisfies Prisma.WebhookInclude;

/** A webhook with its creator, as both doors show it (the secret is in the row; doors never show it from here). */
export type WebhookRecord = Prisma.WebhookGetPayload<{ include: typeof WEBHOOK_INCLUDE }>;

/** A webhook with the secret it was just given: what creation and rotation answer, once. */
export type WebhookWithSecret = WebhookRecord & { revealedSecret: string };

/** One row of the delivery log. */
export type DeliveryRecord = Prisma.WebhookDeliveryGetPayload<Record<string, never>>;

/** The webhook `id` of project `projectId`, or null. */
export function findWebhook(db: Db, projectId: number, id: number): Promise<WebhookRecord | null> {
  return db.webhook.findFirst({ where: { projectId, id }, include: WEBHOOK_INCLUDE });
}

/**
 * One page of the project's webhooks, newest first (ties by id descending), with the number of all
 * its webhooks: two statements, run concurrently.
 */
export async function selectWebhookPage(
  db: Db,
  projectId: number,
  page: OffsetPage,
): Promise<{ count: number; results: WebhookRecord[] }> {
  const where = { projectId };
  const [count, results] = await Promise.all([
    db.webhook.count({ where }),
    db.webhook.findMany({
      where,
      include: WEBHOOK_INCLUDE,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: page.limit,
      skip: page.offset,
    }),
  ]);
  return { count, results };
}

/** The project's webhooks among `ids` (duplicates read once), in no particular order. One statement. */
export function selectWebhooks(db: Db, projectId: number, ids: readonly number[]): Promise<WebhookRecord[]> {
  return db.webhook.findMany({
    where: { projectId, id: { in: [...new Set(ids)] } },
    include: WEBHOOK_INCLUDE,
  });
}

/**
 * One page of webhook `webhookId`'s delivery log, newest first (ties by id descending), one row per
 * attempt, with the number of all its rows: two statements, run concurrently.
 */
export async function selectDeliveryPage(
  db: Db,
  projectId: number,
  webhookId: number,
  page: OffsetPage,
): Promise<{ count: number; results: DeliveryRecord[] }> {
  const where = { projectId, webhookId };
  const [count, results] = await Promise.all([
    db.webhookDelivery.count({ where }),
    db.webhookDelivery.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: page.limit,
      skip: page.offset,
    }),
  ]);
  return { count, results };
}
