/**
 * Static membership in GraphQL: `addPersonsToStaticCohort`, `removePersonFromStaticCohort` and
 * `duplicateCohortAsStatic` (REST's actions of the same names), through the same service methods.
 */
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { CohortRef } from "./cohort.type.js";
import {
  COHORT_ID_DESCRIPTION,
  cohortResult,
  mutationCohortId,
  PROJECT_ID_DESCRIPTION,
} from "./mutations.shared.js";

const AddPersonsToStaticCohortInput = builder.inputType("AddPersonsToStaticCohortInput", {
  description: "Persons to add to a static cohort (REST `PATCH cohorts/:id/add_persons_to_static_cohort/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: COHORT_ID_DESCRIPTION }),
    personIds: t.field({
      type: ["UUID"],
      required: true,
      description: "Person uuids, 1 to 1000; those naming no person of the project are skipped.",
    }),
  }),
});

builder.mutationField("addPersonsToStaticCohort", (t) =>
  t.field({
    type: CohortRef,
    nullable: true,
    description: "Adds persons to a static cohort and updates its count. Scope `cohort:write`.",
    extensions: requiresScopes("cohort:write"),
    args: {
      input: t.arg({ type: AddPersonsToStaticCohortInput, required: true, description: "Who, where." }),
    },
    errors: cohortResult("AddPersonsToStaticCohort", "changed"),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.cohorts.addPersons(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationCohortId(input.id),
        { person_ids: input.personIds },
      ),
  }),
);

const RemovePersonFromStaticCohortInput = builder.inputType("RemovePersonFromStaticCohortInput", {
  description:
    "A person to remove from a static cohort (REST `PATCH cohorts/:id/remove_person_from_static_cohort/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: COHORT_ID_DESCRIPTION }),
    personId: t.field({ type: "UUID", required: true, description: "The person's uuid." }),
  }),
});

builder.mutationField("removePersonFromStaticCohort", (t) =>
  t.field({
    type: CohortRef,
    nullable: true,
    description: "Removes a person from a static cohort and updates its count. Scope `cohort:write`.",
    extensions: requiresScopes("cohort:write"),
    args: {
      input: t.arg({ type: RemovePersonFromStaticCohortInput, required: true, description: "Who, where." }),
    },
    errors: cohortResult("RemovePersonFromStaticCohort", "changed"),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.cohorts.removePerson(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationCohortId(input.id),
        { person_id: input.personId },
      ),
  }),
);

const DuplicateCohortAsStaticInput = builder.inputType("DuplicateCohortAsStaticInput", {
  description:
    "A dynamic cohort to copy as a static one (REST `GET cohorts/:id/duplicate_as_static_cohort/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: COHORT_ID_DESCRIPTION }),
  }),
});

builder.mutationField("duplicateCohortAsStatic", (t) =>
  t.field({
    type: CohortRef,
    nullable: true,
    description:
      "Creates `<name> (static copy)`, holding the persons the dynamic cohort selects now. Scope `cohort:write`.",
    extensions: requiresScopes("cohort:write"),
    args: {
      input: t.arg({ type: DuplicateCohortAsStaticInput, required: true, description: "Which cohort." }),
    },
    errors: cohortResult("DuplicateCohortAsStatic", "created"),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.cohorts.duplicateAsStatic(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationCohortId(input.id),
      ),
  }),
);
