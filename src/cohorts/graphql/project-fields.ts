/**
 * The cohort fields of `Project`: one cohort by id, the filtered page of cohorts, and the activity of
 * all the project's cohorts, through the same service reads as REST.
 */
import { DEFAULT_PAGE_SIZE } from "../../config.js";
import { NotFoundError, ProjectNotFoundError } from "../../core/errors.js";
import { activityPageField } from "../../graphql/activity-log.graphql.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { parseIntegerObjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { CohortRef, parseCohortId } from "./cohort.type.js";
import { CohortKindFilterEnum } from "./enums.js";

const CohortFilterInput = builder.inputType("CohortFilterInput", {
  description: "Narrows a cohort list, as REST's list query parameters do. Unset fields do not filter.",
  fields: (t) => ({
    type: t.field({ type: CohortKindFilterEnum, description: "Static or dynamic cohorts." }),
    createdById: t.id({
      description: "Cohorts created by this user: PostHog's integer id or the `User`'s global id.",
    }),
    search: t.string({ description: "Case-insensitive substring of the name." }),
    hideBehavioralCohorts: t.boolean({
      description: "Leave out cohorts whose criteria use events, directly or through the cohorts they name.",
    }),
  }),
});

builder.objectFields(ProjectRef, (t) => ({
  cohort: t.field({
    type: CohortRef,
    nullable: true,
    description:
      "One cohort of the project, soft-deleted ones included; null when there is none. Scope `cohort:read`.",
    extensions: requiresScopes("cohort:read"),
    args: {
      id: t.arg.id({ required: true, description: "The cohort's id: PostHog's integer or its global `id`." }),
    },
    resolve: async (project, args, ctx) => {
      const id = parseCohortId(args.id);
      if (id === null) return null;
      try {
        return await ctx.services.cohorts.get(await ctx.serviceContext(), project.id, id);
      } catch (error) {
        if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
        throw error;
      }
    },
  }),
  cohorts: t.connection(
    {
      type: CohortRef,
      nullable: true,
      description:
        `The project's cohorts without soft-deleted ones, newest first, ${DEFAULT_PAGE_SIZE} per page unless ` +
        "`first`/`last` say otherwise. Scope `cohort:read`.",
      extensions: requiresScopes("cohort:read"),
      args: { filter: t.arg({ type: CohortFilterInput, description: "Which cohorts to list." }) },
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        const query = postHogFields(
          args.filter ?? {},
          {
            type: "type",
            createdById: "created_by_id",
            search: "search",
            hideBehavioralCohorts: "hide_behavioral_cohorts",
          },
          { createdById: (raw) => parseIntegerObjectId(raw, "User") ?? raw },
        );
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.cohorts.list(serviceContext, project.id, query, page),
        );
      },
    },
    {
      name: "CohortConnection",
      description: "A page of cohorts.",
      fields: (c) => ({
        totalCount: c.int({
          description: "Cohorts matching the filter, on all pages together.",
          resolve: connectionTotalCount,
        }),
      }),
    },
    { name: "CohortEdge", description: "A cohort in a page of cohorts." },
  ),
  cohortActivity: activityPageField(
    t,
    "The activity log of all the project's cohorts, newest first.",
    (ctx, serviceContext, project, paging) =>
      ctx.services.cohorts.activity(serviceContext, project.id, null, paging),
  ),
}));
