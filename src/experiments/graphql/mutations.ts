/**
 * The experiment lifecycle for GraphQL: create, update, launch, end, archive, conclude, duplicate,
 * delete and restore, through the same service methods as REST (inputs re-encoded into REST's body,
 * so the same rules and messages apply, decision 6). `launch`, `end`, `archive`, `conclude`, `delete`
 * and `restore` are REST's PATCH with one field (posthog-behavior.md §5.4); pausing is the flag's
 * `active` (updateFeatureFlag). Metric numbers from GraphQL's JSON are hashed as parsed (an integral
 * number as an int): see src/experiments/rules/fingerprint.ts.
 */
import { APPROVAL_ERRORS } from "../../approvals/graphql/refs.js";
import { CohortRef } from "../../cohorts/graphql/refs.js";
import { ConflictError, NotFoundError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { mutationResult, WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { ExperimentRef, parseExperimentId } from "./experiment.type.js";

const PROJECT_ID_DESCRIPTION =
  "The experiment's project: PostHog's integer id (REST's `:project_id`) or the project's global `id`.";
const ID_DESCRIPTION = "The experiment: its integer id or its global `id`.";

/** The writable fields shared by create and update, with their PostHog names. */
const FIELD_NAMES = {
  name: "name",
  description: "description",
  featureFlagKey: "feature_flag_key",
  startDate: "start_date",
  endDate: "end_date",
  holdoutId: "holdout_id",
  parameters: "parameters",
  filters: "filters",
  metrics: "metrics",
  metricsSecondary: "metrics_secondary",
  savedMetricsIds: "saved_metrics_ids",
  exposureCriteria: "exposure_criteria",
  statsConfig: "stats_config",
  type: "type",
  conclusion: "conclusion",
  conclusionComment: "conclusion_comment",
  archived: "archived",
} as const;

/** A `DateTime` input as REST's ISO text. */
const isoText = (value: unknown) => (value instanceof Date ? value.toISOString() : value);
const CONVERT = { startDate: isoText, endDate: isoText };

/** plugin-errors options of mutation `name`. */
function result(name: string, verb: string, types = WRITE_ERRORS) {
  return mutationResult({ name, field: "experiment", what: "The experiment", verb, types });
}

/** What an update can fail with: a write's errors, and the conflict of `ExperimentService.update`'s bounded retry. */
/** An update's errors: a conflict, and the approval gate's on the experiment's flag (issue 27). */
const UPDATE_ERRORS = [...WRITE_ERRORS, ConflictError, ...APPROVAL_ERRORS];

/** The integer id of a mutation input's `id`. @throws NotFoundError for an id naming no experiment. */
function mutationId(raw: string): number {
  const id = parseExperimentId(raw);
  if (id === null) throw new NotFoundError();
  return id;
}

const CreateExperimentInput = builder.inputType("CreateExperimentInput", {
  description:
    "A new experiment (REST `POST experiments/`): on an eligible flag of that key, or a new draft flag.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    name: t.string({ required: true, description: "Its name (at most 400 characters)." }),
    featureFlagKey: t.string({
      required: true,
      description: "The flag's key: reused when eligible, else created.",
    }),
    description: t.string({ description: "Its description." }),
    startDate: t.field({ type: "DateTime", description: "Launch at once (the new flag is then active)." }),
    endDate: t.field({ type: "DateTime", description: "When it ends." }),
    holdoutId: t.int({ description: "A holdout of the project." }),
    parameters: t.field({
      type: "JSON",
      description: "feature_flag_variants, aggregation_group_type_index, ...",
    }),
    filters: t.field({ type: "JSON", description: "Legacy insight filters." }),
    metrics: t.field({ type: "JSON", description: "Primary ExperimentMetric objects." }),
    metricsSecondary: t.field({ type: "JSON", description: "Secondary ExperimentMetric objects." }),
    savedMetricsIds: t.field({ type: "JSON", description: "`[{id, metadata?: {type}}]` of saved metrics." }),
    exposureCriteria: t.field({ type: "JSON", description: "filterTestAccounts, exposure_config, ..." }),
    statsConfig: t.field({ type: "JSON", description: "`{method: bayesian|frequentist, ...}`." }),
    type: t.string({ description: "`product` (default) or `web`." }),
  }),
});

builder.mutationField("createExperiment", (t) =>
  t.field({
    type: ExperimentRef,
    nullable: true,
    description: "Creates an experiment (REST `POST experiments/`). Scope `experiment:write`.",
    extensions: requiresScopes("experiment:write"),
    args: {
      input: t.arg({ type: CreateExperimentInput, required: true, description: "The new experiment." }),
    },
    errors: result("CreateExperiment", "created"),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, ...fields } = input;
      return ctx.services.experiments.create(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        postHogFields(fields, FIELD_NAMES, CONVERT),
      );
    },
  }),
);

const UpdateExperimentInput = builder.inputType("UpdateExperimentInput", {
  description: "Changes to an experiment (REST `PATCH experiments/:id/`): an absent field keeps its value.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
    name: t.string({ description: "A new name." }),
    description: t.string({ description: "A new description." }),
    startDate: t.field({
      type: "DateTime",
      description: "Set on a draft: launches it (its flag is turned on).",
    }),
    endDate: t.field({ type: "DateTime", description: "Ends it." }),
    holdoutId: t.int({ description: "A holdout (drafts only)." }),
    parameters: t.field({ type: "JSON", description: "New parameters (variants frozen after launch)." }),
    filters: t.field({ type: "JSON", description: "Legacy insight filters." }),
    metrics: t.field({ type: "JSON", description: "Primary metrics." }),
    metricsSecondary: t.field({ type: "JSON", description: "Secondary metrics." }),
    savedMetricsIds: t.field({ type: "JSON", description: "Replaces the saved metrics." }),
    exposureCriteria: t.field({ type: "JSON", description: "Exposure criteria." }),
    statsConfig: t.field({ type: "JSON", description: "Statistics configuration." }),
    conclusion: t.string({ description: "won, lost, inconclusive, stopped_early or invalid." }),
    conclusionComment: t.string({ description: "Why." }),
    archived: t.boolean({ description: "Archive (true) or unarchive." }),
  }),
});

builder.mutationField("updateExperiment", (t) =>
  t.field({
    type: ExperimentRef,
    nullable: true,
    description: "Changes an experiment (REST `PATCH experiments/:id/`). Scope `experiment:write`.",
    extensions: requiresScopes("experiment:write"),
    args: { input: t.arg({ type: UpdateExperimentInput, required: true, description: "The changes." }) },
    errors: result("UpdateExperiment", "updated", UPDATE_ERRORS),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, id, ...fields } = input;
      return ctx.services.experiments.update(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        mutationId(id),
        postHogFields(fields, FIELD_NAMES, CONVERT),
      );
    },
  }),
);

/** One PATCH-with-a-field mutation: `name`, its input's extra fields, and the body they make. */
function lifecycleMutation<Extra extends Record<string, unknown>>(options: {
  name: string;
  verb: string;
  description: string;
  inputDescription: string;
  // biome-ignore lint/suspicious/noExplicitAny: Pothos input field builder
  extra: (t: any) => Record<string, unknown>;
  body: (input: Extra) => Record<string, unknown>;
}) {
  const typeName = `${options.name[0]!.toUpperCase()}${options.name.slice(1)}Input`;
  const Input = builder.inputType(typeName, {
    description: options.inputDescription,
    fields: (t) => ({
      projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
      id: t.id({ required: true, description: ID_DESCRIPTION }),
      ...options.extra(t),
    }),
  });
  builder.mutationField(options.name, (t) =>
    t.field({
      type: ExperimentRef,
      nullable: true,
      description: `${options.description} Scope \`experiment:write\`.`,
      extensions: requiresScopes("experiment:write"),
      args: { input: t.arg({ type: Input, required: true, description: "Which experiment." }) },
      errors: result(typeName.replace(/Input$/, ""), options.verb, UPDATE_ERRORS),
      resolve: async (_root, { input }, ctx) => {
        const { projectId, id, ...extra } = input as { projectId: string; id: string } & Extra;
        return ctx.services.experiments.update(
          await ctx.serviceContext(),
          parseProjectId(projectId),
          mutationId(id),
          options.body(extra as unknown as Extra),
        );
      },
    }),
  );
}

lifecycleMutation<{ startDate?: Date | null }>({
  name: "launchExperiment",
  verb: "launched",
  description: "Launches a draft experiment: sets its start date (now by default) and turns its flag on.",
  inputDescription: "A draft experiment to launch.",
  extra: (t) => ({ startDate: t.field({ type: "DateTime", description: "The start; now when absent." }) }),
  body: (input) => ({ start_date: (input.startDate ?? new Date()).toISOString() }),
});

lifecycleMutation<{ endDate?: Date | null }>({
  name: "endExperiment",
  verb: "ended",
  description: "Ends an experiment: sets its end date (now by default); its flag is left as it is.",
  inputDescription: "An experiment to end.",
  extra: (t) => ({ endDate: t.field({ type: "DateTime", description: "The end; now when absent." }) }),
  body: (input) => ({ end_date: (input.endDate ?? new Date()).toISOString() }),
});

lifecycleMutation<{ archived?: boolean | null }>({
  name: "archiveExperiment",
  verb: "archived",
  description: "Archives an experiment (or unarchives it with `archived: false`).",
  inputDescription: "An experiment to archive.",
  extra: (t) => ({ archived: t.boolean({ description: "true (default) archives, false unarchives." }) }),
  body: (input) => ({ archived: input.archived ?? true }),
});

lifecycleMutation<{ conclusion?: string | null; comment?: string | null }>({
  name: "concludeExperiment",
  verb: "concluded",
  description: "Records an experiment's conclusion and its comment.",
  inputDescription: "An experiment's conclusion.",
  extra: (t) => ({
    conclusion: t.string({ description: "won, lost, inconclusive, stopped_early or invalid; null clears." }),
    comment: t.string({ description: "Why." }),
  }),
  body: (input) => ({
    conclusion: input.conclusion ?? null,
    ...(input.comment === undefined ? {} : { conclusion_comment: input.comment }),
  }),
});

lifecycleMutation<Record<string, never>>({
  name: "deleteExperiment",
  verb: "deleted",
  description: "Soft-deletes an experiment (REST PATCH `deleted: true`; a hard delete is refused).",
  inputDescription: "An experiment to delete.",
  extra: () => ({}),
  body: () => ({ deleted: true }),
});

lifecycleMutation<Record<string, never>>({
  name: "restoreExperiment",
  verb: "restored",
  description: "Restores a soft-deleted experiment (REST PATCH `deleted: false`).",
  inputDescription: "A deleted experiment to restore.",
  extra: () => ({}),
  body: () => ({ deleted: false }),
});

const DuplicateExperimentInput = builder.inputType("DuplicateExperimentInput", {
  description: "An experiment to copy as a draft (REST `POST experiments/:id/duplicate/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
    featureFlagKey: t.string({ description: "Run the copy on this flag instead (its variants are taken)." }),
  }),
});

builder.mutationField("duplicateExperiment", (t) =>
  t.field({
    type: ExperimentRef,
    nullable: true,
    description:
      "Copies an experiment as a draft named `<name> (Copy)` (then `(Copy) 1`, ...). Scope `experiment:write`.",
    extensions: requiresScopes("experiment:write"),
    args: {
      input: t.arg({ type: DuplicateExperimentInput, required: true, description: "Which experiment." }),
    },
    errors: result("DuplicateExperiment", "duplicated"),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.experiments.duplicate(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationId(input.id),
        input.featureFlagKey == null ? {} : { feature_flag_key: input.featureFlagKey },
      ),
  }),
);

const CreateExposureCohortForExperimentInput = builder.inputType("CreateExposureCohortForExperimentInput", {
  description:
    "A launched experiment whose exposed persons to keep as a cohort (REST `POST experiments/:id/" +
    "create_exposure_cohort_for_experiment/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
  }),
});

builder.mutationField("createExposureCohortForExperiment", (t) =>
  t.field({
    type: CohortRef,
    nullable: true,
    description:
      'Creates the dynamic cohort `Users exposed to experiment "<name>"` (persons who performed the exposure ' +
      "event since the start) and links it as the experiment's `exposureCohort`, in one transaction. A draft, " +
      "or an experiment that has one, is refused. Scope `experiment:write`.",
    extensions: requiresScopes("experiment:write"),
    args: {
      input: t.arg({
        type: CreateExposureCohortForExperimentInput,
        required: true,
        description: "Which experiment.",
      }),
    },
    errors: mutationResult({
      name: "CreateExposureCohortForExperiment",
      field: "cohort",
      what: "The cohort",
      verb: "created",
      types: WRITE_ERRORS,
    }),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.experiments.createExposureCohort(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationId(input.id),
        {},
      ),
  }),
);
