/**
 * The filters object as GraphQL input types, each mapped field by field onto PostHog's snake_case
 * `filters` JSON, which the service validates (rules/filters.ts) exactly as it validates REST's.
 */
import { builder } from "../../graphql/builder.js";
import { postHogFields } from "../../graphql/input-mapping.js";

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

/** The `FeatureFlagConditionGroupInput` input type: one release condition. */
export const ConditionGroupInput = builder.inputType("FeatureFlagConditionGroupInput", {
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

/** The service's body of one release condition (PostHog's snake_case `filters.groups[]` item). */
export const groupBody = (g: typeof ConditionGroupInput.$inferInput) =>
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

/** The `FeatureFlagFiltersInput` input type. */
export const FeatureFlagFiltersInput = builder.inputType("FeatureFlagFiltersInput", {
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

/** The service's `filters` body for a `FeatureFlagFiltersInput`. */
export const filtersBody = (f: typeof FeatureFlagFiltersInput.$inferInput) =>
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
