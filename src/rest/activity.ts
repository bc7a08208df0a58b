/**
 * The activity log's REST shape (posthog/models/activity_logging/serializers.py, posthog-behavior.md §2.9):
 * `{results, next, previous, total_count}` with entries `{id, user, activity, scope, item_id, detail, created_at}`.
 */
import { z } from "zod";
import type { ActivityEntry, ActivityPage } from "../core/activity-log.js";
import { drfDateTime } from "./date-time.js";
import { activityPageLinks } from "./pagination.js";

/**
 * One field's change. Loose (`additionalProperties`), like `detail` itself: entries are stored JSON,
 * and the answer shows every key stored, not only the ones named here.
 */
export const activityChangeSchema = z.looseObject({
  type: z.string().describe("The model, e.g. `FeatureFlag`."),
  action: z.enum(["created", "changed", "deleted"]),
  field: z.string(),
  before: z.unknown(),
  after: z.unknown(),
});

/** One entry (PostHog's `ActivityLogSerializer`). */
export const activityEntrySchema = z
  .object({
    id: z.uuid(),
    user: z
      .object({
        first_name: z.string(),
        email: z.string().nullable(),
        is_system: z.boolean().optional().describe("Present (true) on system activity only."),
      })
      .describe("Who made the change; system activity shows `System`."),
    activity: z.string().describe("`created`, `updated`, `deleted`, ..."),
    scope: z.string().describe("The model, e.g. `FeatureFlag`."),
    item_id: z.string().nullable(),
    detail: z
      .looseObject({
        changes: z.array(activityChangeSchema).nullable(),
        trigger: z.looseObject({ job_type: z.string(), job_id: z.string(), payload: z.unknown() }).nullable(),
        type: z.string().nullable(),
        name: z.string().nullable(),
        short_id: z.string().nullable(),
      })
      .nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "ActivityLogEntry" });

/** A page of entries: `page`/`limit` paging with links, and the total. */
export const activityPageSchema = z
  .object({
    results: z.array(activityEntrySchema),
    next: z.url().nullable(),
    previous: z.url().nullable(),
    total_count: z.int(),
  })
  .meta({ id: "PaginatedActivityLogList" });

/** One entry; system activity shows PostHog's "System" user. */
export function serializeActivityEntry(entry: ActivityEntry): z.output<typeof activityEntrySchema> {
  return {
    id: entry.id,
    user: entry.user
      ? { first_name: entry.user.firstName, email: entry.user.email }
      : { first_name: "System", email: null, is_system: true },
    activity: entry.activity,
    scope: entry.scope,
    item_id: entry.itemId,
    detail: entry.detail,
    created_at: drfDateTime(entry.createdAt),
  };
}

/** One page with its links. */
export function serializeActivityPage(
  page: ActivityPage,
  url: URL,
  paging: { limit: number; page: number },
): z.output<typeof activityPageSchema> {
  return {
    results: page.results.map(serializeActivityEntry),
    ...activityPageLinks(url, paging, page.hasNext, page.hasPrevious),
    total_count: page.totalCount,
  };
}
