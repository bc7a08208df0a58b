/**
 * `updateCohort` (REST's `PATCH cohorts/:id/`) and `deleteCohort` (REST's `PATCH {deleted: true}`;
 * PostHog never hard-deletes cohorts), through the same service method.
 */
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { CohortRef } from "./cohort.type.js";
import { CohortTypeEnum } from "./enums.js";
import {
  COHORT_FIELD_NAMES,
  COHORT_ID_DESCRIPTION,
  cohortResult,
  mutationCohortId,
  PROJECT_ID_DESCRIPTION,
} from "./mutations.shared.js";

const UpdateCohortInput = builder.inputType("UpdateCohortInput", {
  description:
    "Changes to a cohort (REST `PATCH cohorts/:id/`): an absent field keeps its value, null clears it, a value sets it.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: COHORT_ID_DESCRIPTION }),
    name: t.string({ description: "A new name." }),
    description: t.string({ description: "A new description." }),
    filters: t.field({ type: "JSON", description: "New criteria of a dynamic cohort." }),
    groups: t.field({ type: "JSON", description: "New legacy criteria." }),
    query: t.field({ type: "JSON", description: "A query (not supported yet)." }),
    isStatic: t.boolean({ description: "Make the cohort static or dynamic." }),
    cohortType: t.field({ type: CohortTypeEnum, description: "Must fit the cohort; derived when absent." }),
    deleted: t.boolean({ description: "Soft-delete (true) or restore (false) the cohort." }),
    csv: t.string({ description: "More members of a static cohort as CSV text (as REST's `csv` upload)." }),
  }),
});

builder.mutationField("updateCohort", (t) =>
  t.field({
    type: CohortRef,
    nullable: true,
    description: "Changes a cohort and recalculates it (REST `PATCH cohorts/:id/`). Scope `cohort:write`.",
    extensions: requiresScopes("cohort:write"),
    args: { input: t.arg({ type: UpdateCohortInput, required: true, description: "The changes." }) },
    errors: cohortResult("UpdateCohort", "updated"),
    resolve: async (_root, { input }, ctx) => {
      const serviceContext = await ctx.serviceContext();
      const { projectId, id, csv, ...fields } = input;
      const body = postHogFields(fields, { ...COHORT_FIELD_NAMES, deleted: "deleted" });
      return ctx.services.cohorts.update(
        serviceContext,
        parseProjectId(projectId),
        mutationCohortId(id),
        body,
        csv ?? undefined,
      );
    },
  }),
);

const DeleteCohortInput = builder.inputType("DeleteCohortInput", {
  description: "A cohort to soft-delete (REST `PATCH {deleted: true}`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: COHORT_ID_DESCRIPTION }),
  }),
});

builder.mutationField("deleteCohort", (t) =>
  t.field({
    type: CohortRef,
    nullable: true,
    description:
      "Soft-deletes a cohort: it leaves lists (refused while active flags use it). Scope `cohort:write`.",
    extensions: requiresScopes("cohort:write"),
    args: { input: t.arg({ type: DeleteCohortInput, required: true, description: "Which cohort." }) },
    errors: cohortResult("DeleteCohort", "deleted"),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.cohorts.update(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationCohortId(input.id),
        { deleted: true },
      ),
  }),
);
