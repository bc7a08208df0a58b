/**
 * A change request's transitions as every operation records them: each one's activity entry (scope
 * `ChangeRequest`, so a change-feed event, GraphQL's `changeRequestChanged` and webhooks
 * `change_request.*`), and expiry, which three operations share: the minute's sweep of requests
 * whose time is up, a schedule dropping its binding, and a bound run reaching a request still
 * pending (PostHog's `expire_old_change_requests`, `apply_gated_scheduled_change`).
 */

import { recordActivity } from "../core/activity-log.js";
import type { Prisma } from "../generated/prisma/client.js";
import {
  type ChangeRequestRecord,
  isOpenRequest,
  lockChangeRequest,
  updateChangeRequestRow,
} from "./approvals.store.js";

/** The activity entry of `request`'s transition (`activity` the new state, or `canceled`) by `userId`. */
export function logTransition(
  tx: Prisma.TransactionClient,
  request: ChangeRequestRecord,
  activity: string,
  userId: number | null,
) {
  return recordActivity(tx, {
    projectId: request.projectId,
    userId,
    scope: "ChangeRequest",
    itemId: request.id,
    activity,
    name: request.actionKey,
    changes: null,
  });
}

/** Expires `request` (locked in `tx`) at `at`, with its `expired` entry by `userId` (null: the system). */
export async function expire(
  tx: Prisma.TransactionClient,
  request: ChangeRequestRecord,
  userId: number | null,
  at: Date,
): Promise<void> {
  const expired = await updateChangeRequestRow(tx, request.id, { state: "expired" }, at);
  await logTransition(tx, expired, "expired", userId);
}

/**
 * Locks request `id` of the project and expires it when it is still open (pending or approved);
 * whether it did. @throws NotFoundError when there is no such request.
 */
export async function expireOpen(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: string,
  userId: number | null,
  at: Date,
): Promise<boolean> {
  const request = await lockChangeRequest(tx, projectId, id);
  if (!isOpenRequest(request)) return false;
  await expire(tx, request, userId, at);
  return true;
}
