/**
 * Feature flags in GraphQL: the `FeatureFlag` type, its fields on `Project` (one flag, the filtered
 * connection, the project's flag activity) and the four write mutations. A thin adapter over
 * feature-flags.service.ts, which owns every rule, scope check and message: this module only maps
 * camelCase GraphQL shapes onto the service's PostHog (snake_case) bodies and back.
 *
 * Invariants:
 * - Lists cost a constant number of SQL statements: the connection spreads plugin-prisma's planned
 *   query (creator, last modifier, tag names) into the service's `listForConnection`.
 * - Inputs keep PATCH semantics on the way to the service: a field absent from the GraphQL input is
 *   absent from the body (kept), `null` is sent as `null` (cleared), a value is sent (set).
 * - Flags are shown as REST shows them: `filters` is the effective filters (legacy flags get their
 *   synthesised group), and `raw` is exactly REST's `filters` object.
 */

import { DEFAULT_PAGE_SIZE } from "../config.js";
import { activityPaging } from "../core/activity-log.js";
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  NotImplementedError,
  PermissionDeniedError,
  ValidationError,
} from "../core/errors.js";
import type { Prisma } from "../generated/prisma/client.js";
import { ActivityPageRef, activityPageArgs } from "../graphql/activity-log.graphql.js";
import { builder, connectionTotalCount } from "../graphql/builder.js";
import type { ErrorClass } from "../graphql/errors.graphql.js";
import { ProjectRef } from "../projects/projects.graphql.js";
import type { FlagListFilters } from "./feature-flags.schemas.js";
import { type FlagQuery, tagNames } from "./feature-flags.service.js";
import { isSimpleFlag, simpleRolloutPercentage } from "./rules/status.js";
import { conditionGroups, effectiveFilters, groupProperties, isJsonObject } from "./rules/stored-filters.js";

// ---------------------------------------------------------------------------------------------
// Enums. Values are PostHog's strings (what REST sends and stores); names are GraphQL's UPPER_CASE.

const EvaluationRuntimeEnum = builder.enumType("EvaluationRuntime", {
  description: "Where a flag is evaluated (PostHog `evaluation_runtime`).",
  values: {
    SERVER: { value: "server", description: "Only by server-side SDKs (`server`)." },
    CLIENT: { value: "client", description: "Only by client-side SDKs (`client`)." },
    ALL: { value: "all", description: "By every SDK (`all`, the default)." },
  } as const,
});

const BucketingIdentifierEnum = builder.enumType("BucketingIdentifier", {
  description:
    "The identifier that buckets users into the rollout and variants (PostHog `bucketing_identifier`).",
  values: {
    DISTINCT_ID: {
      value: "distinct_id",
      description: "The person's distinct id (`distinct_id`, the default).",
    },
    DEVICE_ID: { value: "device_id", description: "The device id (`device_id`)." },
  } as const,
});

const CreationContextEnum = builder.enumType("CreationContext", {
  description: "The product a flag was created from (PostHog `creation_context`).",
  values: {
    FEATURE_FLAGS: { value: "feature_flags", description: "Feature flags (`feature_flags`, the default)." },
    EXPERIMENTS: { value: "experiments", description: "An experiment (`experiments`)." },
    SURVEYS: { value: "surveys", description: "A survey's targeting (`surveys`)." },
    EARLY_ACCESS_FEATURES: { value: "early_access_features", description: "An early-access feature." },
    WEB_EXPERIMENTS: { value: "web_experiments", description: "A web experiment (`web_experiments`)." },
    PRODUCT_TOURS: { value: "product_tours", description: "A product tour (`product_tours`)." },
  } as const,
});

const FeatureFlagStatusEnum = builder.enumType("FeatureFlagStatus", {
  description: "A flag's health (posthog-behavior.md §2.8, PostHog `FeatureFlagStatusChecker`).",
  values: {
    ACTIVE: { description: "In use, disabled (not evaluated for staleness), or without usage data yet." },
    STALE: {
      description: "Active but not called for 30 days, or never called and fully rolled out for 30 days.",
    },
    DELETED: { description: "Soft-deleted." },
    UNKNOWN: {
      description: "No such flag (PostHog's status endpoint); never the status of an existing flag.",
    },
  } as const,
});

const FeatureFlagActiveFilterEnum = builder.enumType("FeatureFlagActiveFilter", {
  description: "The `active` list filter (PostHog `?active=`).",
  values: {
    ACTIVE: { description: "Enabled flags (`active=true`)." },
    INACTIVE: { description: "Disabled flags (`active=false`)." },
    STALE: {
      description: "Enabled flags that are stale, as the `STALE` status defines it (`active=STALE`).",
    },
  } as const,
});

const FeatureFlagTypeFilterEnum = builder.enumType("FeatureFlagTypeFilter", {
  description: "The `type` list filter (PostHog `?type=`).",
  values: {
    BOOLEAN: { value: "boolean", description: "Flags without variants." },
    MULTIVARIANT: { value: "multivariant", description: "Flags with variants." },
    EXPERIMENT: { value: "experiment", description: "Flags linked to an experiment." },
    REMOTE_CONFIG: { value: "remote_config", description: "Remote-configuration flags." },
  } as const,
});

const FeatureFlagOrderEnum = builder.enumType("FeatureFlagOrder", {
  description: "The order of a flag list (PostHog `?order=`); ties are broken by id, newest first.",
  values: {
    CREATED_AT_ASC: { value: "created_at", description: "Oldest first." },
    CREATED_AT_DESC: { value: "-created_at", description: "Newest first (the default)." },
    UPDATED_AT_ASC: { value: "updated_at", description: "Least recently updated first." },
    UPDATED_AT_DESC: { value: "-updated_at", description: "Most recently updated first." },
    KEY_ASC: { value: "key", description: "By key, A to Z." },
    KEY_DESC: { value: "-key", description: "By key, Z to A." },
    NAME_ASC: { value: "name", description: "By name (description), A to Z." },
    NAME_DESC: { value: "-name", description: "By name (description), Z to A." },
  } as const,
});

// ---------------------------------------------------------------------------------------------
// The filters object (release conditions), read from stored PostHog JSON. Every write was
// validated by rules/filters.ts, so the documented keys have the documented types.

type JsonObject = Record<string, unknown>;

const numberOrNull = (value: unknown) => (typeof value === "number" ? value : null);
const stringOrNull = (value: unknown) => (typeof value === "string" ? value : null);
const booleanOrNull = (value: unknown) => (typeof value === "boolean" ? value : null);
const listOf = (value: unknown) => (Array.isArray(value) ? value.filter(isJsonObject) : []);

const PropertyFilterRef = builder.objectRef<JsonObject>("FeatureFlagPropertyFilter").implement({
  description:
    "One condition on a property (PostHog's `PropertyFilter`); all of a group's conditions must match.",
  fields: (t) => ({
    key: t.string({
      description: "The property's name; for `type: flag`, the id of the flag depended on, as a string.",
      resolve: (p) => String(p["key"]),
    }),
    type: t.string({
      nullable: true,
      description: "`person`, `cohort` or `flag` for person flags; `group` for group flags.",
      resolve: (p) => stringOrNull(p["type"]),
    }),
    value: t.field({
      type: "JSON",
      nullable: true,
      description:
        "The value to compare with: a string, number, boolean or list; null for `is_set`/`is_not_set`.",
      resolve: (p) => p["value"] ?? null,
    }),
    operator: t.string({
      nullable: true,
      description:
        "PostHog's operator, e.g. `exact`, `is_not`, `icontains`, `regex`, `gt`, `is_set`, `flag_evaluates_to`.",
      resolve: (p) => stringOrNull(p["operator"]),
    }),
    negation: t.boolean({
      nullable: true,
      description: "Whether the condition is negated.",
      resolve: (p) => booleanOrNull(p["negation"]),
    }),
    groupTypeIndex: t.int({
      nullable: true,
      description: "For `type: group`: the group type (0–4).",
      resolve: (p) => numberOrNull(p["group_type_index"]),
    }),
    cohortName: t.string({
      nullable: true,
      description: "For `type: cohort`: the cohort's name, as clients echo it back.",
      resolve: (p) => stringOrNull(p["cohort_name"]),
    }),
  }),
});

const ConditionGroupRef = builder.objectRef<JsonObject>("FeatureFlagConditionGroup").implement({
  description: "One release condition: users matching all `properties` get the flag at `rolloutPercentage`.",
  fields: (t) => ({
    properties: t.field({
      type: [PropertyFilterRef],
      description: "The conditions, all of which must match (AND); empty matches everyone.",
      resolve: (g) => groupProperties(g),
    }),
    rolloutPercentage: t.float({
      nullable: true,
      description: "Share of matching users who get the flag, 0–100; null means everyone.",
      resolve: (g) => numberOrNull(g["rollout_percentage"]),
    }),
    variant: t.string({
      nullable: true,
      description: "For multivariate flags: the variant every matching user gets, overriding the split.",
      resolve: (g) => stringOrNull(g["variant"]),
    }),
    description: t.string({
      nullable: true,
      description: "A note on the condition.",
      resolve: (g) => stringOrNull(g["description"]),
    }),
    sortKey: t.string({
      nullable: true,
      description: "A client-side ordering key.",
      resolve: (g) => stringOrNull(g["sort_key"]),
    }),
    aggregationGroupTypeIndex: t.int({
      nullable: true,
      description: "Mixed targeting: the group type this condition aggregates by (0–4).",
      resolve: (g) => numberOrNull(g["aggregation_group_type_index"]),
    }),
  }),
});

const VariantRef = builder.objectRef<JsonObject>("FeatureFlagVariant").implement({
  description: "One variant of a multivariate flag.",
  fields: (t) => ({
    key: t.string({
      description: "The variant's key, what evaluation returns.",
      resolve: (v) => String(v["key"]),
    }),
    name: t.string({
      nullable: true,
      description: "A display name.",
      resolve: (v) => stringOrNull(v["name"]),
    }),
    rolloutPercentage: t.float({
      description: "Share of users in this variant, 0–100; the variants of a flag sum to 100.",
      resolve: (v) => Number(v["rollout_percentage"]),
    }),
  }),
});

const MultivariateRef = builder.objectRef<JsonObject>("FeatureFlagMultivariate").implement({
  description: "The variants of a multivariate flag.",
  fields: (t) => ({
    variants: t.field({
      type: [VariantRef],
      description: "The variants.",
      resolve: (m) => listOf(m["variants"]),
    }),
  }),
});

const HoldoutRef = builder.objectRef<JsonObject>("FeatureFlagHoldout").implement({
  description: "An experiment holdout excluded from the flag.",
  fields: (t) => ({
    id: t.int({ description: "The holdout's id.", resolve: (h) => Number(h["id"]) }),
    exclusionPercentage: t.float({
      description: "Share of users held out, 0–100.",
      resolve: (h) => Number(h["exclusion_percentage"]),
    }),
  }),
});

const FiltersRef = builder.objectRef<JsonObject>("FeatureFlagFilters").implement({
  description:
    "A flag's release conditions, variants and payloads (PostHog's `filters`, posthog-behavior.md §2.5) with " +
    "camelCase names. `raw` holds the same object in PostHog's snake_case JSON, keys this type does not name included.",
  fields: (t) => ({
    groups: t.field({
      type: [ConditionGroupRef],
      description: "Release conditions (OR): a user gets the flag through the first group they match.",
      resolve: (f) => conditionGroups(f),
    }),
    multivariate: t.field({
      type: MultivariateRef,
      nullable: true,
      description: "The variants; null for a boolean flag.",
      resolve: (f) =>
        isJsonObject(f["multivariate"]) && Object.keys(f["multivariate"]).length > 0
          ? f["multivariate"]
          : null,
    }),
    aggregationGroupTypeIndex: t.int({
      nullable: true,
      description: "Null for a person flag; N for a flag on group type N (0–4).",
      resolve: (f) => numberOrNull(f["aggregation_group_type_index"]),
    }),
    payloads: t.field({
      type: "JSON",
      nullable: true,
      description:
        "Payload per variant key (`true` for a boolean flag); object payloads are stored as JSON strings.",
      resolve: (f) => (isJsonObject(f["payloads"]) ? f["payloads"] : null),
    }),
    superGroups: t.field({
      type: [ConditionGroupRef],
      description: "Early-access enrollment conditions (PostHog `super_groups`).",
      resolve: (f) => listOf(f["super_groups"]),
    }),
    holdoutGroups: t.field({
      type: [ConditionGroupRef],
      description: "Holdout conditions in PostHog's older form (`holdout_groups`).",
      resolve: (f) => listOf(f["holdout_groups"]),
    }),
    holdout: t.field({
      type: HoldoutRef,
      nullable: true,
      description: "The holdout in PostHog's newer form; null when none.",
      resolve: (f) => (isJsonObject(f["holdout"]) ? f["holdout"] : null),
    }),
    featureEnrollment: t.boolean({
      nullable: true,
      description: "Whether early-access enrollment applies (newer form of `superGroups`).",
      resolve: (f) => booleanOrNull(f["feature_enrollment"]),
    }),
    raw: t.field({
      type: "JSON",
      description: "The filters exactly as REST returns them (PostHog's snake_case JSON).",
      resolve: (f) => f,
    }),
  }),
});

// ---------------------------------------------------------------------------------------------
// The flag.

const tagSelection = { select: { tag: { select: { name: true } } } } as const;

builder.prismaObject("FeatureFlag", {
  description:
    "A feature flag of a project (PostHog's FeatureFlag, posthog-behavior.md §2.1–2.2). `key` is unique among " +
    "the project's non-deleted flags; every write bumps `version`.",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The flag's integer id (REST's `:id`)." }),
    key: t.exposeString("key", {
      description: "What SDKs ask for: letters, digits, `-` and `_`, at most 400 characters.",
    }),
    name: t.exposeString("name", {
      description: "The flag's description (named `name` in PostHog); may be empty.",
    }),
    filters: t.field({
      type: FiltersRef,
      description: "Release conditions, variants and payloads.",
      resolve: (flag) => effectiveFilters(flag.filters, flag.rolloutPercentage),
    }),
    active: t.exposeBoolean("active", { description: "Whether the flag is enabled." }),
    deleted: t.exposeBoolean("deleted", {
      description: "Whether the flag is soft-deleted (see `deleteFeatureFlag`).",
    }),
    version: t.exposeInt("version", {
      description:
        "Incremented by every write; pass it as `expectedVersion` to refuse overwriting a newer change.",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the flag was created." }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the flag last changed." }),
    createdBy: t.relation("createdBy", {
      nullable: true,
      description: "Who created the flag; null when that user was deleted.",
    }),
    lastModifiedBy: t.relation("lastModifiedBy", {
      nullable: true,
      description: "Who changed the flag last; null when that user was deleted.",
    }),
    tags: t.stringList({
      description: "Tags: trimmed, lower-case, de-duplicated, sorted.",
      select: { tags: tagSelection },
      resolve: (flag) => tagNames(flag.tags),
    }),
    evaluationTags: t.stringList({
      description: "Evaluation contexts: a subset of `tags` naming where the flag is evaluated.",
      select: { evaluationTags: tagSelection },
      resolve: (flag) => tagNames(flag.evaluationTags),
    }),
    ensureExperienceContinuity: t.exposeBoolean("ensureExperienceContinuity", {
      description: "Whether a user keeps their value when their identity changes (persisted across devices).",
    }),
    rollbackConditions: t.expose("rollbackConditions", {
      type: "JSON",
      nullable: true,
      description: "Automatic rollback conditions, as stored (PostHog's JSON); null when none.",
    }),
    performedRollback: t.exposeBoolean("performedRollback", {
      nullable: true,
      description: "Whether a rollback was performed; re-enabling the flag resets it to false.",
    }),
    hasEnrichedAnalytics: t.exposeBoolean("hasEnrichedAnalytics", {
      description: "Whether enriched analytics are collected for the flag.",
    }),
    isRemoteConfiguration: t.exposeBoolean("isRemoteConfiguration", {
      description:
        "Whether the flag is a remote configuration: its `true` payload is served as configuration.",
    }),
    hasEncryptedPayloads: t.exposeBoolean("hasEncryptedPayloads", {
      description: "Whether payloads are encrypted (not supported yet: always false).",
    }),
    evaluationRuntime: t.expose("evaluationRuntime", {
      type: EvaluationRuntimeEnum,
      description: "Where the flag is evaluated.",
    }),
    bucketingIdentifier: t.expose("bucketingIdentifier", {
      type: BucketingIdentifierEnum,
      description: "What buckets users into the rollout and variants.",
    }),
    creationContext: t.expose("creationContext", {
      type: CreationContextEnum,
      description: "The product the flag was created from.",
    }),
    lastCalledAt: t.expose("lastCalledAt", {
      type: "DateTime",
      nullable: true,
      description: "The latest `$feature_flag_called` event seen for the key; null when never seen.",
    }),
    status: t.field({
      type: FeatureFlagStatusEnum,
      description: "The flag's health now (REST's `status`).",
      resolve: (flag, _args, ctx) => ctx.services.featureFlags.status(flag).status,
    }),
    statusReason: t.string({
      description: "Why the flag has its status, in PostHog's words (REST's `GET :id/status` `reason`).",
      resolve: (flag, _args, ctx) => ctx.services.featureFlags.status(flag).reason,
    }),
    isSimpleFlag: t.boolean({
      description:
        "Whether the flag has one condition group without properties and targets persons (older PostHog field).",
      resolve: (flag) => isSimpleFlag(effectiveFilters(flag.filters, flag.rolloutPercentage)),
    }),
    rolloutPercentage: t.float({
      nullable: true,
      description:
        "For a simple flag, its group's rollout (0–100, null = everyone); null otherwise (older PostHog field).",
      resolve: (flag) => simpleRolloutPercentage(effectiveFilters(flag.filters, flag.rolloutPercentage)),
    }),
    activity: t.field({
      type: ActivityPageRef,
      nullable: true,
      description:
        "The flag's activity log, newest first. Scope `activity_log:read`. Two SQL statements per flag: " +
        "meant for one flag, not for every flag of a list.",
      args: activityPageArgs,
      resolve: async (flag, args, ctx) =>
        ctx.services.featureFlags.activity(
          await ctx.serviceContext(),
          flag.projectId,
          flag.id,
          activityPaging(args, ctx.limits.maxPageSize),
        ),
    }),
  }),
});

// ---------------------------------------------------------------------------------------------
// The flags of a project.

const FeatureFlagFilterInput = builder.inputType("FeatureFlagFilterInput", {
  description:
    "Narrows a flag list, as REST's list query parameters do (posthog-behavior.md §2.3). Unset fields do not filter.",
  fields: (t) => ({
    active: t.field({ type: FeatureFlagActiveFilterEnum, description: "Enabled, disabled or stale flags." }),
    createdById: t.int({ description: "Flags created by this user id." }),
    evaluationRuntime: t.field({
      type: EvaluationRuntimeEnum,
      description: "Flags with this evaluation runtime.",
    }),
    excludedKeys: t.stringList({ description: "Leave out flags with these keys." }),
    hasEvaluationTags: t.boolean({
      description: "true: flags with an evaluation tag; false: flags without any.",
    }),
    search: t.string({ description: "Case-insensitive substring of the key or the name." }),
    tags: t.stringList({ description: "Flags having any of these tags." }),
    type: t.field({
      type: FeatureFlagTypeFilterEnum,
      description: "Boolean, multivariate, experiment or remote-config flags.",
    }),
  }),
});

/** The service's list filters for GraphQL's filter input and order. */
function listFilters(
  filter: typeof FeatureFlagFilterInput.$inferInput | null | undefined,
  order: FlagListFilters["order"] | null | undefined,
): FlagListFilters {
  const filters: FlagListFilters = {};
  if (filter?.active) filters.active = filter.active === "STALE" ? "STALE" : filter.active === "ACTIVE";
  if (filter?.createdById !== null && filter?.createdById !== undefined)
    filters.createdById = filter.createdById;
  if (filter?.evaluationRuntime) filters.evaluationRuntime = filter.evaluationRuntime;
  if (filter?.excludedKeys) filters.excludedKeys = filter.excludedKeys;
  if (filter?.hasEvaluationTags !== null && filter?.hasEvaluationTags !== undefined) {
    filters.hasEvaluationTags = filter.hasEvaluationTags;
  }
  if (filter?.search) filters.search = filter.search;
  if (filter?.tags) filters.tags = filter.tags;
  if (filter?.type) filters.type = filter.type;
  if (order) filters.order = order;
  return filters;
}

builder.objectFields(ProjectRef, (t) => ({
  featureFlag: t.prismaField({
    type: "FeatureFlag",
    nullable: true,
    description:
      "One flag of the project by `id` or by `key` (exactly one), soft-deleted ones included; null when there is " +
      "none. Scope `feature_flag:read`.",
    args: {
      id: t.arg.int({ description: "The flag's integer id." }),
      key: t.arg.string({ description: "The flag's key." }),
    },
    resolve: async (query, project, args, ctx) => {
      const hasId = args.id !== null && args.id !== undefined;
      const hasKey = args.key !== null && args.key !== undefined;
      if (hasId === hasKey) throw new ValidationError("Pass exactly one of `id` and `key`.");
      const by = hasId ? { id: args.id as number } : { key: args.key as string };
      return ctx.services.featureFlags.find(await ctx.serviceContext(), project.id, by, query);
    },
  }),
  featureFlags: t.prismaConnection(
    {
      type: "FeatureFlag",
      cursor: "id",
      nullable: true,
      description:
        `The project's flags without soft-deleted ones, ${DEFAULT_PAGE_SIZE} per page unless \`first\`/\`last\` ` +
        "say otherwise (clamped to the configured page size). Scope `feature_flag:read`.",
      args: {
        filter: t.arg({ type: FeatureFlagFilterInput, description: "Which flags to list." }),
        orderBy: t.arg({ type: FeatureFlagOrderEnum, description: "The order; newest first when unset." }),
      },
      defaultSize: DEFAULT_PAGE_SIZE,
      maxSize: (_args, ctx) => ctx.limits.maxPageSize,
      totalCount: async (project, args, ctx) =>
        ctx.services.featureFlags.count(
          await ctx.serviceContext(),
          project.id,
          listFilters(args.filter, args.orderBy),
        ),
      resolve: async (query, project, args, ctx) =>
        ctx.services.featureFlags.listForConnection(
          await ctx.serviceContext(),
          project.id,
          listFilters(args.filter, args.orderBy),
          query,
        ),
    },
    {
      name: "FeatureFlagConnection",
      description: "A page of feature flags.",
      fields: (c) => ({
        // Replaces plugin-prisma's own `totalCount` field (same extension, so a query for the count
        // alone still skips loading the page), to give it a description.
        totalCount: c.int({
          description: "Flags matching the filter, on all pages together (one SQL count).",
          extensions: { pothosPrismaTotalCount: true },
          resolve: connectionTotalCount,
        }),
      }),
    },
    { name: "FeatureFlagEdge", description: "A feature flag in a page of flags." },
  ),
  featureFlagActivity: t.field({
    type: ActivityPageRef,
    nullable: true,
    description: "The activity log of all the project's flags, newest first. Scope `activity_log:read`.",
    args: activityPageArgs,
    resolve: async (project, args, ctx) =>
      ctx.services.featureFlags.activity(
        await ctx.serviceContext(),
        project.id,
        null,
        activityPaging(args, ctx.limits.maxPageSize),
      ),
  }),
}));

// ---------------------------------------------------------------------------------------------
// Inputs. Each maps onto the service's PostHog body field by field; see `postHogFields`.

/**
 * Copies the fields present in `input` under PostHog's names (`names`), converting non-null values
 * with `convert` where given. An absent field stays absent and `null` stays `null` (PATCH semantics).
 */
function postHogFields<T extends object>(
  input: T,
  names: { [K in keyof T]-?: string },
  convert: { [K in keyof T]?: (value: NonNullable<T[K]>) => unknown } = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of Object.keys(input) as (keyof T)[]) {
    const value = input[field];
    if (value === undefined) continue;
    const to = convert[field];
    body[names[field]] = value === null || !to ? value : to(value as NonNullable<T[typeof field]>);
  }
  return body;
}

const PropertyFilterInput = builder.inputType("FeatureFlagPropertyFilterInput", {
  description: "One property condition (PostHog's `PropertyFilter`); see `FeatureFlagPropertyFilter`.",
  fields: (t) => ({
    key: t.string({
      required: true,
      description: "The property's name; for `type: flag`, the id of the flag depended on.",
    }),
    type: t.string({
      description: "`person`, `cohort` or `flag` for person flags; `group` for group flags.",
    }),
    value: t.field({
      type: "JSON",
      description: "The value to compare with; omit for `is_set`/`is_not_set`.",
    }),
    operator: t.string({
      description: "PostHog's operator, e.g. `exact`, `icontains`, `gt`, `flag_evaluates_to`.",
    }),
    negation: t.boolean({ description: "Negates the condition." }),
    groupTypeIndex: t.int({ description: "For `type: group`: the group type (0–4), equal to the flag's." }),
    cohortName: t.string({ description: "For `type: cohort`: the cohort's name, kept as sent." }),
  }),
});

const propertyBody = (p: typeof PropertyFilterInput.$inferInput) =>
  postHogFields(p, {
    key: "key",
    type: "type",
    value: "value",
    operator: "operator",
    negation: "negation",
    groupTypeIndex: "group_type_index",
    cohortName: "cohort_name",
  });

const ConditionGroupInput = builder.inputType("FeatureFlagConditionGroupInput", {
  description: "One release condition; see `FeatureFlagConditionGroup`.",
  fields: (t) => ({
    properties: t.field({ type: [PropertyFilterInput], description: "Conditions that must all match." }),
    rolloutPercentage: t.float({ description: "Share of matching users, 0–100; null means everyone." }),
    variant: t.string({ description: "The variant every matching user gets (must be one of the flag's)." }),
    description: t.string({ description: "A note on the condition." }),
    sortKey: t.string({ description: "A client-side ordering key." }),
    aggregationGroupTypeIndex: t.int({
      description: "Mixed targeting: the group type this condition aggregates by.",
    }),
  }),
});

const groupBody = (g: typeof ConditionGroupInput.$inferInput) =>
  postHogFields(
    g,
    {
      properties: "properties",
      rolloutPercentage: "rollout_percentage",
      variant: "variant",
      description: "description",
      sortKey: "sort_key",
      aggregationGroupTypeIndex: "aggregation_group_type_index",
    },
    { properties: (properties) => properties.map(propertyBody) },
  );

const VariantInput = builder.inputType("FeatureFlagVariantInput", {
  description: "One variant of a multivariate flag.",
  fields: (t) => ({
    key: t.string({ required: true, description: "The variant's key." }),
    name: t.string({ description: "A display name." }),
    rolloutPercentage: t.float({
      required: true,
      description: "Share of users, 0–100; all variants sum to 100.",
    }),
  }),
});

const MultivariateInput = builder.inputType("FeatureFlagMultivariateInput", {
  description: "The variants of a multivariate flag.",
  fields: (t) => ({
    variants: t.field({
      type: [VariantInput],
      description: "The variants; their rollout percentages sum to 100.",
    }),
  }),
});

const HoldoutInput = builder.inputType("FeatureFlagHoldoutInput", {
  description: "An experiment holdout excluded from the flag.",
  fields: (t) => ({
    id: t.int({ required: true, description: "The holdout's id." }),
    exclusionPercentage: t.float({ required: true, description: "Share of users held out, 0–100." }),
  }),
});

const FeatureFlagFiltersInput = builder.inputType("FeatureFlagFiltersInput", {
  description:
    "A flag's release conditions, variants and payloads with camelCase names, sent to the service as PostHog's " +
    "snake_case `filters` (posthog-behavior.md §2.5). On update, filters without `groups` are ignored, as PostHog does.",
  fields: (t) => ({
    groups: t.field({
      type: [ConditionGroupInput],
      description: "Release conditions (OR); at least one when creating a flag.",
    }),
    multivariate: t.field({
      type: MultivariateInput,
      description: "The variants; null or absent for a boolean flag.",
    }),
    aggregationGroupTypeIndex: t.int({
      description: "Null for a person flag; N for a flag on group type N (0–4).",
    }),
    payloads: t.field({
      type: "JSON",
      description: "Payload per variant key (`true` for a boolean flag): JSON strings or JSON values.",
    }),
    superGroups: t.field({ type: [ConditionGroupInput], description: "Early-access enrollment conditions." }),
    holdoutGroups: t.field({ type: [ConditionGroupInput], description: "Holdout conditions (older form)." }),
    holdout: t.field({ type: HoldoutInput, description: "The holdout (newer form)." }),
    featureEnrollment: t.boolean({ description: "Whether early-access enrollment applies." }),
  }),
});

const filtersBody = (f: typeof FeatureFlagFiltersInput.$inferInput) =>
  postHogFields(
    f,
    {
      groups: "groups",
      multivariate: "multivariate",
      aggregationGroupTypeIndex: "aggregation_group_type_index",
      payloads: "payloads",
      superGroups: "super_groups",
      holdoutGroups: "holdout_groups",
      holdout: "holdout",
      featureEnrollment: "feature_enrollment",
    },
    {
      groups: (groups) => groups.map(groupBody),
      multivariate: (m) =>
        postHogFields(
          m,
          { variants: "variants" },
          {
            variants: (variants) =>
              variants.map((v) =>
                postHogFields(v, { key: "key", name: "name", rolloutPercentage: "rollout_percentage" }),
              ),
          },
        ),
      superGroups: (groups) => groups.map(groupBody),
      holdoutGroups: (groups) => groups.map(groupBody),
      holdout: (h) => postHogFields(h, { id: "id", exclusionPercentage: "exclusion_percentage" }),
    },
  );

/** The writable flag fields shared by create and update, with their PostHog names. */
const PATCH_FIELD_NAMES = {
  key: "key",
  name: "name",
  filters: "filters",
  active: "active",
  tags: "tags",
  evaluationTags: "evaluation_tags",
  ensureExperienceContinuity: "ensure_experience_continuity",
  rollbackConditions: "rollback_conditions",
  performedRollback: "performed_rollback",
  hasEnrichedAnalytics: "has_enriched_analytics",
  isRemoteConfiguration: "is_remote_configuration",
  hasEncryptedPayloads: "has_encrypted_payloads",
  evaluationRuntime: "evaluation_runtime",
  bucketingIdentifier: "bucketing_identifier",
  analyticsDashboards: "analytics_dashboards",
} as const;

const projectIdArg = "PostHog's integer id of the flag's project.";

const CreateFeatureFlagInput = builder.inputType("CreateFeatureFlagInput", {
  description: "A new flag (REST `POST feature_flags/`). Only `projectId` and `key` are required.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: projectIdArg }),
    key: t.string({
      required: true,
      description: "Unique among the project's flags; letters, digits, `-`, `_`.",
    }),
    name: t.string({ description: "The flag's description; empty when absent." }),
    filters: t.field({ type: FeatureFlagFiltersInput, description: "Release conditions; `{}` when absent." }),
    active: t.boolean({ description: "Whether the flag is enabled; true when absent." }),
    tags: t.stringList({ description: "Tags; normalised to trimmed lower case." }),
    evaluationTags: t.stringList({ description: "Evaluation contexts; each must also be in `tags`." }),
    ensureExperienceContinuity: t.boolean({ description: "Keep a user's value across identity changes." }),
    rollbackConditions: t.field({
      type: "JSON",
      description: "Automatic rollback conditions, PostHog's JSON.",
    }),
    performedRollback: t.boolean({ description: "Whether a rollback was performed." }),
    hasEnrichedAnalytics: t.boolean({ description: "Collect enriched analytics." }),
    isRemoteConfiguration: t.boolean({ description: "Make the flag a remote configuration." }),
    hasEncryptedPayloads: t.boolean({
      description: "Encrypt payloads (not supported yet: true is refused).",
    }),
    evaluationRuntime: t.field({
      type: EvaluationRuntimeEnum,
      description: "Where the flag is evaluated; ALL when absent.",
    }),
    bucketingIdentifier: t.field({
      type: BucketingIdentifierEnum,
      description: "Bucketing identifier; DISTINCT_ID when absent.",
    }),
    analyticsDashboards: t.intList({
      description: "Dashboard ids to link (no dashboards exist yet: any id is refused).",
    }),
    creationContext: t.field({ type: CreationContextEnum, description: "The product creating the flag." }),
    createInFolder: t.string({
      description: "Folder path to file the flag under (PostHog `_create_in_folder`).",
    }),
    shouldCreateUsageDashboard: t.boolean({
      description:
        "Whether a usage dashboard is wanted (PostHog `_should_create_usage_dashboard`, default true).",
    }),
  }),
});

const UpdateFeatureFlagInput = builder.inputType("UpdateFeatureFlagInput", {
  description:
    "Changes to a flag (REST `PATCH feature_flags/:id/`): an absent field keeps its value, null clears it, a value sets it.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: projectIdArg }),
    id: t.int({ required: true, description: "The flag's id." }),
    expectedVersion: t.int({
      description: "The `version` the change is based on; a flag changed since then is a ConflictError.",
    }),
    key: t.string({ description: "A new key." }),
    name: t.string({ description: "A new description." }),
    filters: t.field({
      type: FeatureFlagFiltersInput,
      description: "New release conditions (ignored without `groups`).",
    }),
    active: t.boolean({ description: "Enable or disable the flag (refused while dependencies forbid it)." }),
    tags: t.stringList({ description: "The new tags, replacing the old ones." }),
    evaluationTags: t.stringList({ description: "The new evaluation contexts, a subset of the tags." }),
    ensureExperienceContinuity: t.boolean({ description: "Keep a user's value across identity changes." }),
    rollbackConditions: t.field({
      type: "JSON",
      description: "Automatic rollback conditions; null clears them.",
    }),
    performedRollback: t.boolean({ description: "Whether a rollback was performed." }),
    hasEnrichedAnalytics: t.boolean({ description: "Collect enriched analytics." }),
    isRemoteConfiguration: t.boolean({ description: "Make the flag a remote configuration." }),
    hasEncryptedPayloads: t.boolean({
      description: "Encrypt payloads (not supported yet: true is refused).",
    }),
    evaluationRuntime: t.field({ type: EvaluationRuntimeEnum, description: "Where the flag is evaluated." }),
    bucketingIdentifier: t.field({ type: BucketingIdentifierEnum, description: "Bucketing identifier." }),
    analyticsDashboards: t.intList({
      description: "Dashboard ids to link (no dashboards exist yet: any id is refused).",
    }),
  }),
});

const deletionInput = (name: string, description: string) =>
  builder.inputType(name, {
    description,
    fields: (t) => ({
      projectId: t.id({ required: true, description: projectIdArg }),
      id: t.int({ required: true, description: "The flag's id." }),
      expectedVersion: t.int({
        description: "The `version` the change is based on; a flag changed since then is a ConflictError.",
      }),
    }),
  });

const DeleteFeatureFlagInput = deletionInput(
  "DeleteFeatureFlagInput",
  "A flag to soft-delete (REST `PATCH {deleted: true}`; PostHog never hard-deletes flags).",
);
const RestoreFeatureFlagInput = deletionInput(
  "RestoreFeatureFlagInput",
  "A soft-deleted flag to restore (REST `PATCH {deleted: false}`).",
);

// ---------------------------------------------------------------------------------------------
// Mutations. Each returns `<Name>Result`: `<Name>Success { featureFlag }` or one of the typed errors.

/** What any flag write can fail with: no valid key, no scope or access, no such project or flag, bad input. */
const WRITE_ERRORS: ErrorClass[] = [
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ValidationError,
];

/** plugin-errors options of a flag mutation named `name` (e.g. `CreateFeatureFlag`). */
function flagResult(name: string, verb: string, types: ErrorClass[]) {
  return {
    types,
    union: { name: `${name}Result`, description: `The flag ${verb}, or why not.` },
    result: { name: `${name}Success`, description: `The flag was ${verb}.` },
    dataField: { name: "featureFlag", description: `The flag as ${verb}.` },
  };
}

/**
 * plugin-prisma's selection for a written flag, as the include the service reads it back with.
 * `FeatureFlag` is a prismaObject without a `select` option, so selections come in include mode and
 * always carry every scalar; a `select` here would mean that changed.
 */
function includeOf(query: FlagQuery): Prisma.FeatureFlagInclude {
  if (query.select) throw new Error("FeatureFlag selections are expected in include mode");
  return query.include ?? {};
}

builder.mutationField("createFeatureFlag", (t) =>
  t.prismaField({
    type: "FeatureFlag",
    nullable: true,
    description: "Creates a flag (REST `POST feature_flags/`). Scope `feature_flag:write`.",
    args: { input: t.arg({ type: CreateFeatureFlagInput, required: true, description: "The new flag." }) },
    errors: flagResult("CreateFeatureFlag", "created", [...WRITE_ERRORS, NotImplementedError]),
    resolve: async (query, _root, { input }, ctx) => {
      const serviceContext = await ctx.serviceContext();
      const { projectId, ...fields } = input;
      const body = postHogFields(
        fields,
        {
          ...PATCH_FIELD_NAMES,
          creationContext: "creation_context",
          createInFolder: "_create_in_folder",
          shouldCreateUsageDashboard: "_should_create_usage_dashboard",
        },
        { filters: filtersBody },
      );
      return ctx.services.featureFlags.create(serviceContext, String(projectId), body, includeOf(query));
    },
  }),
);

builder.mutationField("updateFeatureFlag", (t) =>
  t.prismaField({
    type: "FeatureFlag",
    nullable: true,
    description: "Changes a flag (REST `PATCH feature_flags/:id/`). Scope `feature_flag:write`.",
    args: { input: t.arg({ type: UpdateFeatureFlagInput, required: true, description: "The changes." }) },
    errors: flagResult("UpdateFeatureFlag", "updated", [...WRITE_ERRORS, ConflictError, NotImplementedError]),
    resolve: async (query, _root, { input }, ctx) => {
      const serviceContext = await ctx.serviceContext();
      const { projectId, id, ...fields } = input;
      const body = postHogFields(
        fields,
        { ...PATCH_FIELD_NAMES, expectedVersion: "version" },
        { filters: filtersBody },
      );
      return ctx.services.featureFlags.update(serviceContext, String(projectId), id, body, includeOf(query));
    },
  }),
);

/** A mutation that sets `deleted` on a flag: soft delete or restore. */
function deletionMutation(
  field: string,
  name: string,
  verb: string,
  input: typeof DeleteFeatureFlagInput,
  deleted: boolean,
  description: string,
) {
  builder.mutationField(field, (t) =>
    t.prismaField({
      type: "FeatureFlag",
      nullable: true,
      description,
      args: { input: t.arg({ type: input, required: true, description: "Which flag." }) },
      errors: flagResult(name, verb, [...WRITE_ERRORS, ConflictError]),
      resolve: async (query, _root, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        const { projectId, id, ...fields } = args.input;
        const body = { ...postHogFields(fields, { expectedVersion: "version" }), deleted };
        return ctx.services.featureFlags.update(
          serviceContext,
          String(projectId),
          id,
          body,
          includeOf(query),
        );
      },
    }),
  );
}

deletionMutation(
  "deleteFeatureFlag",
  "DeleteFeatureFlag",
  "deleted",
  DeleteFeatureFlagInput,
  true,
  "Soft-deletes a flag: it leaves lists and its key becomes free (refused while other flags depend on it). " +
    "Scope `feature_flag:write`.",
);
deletionMutation(
  "restoreFeatureFlag",
  "RestoreFeatureFlag",
  "restored",
  RestoreFeatureFlagInput,
  false,
  "Restores a soft-deleted flag. Scope `feature_flag:write`.",
);
