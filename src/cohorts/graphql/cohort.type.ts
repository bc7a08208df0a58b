/**
 * The `Cohort` object type (a node) and `CohortMember`, a person as a cohort lists it: records as
 * the cohort service reads them (cohorts.queries.ts). Field names are camelCase versions of REST's.
 */
import { resolveOffsetConnection } from "@pothos/plugin-relay";
import { DEFAULT_PAGE_SIZE } from "../../config.js";
import { parseIntegerId } from "../../core/validation.js";
import { activityPageField } from "../../graphql/activity-log.graphql.js";
import { builder } from "../../graphql/builder.js";
import { parseIntegerObjectId, projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { UserRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { MemberRecord } from "../cohorts.queries.js";
import { filtersForResponse } from "../rules/criteria.js";
import { personName } from "../rules/person-name.js";
import { CohortTypeEnum } from "./enums.js";
import { CohortRef } from "./refs.js";

/** A person of a cohort (REST's serialized actor in `GET cohorts/:id/persons/`). */
export const CohortMemberRef = builder.objectRef<MemberRecord>("CohortMember").implement({
  description:
    "A person in a cohort: a static cohort's member, or a person a dynamic cohort's criteria select.",
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: "The person's uuid (REST's `id` and `uuid`)." }),
    name: t.string({
      description: "Its `email`, `name` or `username` property, else its first distinct id.",
      resolve: (person) => personName(person),
    }),
    distinctIds: t.exposeStringList("distinctIds", {
      description: "Up to 10 of the person's distinct ids, sorted.",
    }),
    properties: t.field({
      type: "JSON",
      description: "The person's properties.",
      resolve: (p) => p.properties,
    }),
    isIdentified: t.exposeBoolean("isIdentified", { description: "Whether the person was identified." }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the person was first seen." }),
  }),
});

export { CohortRef };

/** The `Cohort` object type (its ref is neutral, src/graphql/refs.ts: other domains return cohorts). */
builder.objectType(CohortRef, {
  description:
    "A cohort of a project (PostHog's Cohort): static (an explicit list of persons) or dynamic (criteria on " +
    "person properties and other cohorts, computed in the database).",
  extensions: requiresScopes("cohort:read"),
  fields: (t) => ({
    databaseId: t.exposeInt("id", { description: "PostHog's integer id of the cohort (REST's `:id`)." }),
    name: t.exposeString("name", { nullable: true, description: "The cohort's name." }),
    description: t.exposeString("description", { description: "Its description; may be empty." }),
    filters: t.field({
      type: "JSON",
      description: "`{properties: <property group>}`: the criteria (built from `groups` for legacy cohorts).",
      resolve: (cohort) => filtersForResponse(cohort.filters, cohort.groups),
    }),
    groups: t.field({ type: "JSON", description: "Legacy criteria, as stored.", resolve: (c) => c.groups }),
    query: t.field({
      type: "JSON",
      nullable: true,
      description: "A query defining a static cohort, or null.",
      resolve: (cohort) => cohort.query,
    }),
    isStatic: t.exposeBoolean("isStatic", { description: "Whether members are an explicit list." }),
    cohortType: t.field({
      type: CohortTypeEnum,
      nullable: true,
      description: "What defines the members.",
      resolve: (cohort) => cohort.cohortType as "static" | null,
    }),
    deleted: t.exposeBoolean("deleted", { description: "Whether the cohort is soft-deleted." }),
    count: t.exposeInt("count", {
      nullable: true,
      description:
        "Members: current for a static cohort; at `lastCalculation` for a dynamic one; null when it cannot be " +
        "calculated (criteria on events).",
    }),
    isCalculating: t.exposeBoolean("isCalculating", {
      description: "Always false: calculations are synchronous.",
    }),
    lastCalculation: t.expose("lastCalculation", {
      type: "DateTime",
      nullable: true,
      description: "When `count` was last calculated.",
    }),
    errorsCalculating: t.exposeInt("errorsCalculating", { description: "Failed calculations in a row." }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the cohort was created." }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who created the cohort; null when that user was deleted. Read with the cohort.",
      resolve: (cohort) => cohort.createdBy,
    }),
    persons: t.connection(
      {
        type: CohortMemberRef,
        nullable: true,
        description:
          `The cohort's persons by person id, ${DEFAULT_PAGE_SIZE} per page unless \`first\` says otherwise: a ` +
          "static cohort's members, or whoever a dynamic cohort's criteria select now (one SQL statement per " +
          "page). Scopes `cohort:read` and `person:read`.",
        extensions: requiresScopes("cohort:read", "person:read"),
        resolve: async (cohort, args, ctx) => {
          const serviceContext = await ctx.serviceContext();
          return resolveOffsetConnection(
            { args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: ctx.limits.maxPageSize },
            async (page) =>
              (await ctx.services.cohorts.persons(serviceContext, cohort.projectId, cohort.id, page)).results,
          );
        },
      },
      { name: "CohortMemberConnection", description: "A page of a cohort's persons." },
      { name: "CohortMemberEdge", description: "A person in a page of a cohort's persons." },
    ),
    activity: activityPageField(
      t,
      "The cohort's activity log, newest first.",
      (ctx, serviceContext, cohort, paging) =>
        ctx.services.cohorts.activity(serviceContext, cohort.projectId, cohort.id, paging),
    ),
  }),
});

implementNode(CohortRef, {
  localId: (cohort) => projectOwnedLocalId(cohort.projectId, cohort.id),
  // Scope `cohort:read` and the project check, as `Project.cohort`.
  load: projectOwnedLoader(parseIntegerId, (ctx, serviceContext, projectId, ids) =>
    ctx.services.cohorts.getMany(serviceContext, projectId, ids),
  ),
});

/** The integer id of a cohort-id input: PostHog's integer or the cohort's global id; null for anything else. */
export function parseCohortId(raw: string | number): number | null {
  return parseIntegerObjectId(raw, "Cohort", "project");
}
