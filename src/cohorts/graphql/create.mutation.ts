/** `createCohort`: REST's `POST cohorts/` for GraphQL, through the same service method. */
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { CohortRef } from "./cohort.type.js";
import { CohortTypeEnum } from "./enums.js";
import { COHORT_FIELD_NAMES, cohortResult, PROJECT_ID_DESCRIPTION } from "./mutations.shared.js";

const CreateCohortInput = builder.inputType("CreateCohortInput", {
  description: "A new cohort (REST `POST cohorts/`). Only `projectId` is required.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    name: t.string({ description: "The cohort's name." }),
    description: t.string({ description: "Its description." }),
    filters: t.field({
      type: "JSON",
      description:
        "A dynamic cohort's criteria: `{properties: {type: AND|OR, values: [...]}}` (PostHog's shape).",
    }),
    groups: t.field({ type: "JSON", description: "Legacy criteria (`[{properties: [...]}, ...]`)." }),
    query: t.field({ type: "JSON", description: "A query defining a static cohort (not supported yet)." }),
    isStatic: t.boolean({ description: "An explicit member list rather than criteria; false when absent." }),
    cohortType: t.field({ type: CohortTypeEnum, description: "Must fit the cohort; derived when absent." }),
    createInFolder: t.string({ description: "Folder path to file the cohort under (`_create_in_folder`)." }),
    createStaticPersonIds: t.field({
      type: ["UUID"],
      description: "A static cohort's first members, by person uuid (`_create_static_person_ids`).",
    }),
    csv: t.string({
      description:
        "A static cohort's first members as CSV text, by PostHog's column rules (distinct ids, or a " +
        "`person_id`/`distinct_id`/`email` column), as REST's `csv` file upload.",
    }),
  }),
});

builder.mutationField("createCohort", (t) =>
  t.field({
    type: CohortRef,
    nullable: true,
    description: "Creates a cohort, calculated at once (REST `POST cohorts/`). Scope `cohort:write`.",
    extensions: requiresScopes("cohort:write"),
    args: { input: t.arg({ type: CreateCohortInput, required: true, description: "The new cohort." }) },
    errors: cohortResult("CreateCohort", "created"),
    resolve: async (_root, { input }, ctx) => {
      const serviceContext = await ctx.serviceContext();
      const { projectId, csv, ...fields } = input;
      const body = postHogFields(fields, {
        ...COHORT_FIELD_NAMES,
        createInFolder: "_create_in_folder",
        createStaticPersonIds: "_create_static_person_ids",
      });
      return ctx.services.cohorts.create(serviceContext, parseProjectId(projectId), body, csv ?? undefined);
    },
  }),
);
