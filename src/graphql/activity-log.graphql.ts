/**
 * The activity log's GraphQL types (src/core/activity-log.ts; posthog-behavior.md §2.9), shared by
 * every domain that logs activity, and the paging arguments of activity fields. Paging follows the
 * core's `activityPaging` rule, so both doors reject the same values with the same message. An entry
 * is a node (src/graphql/node.ts) owned by its project: `node(id:)` reads it with `activity_log:read`.
 */
import {
  type ActivityChange,
  type ActivityDetail,
  type ActivityEntry,
  type ActivityPage,
  activityPaging,
  DEFAULT_ACTIVITY_PAGE_SIZE,
} from "../core/activity-log.js";
import type { ServiceContext } from "../core/context.js";
import { isUuid } from "../core/validation.js";
import { builder } from "./builder.js";
import type { GraphQLContext } from "./context.js";
import { projectOwnedLocalId } from "./ids.js";
import { implementNode, projectOwnedLoader } from "./node.js";
import { requiresScopes } from "./scopes.js";

/** Arguments of a field that returns an `ActivityPage`. */
export const activityPageArgs = builder.args((t) => ({
  limit: t.int({
    defaultValue: DEFAULT_ACTIVITY_PAGE_SIZE,
    description: "Entries per page, at least 1; larger values than the configured page size are clamped.",
  }),
  page: t.int({ defaultValue: 1, description: "The page to return, 1-based." }),
}));

/** The `ActivityChange` object type: one field's change (also a version's changes: graphql/object-versions.graphql.ts). */
export const ActivityChangeRef = builder.objectRef<ActivityChange>("ActivityChange").implement({
  description: "One field's change within an activity-log entry (PostHog `changes_between`).",
  fields: (t) => ({
    type: t.exposeString("type", { description: "The model that changed, e.g. `FeatureFlag`." }),
    action: t.exposeString("action", {
      description: "`created` (the field was null), `deleted` (it became null) or `changed`.",
    }),
    field: t.exposeString("field", {
      description: "The field, named as PostHog (and REST) name it: snake_case, e.g. `evaluation_tags`.",
    }),
    before: t.field({
      type: "JSON",
      nullable: true,
      description: "The value before the change, in PostHog's JSON shape; null when `action` is `created`.",
      resolve: (change) => change.before,
    }),
    after: t.field({
      type: "JSON",
      nullable: true,
      description: "The value after the change, in PostHog's JSON shape; null when `action` is `deleted`.",
      resolve: (change) => change.after,
    }),
  }),
});

const ActivityDetailRef = builder.objectRef<ActivityDetail>("ActivityDetail").implement({
  description: "What an activity-log entry records beyond who and when (PostHog's `detail`).",
  fields: (t) => ({
    name: t.exposeString("name", {
      nullable: true,
      description: "The object's display name at the time (a flag's key).",
    }),
    changes: t.field({
      type: [ActivityChangeRef],
      nullable: true,
      description: "Field-by-field changes: empty for `created`, null where none were recorded.",
      resolve: (detail) => detail.changes,
    }),
    trigger: t.field({
      type: "JSON",
      nullable: true,
      description:
        "What caused a change other than a user, `{job_type, job_id, payload}`; null for user changes.",
      resolve: (detail) => detail.trigger,
    }),
  }),
});

const ActivityUserRef = builder.objectRef<NonNullable<ActivityEntry["user"]>>("ActivityUser").implement({
  description:
    "The user who made a change, as the activity log records it (PostHog shows first name and e-mail).",
  fields: (t) => ({
    databaseId: t.exposeInt("id", { description: "PostHog's integer id of the user." }),
    firstName: t.exposeString("firstName", { description: "The user's first name." }),
    email: t.exposeString("email", { description: "The user's e-mail address." }),
  }),
});

const ActivityLogEntryRef = builder.objectRef<ActivityEntry>("ActivityLogEntry").implement({
  description: "One entry of the activity log, written in the same transaction as the change it records.",
  extensions: requiresScopes("activity_log:read"),
  fields: (t) => ({
    uuid: t.field({
      type: "UUID",
      description: "PostHog's id of the entry (REST's `id`; UUIDv7, time-ordered).",
      resolve: (e) => e.id,
    }),
    activity: t.exposeString("activity", {
      description: "What happened: `created`, `updated`, `deleted` (soft delete) or `restored`.",
    }),
    scope: t.exposeString("scope", { description: "The kind of object, e.g. `FeatureFlag`." }),
    itemId: t.exposeString("itemId", {
      nullable: true,
      description: "The object's id as a string (a flag's integer id).",
    }),
    createdAt: t.field({ type: "DateTime", description: "When it happened.", resolve: (e) => e.createdAt }),
    isSystem: t.exposeBoolean("isSystem", {
      description: "True when the service, not a user, made the change.",
    }),
    user: t.field({
      type: ActivityUserRef,
      nullable: true,
      description: "Who made the change; null for system activity.",
      resolve: (e) => e.user,
    }),
    detail: t.field({
      type: ActivityDetailRef,
      nullable: true,
      description: "The name and field changes; null only for entries stored without detail.",
      resolve: (e) => e.detail,
    }),
  }),
});

implementNode(ActivityLogEntryRef, {
  localId: (entry) => projectOwnedLocalId(entry.projectId, entry.id),
  // Scope `activity_log:read` and the project check, as every activity field.
  load: projectOwnedLoader(
    (key) => (isUuid(key) ? key : null),
    (ctx, serviceContext, projectId, ids) => ctx.services.activityLog.getMany(serviceContext, projectId, ids),
  ),
});

/** The `ActivityPage` object type: one page of entries, newest first. */
export const ActivityPageRef = builder.objectRef<ActivityPage>("ActivityPage").implement({
  description: "One page of activity-log entries, newest first (ties broken by id), with page-number paging.",
  fields: (t) => ({
    results: t.field({
      type: [ActivityLogEntryRef],
      description: "The entries of this page.",
      resolve: (p) => p.results,
    }),
    totalCount: t.exposeInt("totalCount", { description: "Entries on all pages together." }),
    hasNextPage: t.exposeBoolean("hasNext", {
      description: "Whether a later page (`page + 1`) has entries.",
    }),
    hasPreviousPage: t.exposeBoolean("hasPrevious", { description: "Whether this is not the first page." }),
  }),
});

/** The schema types of the builder, for field helpers that take Pothos's field builder. */
type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/**
 * An activity field on `Parent` (one object's log, or all of a model's in a project): a page of
 * the entries `read` returns, newest first, `limit`/`page` paging as REST's; nullable, with scope
 * `activity_log:read` of its own, so a key without it loses this field alone.
 */
export function activityPageField<Parent>(
  t: PothosSchemaTypes.ObjectFieldBuilder<Types, Parent>,
  description: string,
  read: (
    ctx: GraphQLContext,
    serviceContext: ServiceContext,
    parent: Parent,
    paging: ReturnType<typeof activityPaging>,
  ) => Promise<ActivityPage>,
) {
  return t.field({
    type: ActivityPageRef,
    nullable: true,
    description: `${description} Scope \`activity_log:read\`.`,
    extensions: requiresScopes("activity_log:read"),
    args: activityPageArgs,
    resolve: async (parent, args, ctx) =>
      read(ctx, await ctx.serviceContext(), parent, activityPaging(args, ctx.limits.maxPageSize)),
  });
}
