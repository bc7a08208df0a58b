/**
 * The `ScheduledChange` object type (a node) and its enum, over the service's records: field names
 * are camelCase versions of REST's (PostHog's `ScheduledChangeSerializer`), `failureReason` formatted
 * as REST shows it.
 */
import { ChangeRequestRef } from "../../approvals/graphql/refs.js";
import { NotFoundError } from "../../core/errors.js";
import { parseIntegerId } from "../../core/validation.js";
import { FeatureFlagRef } from "../../feature-flags/graphql/refs.js";
import { builder } from "../../graphql/builder.js";
import { enumValues } from "../../graphql/enums.js";
import { parseIntegerObjectId, projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { UserRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { formatFailureReason } from "../rules/failures.js";
import type { ScheduledChangeRecord } from "../scheduled-changes.queries.js";
import { OPERATIONS, RECURRENCE_INTERVALS, type RecurrenceInterval } from "../scheduled-changes.schemas.js";

/** `recurrence_interval`. */
export const RecurrenceIntervalEnum = builder.enumType("RecurrenceInterval", {
  description:
    "How often a recurring scheduled change runs (PostHog `recurrence_interval`); a month end is clamped (Jan 31 → Feb 28).",
  values: enumValues(RECURRENCE_INTERVALS, {
    daily: "Every day at the same UTC time (`daily`).",
    weekly: "Every week (`weekly`).",
    monthly: "Every month, on the same day or the month's last (`monthly`).",
    yearly: "Every year (`yearly`).",
  }),
});

/** A payload's `operation`. */
export const ScheduledChangeOperationEnum = builder.enumType("ScheduledChangeOperation", {
  description: "What a scheduled change does to its flag (PostHog `payload.operation`).",
  values: enumValues(OPERATIONS, {
    update_status: "Turns the flag on or off: `value` true or false (`update_status`).",
    add_release_condition:
      "Appends release conditions: `value` `{groups, payloads, multivariate}`, its `groups` appended (`add_release_condition`).",
    update_variants:
      "Replaces the variants and their payloads: `value` `{variants, payloads}` (`update_variants`).",
  }),
});

/** An ISO 8601 instant of a record, as the `DateTime` scalar shows it. */
const instant = (description: string) => ({ type: "DateTime" as const, description });

/** The `ScheduledChange` object type. */
export const ScheduledChangeRef = builder.objectRef<ScheduledChangeRecord>("ScheduledChange").implement({
  description:
    "A change to a feature flag applied at a time, once or on a recurrence (PostHog's ScheduledChange): " +
    "`payload` is `{operation, value}`, `operation` one of `update_status`, `add_release_condition`, `update_variants`.",
  extensions: requiresScopes("feature_flag:read"),
  fields: (t) => ({
    databaseId: t.exposeInt("id", { description: "PostHog's integer id of the change (REST's `:id`)." }),
    recordId: t.exposeString("recordId", { description: "The target's id as text: the flag's integer id." }),
    modelName: t.exposeString("modelName", { description: 'The target\'s model: "FeatureFlag".' }),
    featureFlag: t.field({
      type: FeatureFlagRef,
      nullable: true,
      description: "The flag the change targets; null when it is gone. Scope `feature_flag:read`.",
      resolve: async (change, _args, ctx) => {
        const id = parseIntegerId(change.recordId);
        if (id === null) return null;
        try {
          return await ctx.services.featureFlags.get(await ctx.serviceContext(), change.projectId, { id });
        } catch (error) {
          if (error instanceof NotFoundError) return null;
          throw error;
        }
      },
    }),
    changeRequest: t.field({
      type: ChangeRequestRef,
      nullable: true,
      description:
        "The change request the change waits for: bound when an approval policy gates it at scheduling, " +
        "the change applies at its time only once approved. Null when none. Scope `approvals:read`.",
      resolve: async (change, _args, ctx) => {
        if (!change.changeRequestId) return null;
        try {
          const context = await ctx.serviceContext();
          return await ctx.services.approvals.getChangeRequest(
            context,
            change.projectId,
            change.changeRequestId,
          );
        } catch (error) {
          if (error instanceof NotFoundError) return null;
          throw error;
        }
      },
    }),
    payload: t.field({
      type: "JSON",
      description: "The change: `{operation, value}`, as given.",
      resolve: (change) => change.payload,
    }),
    scheduledAt: t.field({
      ...instant("When it applies (a recurring schedule: its next run)."),
      resolve: (change) => change.scheduledAt,
    }),
    executedAt: t.field({
      ...instant("When a one-time change was applied, or the schedule ended; null while it is active."),
      nullable: true,
      resolve: (change) => change.executedAt,
    }),
    failureReason: t.string({
      nullable: true,
      description:
        "Why the last run failed, with its retry status (`(permanent error)`, `(will retry automatically, 4 attempts remaining)`); null when none failed.",
      resolve: (change) => formatFailureReason(change.failureReason),
    }),
    isRecurring: t.exposeBoolean("isRecurring", {
      description: "Whether it recurs; false with a recurrence kept: paused.",
    }),
    recurrenceInterval: t.field({
      type: RecurrenceIntervalEnum,
      nullable: true,
      description: "Its interval, when it recurs by one.",
      resolve: (change) => change.recurrenceInterval as RecurrenceInterval | null,
    }),
    cronExpression: t.exposeString("cronExpression", {
      nullable: true,
      description: "Its 5-field cron expression, read in `timezone`, when it recurs by one.",
    }),
    lastExecutedAt: t.field({
      ...instant("When a recurring schedule last ran successfully."),
      nullable: true,
      resolve: (change) => change.lastExecutedAt,
    }),
    endDate: t.field({
      ...instant("A recurring schedule stops after this time."),
      nullable: true,
      resolve: (change) => change.endDate,
    }),
    timezone: t.exposeString("timezone", {
      nullable: true,
      description: "The project's IANA time zone when the change was scheduled.",
    }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who scheduled it (the runs act as this user); null when that user was deleted.",
      resolve: (change) => change.createdBy,
    }),
    createdAt: t.field({ ...instant("When it was scheduled."), resolve: (change) => change.createdAt }),
    updatedAt: t.field({ ...instant("When it last changed."), resolve: (change) => change.updatedAt }),
  }),
});

implementNode(ScheduledChangeRef, {
  localId: (change) => projectOwnedLocalId(change.projectId, change.id),
  // Scope `feature_flag:read` and the project check, as REST's read.
  load: projectOwnedLoader(parseIntegerId, (ctx, serviceContext, projectId, ids) =>
    ctx.services.scheduledChanges.getMany(serviceContext, projectId, ids),
  ),
});

/** The integer id of a scheduled-change-id input: its integer or its global id; null for anything else. */
export function parseScheduledChangeId(raw: string | number): number | null {
  return parseIntegerObjectId(raw, "ScheduledChange", "project");
}
