/**
 * The `Experiment` object type (a node, keyed by its integer id), its flag, holdout and saved metrics:
 * records as the experiment service reads them (experiments.queries.ts). Field names are camelCase
 * versions of REST's (posthog-behavior.md §5.1).
 */
import { CohortRef } from "../../cohorts/graphql/refs.js";
import { NotFoundError } from "../../core/errors.js";
import { parseIntegerId } from "../../core/validation.js";
import { builder } from "../../graphql/builder.js";
import { decodeGlobalId, parseProjectOwnedLocalId, projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { UserRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { ExperimentRecord, HoldoutRecord } from "../experiments.queries.js";
import { experimentStatus } from "../experiments.service.js";

type FlagOfExperiment = ExperimentRecord["featureFlag"];
type SavedMetricLink = ExperimentRecord["savedMetricLinks"][number];

/** The experiment's flag, in PostHog's minimal flag shape. */
const ExperimentFeatureFlagRef = builder.objectRef<FlagOfExperiment>("ExperimentFeatureFlag").implement({
  description: "The multivariate flag an experiment runs on (PostHog's MinimalFeatureFlag).",
  fields: (t) => ({
    databaseId: t.exposeInt("id", { description: "The flag's integer id (REST's `feature_flag.id`)." }),
    key: t.exposeString("key", { description: "The flag key." }),
    name: t.exposeString("name", { description: "The flag's description." }),
    active: t.exposeBoolean("active", {
      description: "Whether the flag is on (a launched experiment's is).",
    }),
    deleted: t.exposeBoolean("deleted", { description: "Whether the flag is soft-deleted." }),
    version: t.exposeInt("version", { description: "The flag's version." }),
    filters: t.field({
      type: "JSON",
      description: "The flag's release conditions.",
      resolve: (f) => f.filters,
    }),
  }),
});

/** A holdout. */
export const ExperimentHoldoutRef = builder.objectRef<HoldoutRecord>("ExperimentHoldout").implement({
  description: "A share of users kept out of experiments (PostHog's ExperimentHoldout).",
  fields: (t) => ({
    databaseId: t.exposeInt("id", { description: "The holdout's integer id (REST's `holdout_id`)." }),
    name: t.exposeString("name", { description: "Its name." }),
    description: t.exposeString("description", { nullable: true, description: "Its description." }),
    filters: t.field({
      type: "JSON",
      description: 'Its groups, each `{properties, rollout_percentage, variant: "holdout-<id>"}`.',
      resolve: (h) => h.filters,
    }),
  }),
});

/** An experiment's use of a saved metric. */
const ExperimentSavedMetricLinkRef = builder
  .objectRef<SavedMetricLink>("ExperimentSavedMetricLink")
  .implement({
    description: "A saved metric an experiment uses, with its metadata.",
    fields: (t) => ({
      savedMetricId: t.exposeInt("savedMetricId", { description: "The saved metric's integer id." }),
      name: t.string({ description: "The saved metric's name.", resolve: (l) => l.savedMetric.name }),
      query: t.field({ type: "JSON", description: "The saved metric.", resolve: (l) => l.savedMetric.query }),
      metadata: t.field({
        type: "JSON",
        nullable: true,
        description: '`{type: "primary"|"secondary"}` or null.',
        resolve: (l) => l.metadata,
      }),
    }),
  });

/** The `Experiment` object type. */
export const ExperimentRef = builder.objectRef<ExperimentRecord>("Experiment").implement({
  description:
    "An experiment (PostHog's Experiment): a multivariate flag, its metrics and its lifecycle (draft, running, stopped).",
  extensions: requiresScopes("experiment:read"),
  fields: (t) => ({
    databaseId: t.exposeInt("id", { description: "The experiment's integer id (REST's `:id`)." }),
    name: t.exposeString("name", { description: "Its name." }),
    description: t.exposeString("description", { nullable: true, description: "Its description." }),
    status: t.string({
      description: "`draft` (no start), `running` (started, not ended) or `stopped` (ended).",
      resolve: (x) => experimentStatus(x),
    }),
    startDate: t.expose("startDate", {
      type: "DateTime",
      nullable: true,
      description: "When it was launched.",
    }),
    endDate: t.expose("endDate", { type: "DateTime", nullable: true, description: "When it ended." }),
    featureFlagKey: t.string({ description: "Its flag's key.", resolve: (x) => x.featureFlag.key }),
    featureFlag: t.field({
      type: ExperimentFeatureFlagRef,
      description: "Its flag.",
      resolve: (x) => x.featureFlag,
    }),
    holdout: t.field({
      type: ExperimentHoldoutRef,
      nullable: true,
      description: "Its holdout, if any.",
      resolve: (x) => x.holdout,
    }),
    exposureCohortId: t.exposeInt("exposureCohortId", {
      nullable: true,
      description: "Its exposure cohort's id.",
    }),
    exposureCohort: t.field({
      type: CohortRef,
      nullable: true,
      description:
        "Its exposure cohort (`createExposureCohortForExperiment`), if any and not deleted. Scope `cohort:read`.",
      resolve: async (x, _args, ctx) => {
        if (x.exposureCohortId === null) return null;
        try {
          return await ctx.services.cohorts.get(await ctx.serviceContext(), x.projectId, x.exposureCohortId);
        } catch (error) {
          if (error instanceof NotFoundError) return null;
          throw error;
        }
      },
    }),
    parameters: t.field({
      type: "JSON",
      nullable: true,
      description: "feature_flag_variants, ...",
      resolve: (x) => x.parameters,
    }),
    metrics: t.field({
      type: "JSON",
      description: "Primary ExperimentMetric objects, each with its fingerprint.",
      resolve: (x) => x.metrics ?? [],
    }),
    metricsSecondary: t.field({
      type: "JSON",
      description: "Secondary ExperimentMetric objects, each with its fingerprint.",
      resolve: (x) => x.metricsSecondary ?? [],
    }),
    savedMetrics: t.field({
      type: [ExperimentSavedMetricLinkRef],
      description: "The saved metrics it uses.",
      resolve: (x) => x.savedMetricLinks,
    }),
    exposureCriteria: t.field({
      type: "JSON",
      nullable: true,
      description: "filterTestAccounts, exposure_config, multiple_variant_handling.",
      resolve: (x) => x.exposureCriteria,
    }),
    statsConfig: t.field({
      type: "JSON",
      nullable: true,
      description: "`{method: bayesian|frequentist, ...}`.",
      resolve: (x) => x.statsConfig,
    }),
    type: t.exposeString("type", { nullable: true, description: "`product` or `web`." }),
    conclusion: t.exposeString("conclusion", {
      nullable: true,
      description: "won, lost, inconclusive, stopped_early or invalid.",
    }),
    conclusionComment: t.exposeString("conclusionComment", { nullable: true, description: "Why." }),
    archived: t.exposeBoolean("archived", {
      description: "Whether it is archived (left out of lists by default).",
    }),
    deleted: t.exposeBoolean("deleted", { description: "Whether it is soft-deleted." }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who created it.",
      resolve: (x) => x.createdBy,
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was created." }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When it last changed." }),
  }),
});

implementNode(ExperimentRef, {
  localId: (x) => projectOwnedLocalId(x.projectId, x.id),
  // Scope `experiment:read` and the project check, as `Project.experiment`.
  load: projectOwnedLoader(
    (key) => parseIntegerId(key),
    (ctx, serviceContext, projectId, ids) => ctx.services.experiments.getMany(serviceContext, projectId, ids),
  ),
});

/** The integer id in an experiment id input: the id itself or the experiment's global id; null otherwise. */
export function parseExperimentId(raw: string): number | null {
  const plain = parseIntegerId(raw);
  if (plain !== null) return plain;
  const global = decodeGlobalId(raw);
  if (global === null || global.typename !== "Experiment") return null;
  const owned = parseProjectOwnedLocalId(global.localId);
  return owned === null ? null : parseIntegerId(owned.key);
}
