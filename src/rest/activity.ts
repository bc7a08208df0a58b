/**
 * The activity log's REST shape (posthog/models/activity_logging/serializers.py, posthog-behavior.md §2.9):
 * `{results, next, previous, total_count}` with entries `{id, user, activity, scope, item_id, detail, created_at}`.
 */
import type { ActivityEntry, ActivityPage } from "../core/activity-log.js";
import { activityPageLinks } from "./pagination.js";

/** One entry; system activity shows PostHog's "System" user. */
export function serializeActivityEntry(entry: ActivityEntry): Record<string, unknown> {
  return {
    id: entry.id,
    user: entry.user
      ? { first_name: entry.user.firstName, email: entry.user.email }
      : { first_name: "System", email: null, is_system: true },
    activity: entry.activity,
    scope: entry.scope,
    item_id: entry.itemId,
    detail: entry.detail,
    created_at: entry.createdAt.toISOString(),
  };
}

/** One page with its links. */
export function serializeActivityPage(
  page: ActivityPage,
  url: URL,
  paging: { limit: number; page: number },
): Record<string, unknown> {
  return {
    results: page.results.map(serializeActivityEntry),
    ...activityPageLinks(url, paging, page.hasNext, page.hasPrevious),
    total_count: page.totalCount,
  };
}
