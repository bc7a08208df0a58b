/**
 * How webhooks and their delivery log are read. Invariant: every statement filters by `project_id`.
 */

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
