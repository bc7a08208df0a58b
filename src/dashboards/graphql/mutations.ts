/**
 * The flag usage-dashboard mutations: `createFlagUsageDashboard` (REST `POST feature_flags/:id/dashboard/`)
 * and `enrichFlagUsageDashboard` (`POST feature_flags/:id/enrich_usage_dashboard/`), through the same
 * service methods, with the same refusals (a `ValidationError` carrying PostHog's message).
 */
import { NotFoundError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseIntegerObjectId, parseProjectId } from "../../graphql/ids.js";
import { mutationResult, WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { DashboardRef } from "./refs.js";

const FlagUsageDashboardInput = builder.inputType("FlagUsageDashboardInput", {
  description: "The flag whose usage dashboard to write.",
  fields: (t) => ({
    projectId: t.id({
      required: true,
      description:
        "The flag's project: PostHog's integer id (REST's `:project_id`) or the project's global `id`.",
    }),
    featureFlagId: t.id({
      required: true,
      description: "The flag: PostHog's integer id (REST's `:id`) or the flag's global `id`.",
    }),
  }),
});

/** The flag id of an input. @throws NotFoundError for an id that names no flag. */
function flagId(raw: string): number {
  const id = parseIntegerObjectId(raw, "FeatureFlag", "project");
  if (id === null) throw new NotFoundError();
  return id;
}

builder.mutationField("createFlagUsageDashboard", (t) =>
  t.field({
    type: DashboardRef,
    nullable: true,
    description:
      "Creates (another) usage dashboard for the flag from PostHog's template (`Generated Dashboard: <key> Usage`, " +
      "the last 30 days of `$feature_flag_called` by variant: total calls by day and unique users) and makes it the " +
      "flag's `usageDashboard`; the enriched insights are added when the flag has enriched analytics. Refused with " +
      "`Unable to generate usage dashboard` when the write fails. Scope `dashboard:write`.",
    extensions: requiresScopes("dashboard:write"),
    args: { input: t.arg({ type: FlagUsageDashboardInput, required: true, description: "Which flag." }) },
    errors: mutationResult({
      name: "CreateFlagUsageDashboard",
      field: "dashboard",
      what: "The usage dashboard",
      verb: "created",
      types: WRITE_ERRORS,
    }),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.dashboards.createFlagUsageDashboard(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        flagId(input.featureFlagId),
      ),
  }),
);

builder.mutationField("enrichFlagUsageDashboard", (t) =>
  t.field({
    type: DashboardRef,
    nullable: true,
    description:
      "Adds PostHog's enriched insights (`$feature_view` and `$feature_interaction` events naming the flag in " +
      "`feature_flag`: totals and unique users by day) to the flag's usage dashboard. Refused, as REST, with " +
      "`Usage dashboard not found`, `Usage dashboard already has enriched data` or `No enriched analytics available " +
      "for this feature flag`. Scope `dashboard:write`.",
    extensions: requiresScopes("dashboard:write"),
    args: { input: t.arg({ type: FlagUsageDashboardInput, required: true, description: "Which flag." }) },
    errors: mutationResult({
      name: "EnrichFlagUsageDashboard",
      field: "dashboard",
      what: "The usage dashboard",
      verb: "enriched",
      types: WRITE_ERRORS,
    }),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.dashboards.enrichFlagUsageDashboard(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        flagId(input.featureFlagId),
      ),
  }),
);
