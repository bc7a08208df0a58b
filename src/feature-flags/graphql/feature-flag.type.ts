import { parseIntegerId } from "../../core/validation.js";
import type { DashboardRecord } from "../../dashboards/dashboard-record.js";
import { DashboardRef } from "../../dashboards/graphql/refs.js";
import { activityPageField } from "../../graphql/activity-log.graphql.js";
import { builder } from "../../graphql/builder.js";
import type { GraphQLContext } from "../../graphql/context.js";
import { parseIntegerObjectId, parseProjectOwnedLocalId, projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { UserRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { FLAG_PARTS, type FlagPart, type FlagPartKey, type FlagRecord } from "../feature-flags.queries.js";
import { remoteConfigPayload } from "../rules/remote-config.js";
import { isSimpleFlag, simpleRolloutPercentage } from "../rules/status.js";
import { effectiveFilters } from "../rules/stored-filters.js";
import {
  BucketingIdentifierEnum,
  CreationContextEnum,
  EvaluationRuntimeEnum,
  FeatureFlagStatusEnum,
} from "./enums.js";
import { FiltersRef } from "./filters.type.js";
import { FeatureFlagRef, type FlagView } from "./refs.js";

export { FeatureFlagRef, type FlagView };

/**
 * The parts each computed `FeatureFlag` field reads (feature-flags.queries.ts `FlagPart`). A field
 * named after a part reads that part (`flagPartsFor`); any other field not listed reads only `id`
 * and `projectId`. Every field that calls `part` is listed or named after its part.
 */
const FIELD_PARTS: Readonly<Record<string, readonly FlagPart[]>> = {
  status: ["filters", "deleted", "active", "lastCalledAt", "createdAt"],
  statusReason: ["filters", "deleted", "active", "lastCalledAt", "createdAt"],
  isSimpleFlag: ["filters"],
  rolloutPercentage: ["filters"],
  remoteConfig: ["filters", "isRemoteConfiguration"],
  usageDashboard: ["usageDashboardId"],
};

/** Whether `name` names a part a page may leave out. */
const isPart = (name: string): name is FlagPart => (FLAG_PARTS as readonly string[]).includes(name);

/** The record parts a selection of `FeatureFlag` fields (by name) needs. */
export function flagPartsFor(fieldNames: Iterable<string>): Set<FlagPart> {
  const parts = new Set<FlagPart>();
  for (const name of fieldNames) {
    const needed = FIELD_PARTS[name] ?? (isPart(name) ? [name] : []);
    for (const one of needed) parts.add(one);
  }
  return parts;
}

/**
 * `flag[key]`, a part the read must have brought. A part missing here means `FIELD_PARTS` does not
 * list a field that reads it: a bug, answered as an unexpected error rather than a made-up value.
 */
function part<K extends FlagPartKey>(flag: FlagView, key: K): FlagRecord[K] {
  const value = flag[key];
  if (value === undefined)
    throw new Error(`FeatureFlag read without its ${key}: list the field in FIELD_PARTS`);
  return value as FlagRecord[K];
}

/** The flag's filters as shown (stored filters, with the legacy rollout folded in, §2.5). */
const shownFilters = (flag: FlagView) =>
  effectiveFilters(part(flag, "filters"), part(flag, "rolloutPercentage"));

/** The fields the status rules read (rules/status.ts `flagStatus`). */
const statusInput = (flag: FlagView) => ({
  deleted: part(flag, "deleted"),
  active: part(flag, "active"),
  lastCalledAt: part(flag, "lastCalledAt"),
  createdAt: part(flag, "createdAt"),
  filters: part(flag, "filters"),
});

/**
 * Dashboards by project-owned key (`<project>:<id>`), null where none: one read per project of the
 * keys (flags' `usageDashboard` over a page), through the dashboards service (scope `dashboard:read`).
 */
async function loadProjectDashboards(
  keys: readonly string[],
  ctx: GraphQLContext,
): Promise<(DashboardRecord | null)[]> {
  const serviceContext = await ctx.serviceContext();
  const wanted = new Map<number, number[]>();
  for (const key of keys) {
    const owned = parseProjectOwnedLocalId(key);
    const id = owned ? parseIntegerId(owned.key) : null;
    if (!owned || id === null) continue;
    wanted.set(owned.projectId, [...(wanted.get(owned.projectId) ?? []), id]);
  }
  const found = new Map<string, DashboardRecord>();
  for (const [projectId, ids] of wanted) {
    for (const dashboard of await ctx.services.dashboards.getMany(serviceContext, projectId, ids)) {
      if (dashboard) found.set(projectOwnedLocalId(projectId, dashboard.id), dashboard);
    }
  }
  return keys.map((key) => found.get(key) ?? null);
}

/** The `FeatureFlag` object type (its ref is ./refs.ts's). */
builder.objectType(FeatureFlagRef, {
  description:
    "A feature flag of a project (PostHog's FeatureFlag, posthog-behavior.md §2.1–2.2). `key` is unique among " +
    "the project's non-deleted flags; every write bumps `version`.",
  extensions: requiresScopes("feature_flag:read"),
  fields: (t) => ({
    databaseId: t.exposeInt("id", { description: "PostHog's integer id of the flag (REST's `:id`)." }),
    key: t.exposeString("key", {
      description: "What SDKs ask for: letters, digits, `-` and `_`, at most 400 characters.",
    }),
    name: t.exposeString("name", {
      description: "The flag's description (named `name` in PostHog); may be empty.",
    }),
    filters: t.field({
      type: FiltersRef,
      description: "Release conditions, variants and payloads.",
      resolve: shownFilters,
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
    createdBy: t.expose("createdBy", {
      type: UserRef,
      nullable: true,
      description:
        "Who created the flag; null when that user was deleted. Read with the flag (no extra SQL).",
    }),
    lastModifiedBy: t.expose("lastModifiedBy", {
      type: UserRef,
      nullable: true,
      description:
        "Who changed the flag last; null when that user was deleted. Read with the flag (no extra SQL).",
    }),
    tags: t.exposeStringList("tags", { description: "Tags: trimmed, lower-case, de-duplicated, sorted." }),
    evaluationTags: t.exposeStringList("evaluationTags", {
      description: "Evaluation contexts: a subset of `tags` naming where the flag is evaluated.",
    }),
    ensureExperienceContinuity: t.exposeBoolean("ensureExperienceContinuity", {
      description: "Whether a user keeps their value when their identity changes (persisted across devices).",
    }),
    rollbackConditions: t.field({
      type: "JSON",
      nullable: true,
      description: "Automatic rollback conditions, as stored (PostHog's JSON); null when none.",
      resolve: (flag) => part(flag, "rollbackConditions"),
    }),
    performedRollback: t.exposeBoolean("performedRollback", {
      nullable: true,
      description: "Whether a rollback was performed; re-enabling the flag resets it to false.",
    }),
    usageDashboard: t.loadable({
      type: DashboardRef,
      nullable: true,
      description:
        "The flag's usage dashboard (PostHog's `usage_dashboard`, §2.11); null when it has none or it was deleted. " +
        "Scope `dashboard:read`; loaded once per request for a page of flags.",
      extensions: requiresScopes("dashboard:read"),
      load: (keys: string[], ctx) => loadProjectDashboards(keys, ctx),
      resolve: (flag) => {
        const id = part(flag, "usageDashboardId");
        return id === null ? null : projectOwnedLocalId(flag.projectId, id);
      },
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
      resolve: (flag, _args, ctx) => ctx.services.featureFlags.status(statusInput(flag)).status,
    }),
    statusReason: t.string({
      description: "Why the flag has its status, in PostHog's words (REST's `GET :id/status` `reason`).",
      resolve: (flag, _args, ctx) => ctx.services.featureFlags.status(statusInput(flag)).reason,
    }),
    remoteConfig: t.field({
      type: "JSON",
      nullable: true,
      description:
        "For a remote-configuration flag (`isRemoteConfiguration`), the payload it serves: its `true` payload as " +
        "stored (JSON text, as REST's `GET :id/remote_config` answers it); null when it has none or is not one.",
      resolve: (flag) =>
        remoteConfigPayload({
          isRemoteConfiguration: part(flag, "isRemoteConfiguration"),
          filters: part(flag, "filters"),
        }) ?? null,
    }),
    isSimpleFlag: t.boolean({
      description:
        "Whether the flag has one condition group without properties and targets persons (older PostHog field).",
      resolve: (flag) => isSimpleFlag(shownFilters(flag)),
    }),
    rolloutPercentage: t.float({
      nullable: true,
      description:
        "For a simple flag, its group's rollout (0–100, null = everyone); null otherwise (older PostHog field).",
      resolve: (flag) => simpleRolloutPercentage(shownFilters(flag)),
    }),
    activity: activityPageField(
      t,
      "The flag's activity log, newest first. Two SQL statements per flag: meant for one flag, not for every flag of a list.",
      (ctx, serviceContext, flag, paging) =>
        ctx.services.featureFlags.activity(serviceContext, flag.projectId, flag.id, paging),
    ),
  }),
});

implementNode(FeatureFlagRef, {
  localId: (flag) => projectOwnedLocalId(flag.projectId, flag.id),
  // Scope `feature_flag:read` and the project check, as `Project.featureFlag`.
  load: projectOwnedLoader(parseIntegerId, (ctx, serviceContext, projectId, ids) =>
    ctx.services.featureFlags.getMany(serviceContext, projectId, ids),
  ),
});

/**
 * The integer id of a flag-id input (`featureFlag(id:)`, mutation inputs' `id`): PostHog's integer
 * or the flag's global id. Null for anything else.
 */
export function parseFlagId(raw: string | number): number | null {
  return parseIntegerObjectId(raw, "FeatureFlag", "project");
}
