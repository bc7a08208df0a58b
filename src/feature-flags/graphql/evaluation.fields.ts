/**
 * `Project.evaluateFeatureFlags`: every flag of the project evaluated for a distinct id, as remote
 * `/flags` and `evaluation_reasons` evaluate them (the same service, evaluation/evaluation.service.ts):
 * stored person and group properties, with the caller's properties on top. A thin adapter: the
 * inputs become the service's `EvaluationInput`; malformed properties are a typed `ValidationError`,
 * a missing scope a typed `PermissionDeniedError`.
 */
import { ValidationError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { enumValues } from "../../graphql/enums.js";
import { WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { EvaluationReason } from "../evaluation/engine/types.js";
import type { EvaluationInput } from "../evaluation/evaluation.schemas.js";
import type { FlagResult } from "../evaluation/evaluation.service.js";

/** Each reason with what it means (posthog-behavior.md §3.3–3.4, Rust `flag_match_reason.rs`). */
const REASONS: { [K in EvaluationReason]: string } = {
  condition_match: "A condition matched (`condition_match`); `conditionIndex` says which.",
  no_condition_match: "No condition's properties matched (`no_condition_match`).",
  out_of_rollout_bound:
    "A condition matched but the subject is outside its rollout (`out_of_rollout_bound`).",
  no_group_type: "The flag targets a group type the subject has no group of (`no_group_type`).",
  super_condition_value: "Decided by early-access enrolment (`super_condition_value`).",
  holdout_condition_value: "The subject is in the flag's holdout (`holdout_condition_value`).",
  flag_disabled: "The flag is inactive (`flag_disabled`; REST `evaluation_reasons` says `disabled`).",
  missing_dependency: "A flag this one depends on is missing or in a cycle (`missing_dependency`).",
};

const FeatureFlagEvaluationReasonEnum = builder.enumType("FeatureFlagEvaluationReason", {
  description: "Why a flag has its value for a subject.",
  values: enumValues(Object.keys(REASONS) as EvaluationReason[], REASONS),
});

const FeatureFlagEvaluationRef = builder.objectRef<FlagResult>("FeatureFlagEvaluation").implement({
  description:
    "One flag's value for a subject. The value SDKs see is `variant` when set, else `enabled` (REST: `true`, " +
    "`false` or the variant key).",
  fields: (t) => ({
    key: t.string({ description: "The flag's key.", resolve: ({ flag }) => flag.key }),
    flagId: t.int({ description: "The flag's PostHog id.", resolve: ({ flag }) => flag.id }),
    enabled: t.boolean({
      description: "Whether the flag is on for the subject (true for any variant).",
      resolve: ({ evaluation }) => evaluation !== null && evaluation.value !== false,
    }),
    variant: t.string({
      nullable: true,
      description: "The variant key of a multivariate flag that is on; null for a boolean value.",
      resolve: ({ evaluation }) => evaluation?.variant ?? null,
    }),
    reason: t.field({
      type: FeatureFlagEvaluationReasonEnum,
      description: "Why the flag has this value.",
      resolve: ({ evaluation }) => evaluation?.reason ?? "no_condition_match",
    }),
    conditionIndex: t.int({
      nullable: true,
      description:
        "The index in the flag's conditions (`filters.groups`) of the deciding condition, or of the best " +
        "failing one; null when no condition decided.",
      resolve: ({ evaluation }) => evaluation?.conditionIndex ?? null,
    }),
    payload: t.field({
      type: "JSON",
      nullable: true,
      description:
        'The payload of the value (`filters.payloads[variant or "true"]`), parsed from its stored JSON text as ' +
        "SDKs parse it (text that is not JSON as stored); null when the flag is off or has none.",
      resolve: ({ evaluation }) => parsedPayload(evaluation?.payload ?? null),
    }),
  }),
});

/** A stored payload as SDKs read it: JSON text parsed, anything else as is (posthog-node `parsePayload`). */
function parsedPayload(payload: unknown): unknown {
  if (typeof payload !== "string") return payload;
  try {
    return JSON.parse(payload);
  } catch {
    return payload;
  }
}

const GroupKeyInput = builder.inputType("FeatureFlagEvaluationGroupInput", {
  description: "The subject's group of one type (PostHog `groups`: group type → key).",
  fields: (t) => ({
    groupType: t.string({ required: true, description: "The group type's name, e.g. `company`." }),
    groupKey: t.string({ required: true, description: "The group's key." }),
    properties: t.field({
      type: "JSON",
      description: "Properties of the group, a JSON object; they win over the stored group's.",
    }),
  }),
});

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A JSON argument that must be an object (null: none). @throws ValidationError naming `field`. */
function objectArgument(value: unknown, field: string): Record<string, unknown> {
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) {
    throw new ValidationError("Expected a JSON object.", { attr: field, code: "not_a_dict" });
  }
  return value;
}

builder.objectFields(ProjectRef, (t) => ({
  evaluateFeatureFlags: t.field({
    type: [FeatureFlagEvaluationRef],
    nullable: true,
    description:
      "Every flag of the project (inactive ones `FLAG_DISABLED`) evaluated for `distinctId`, as SDKs calling " +
      "`/flags` get them: the person's stored properties, cohorts and groups, with the given properties on top. " +
      "Reads only (no experience-continuity key is written). Scope `feature_flag:read`.",
    extensions: requiresScopes("feature_flag:read"),
    args: {
      distinctId: t.arg.string({ required: true, description: "Whose flags." }),
      groups: t.arg({
        type: [GroupKeyInput],
        description: "The subject's groups, for group flags; each type at most once.",
      }),
      personProperties: t.arg({
        type: "JSON",
        description: "Person properties as a JSON object; they win over the stored ones.",
      }),
      keys: t.arg.stringList({
        description: "Evaluate only these flags (and, silently, their dependencies).",
      }),
    },
    errors: {
      // What a read of the project's flags can fail with, typed as a mutation's failures are.
      types: [...WRITE_ERRORS],
      union: {
        name: "EvaluateFeatureFlagsResult",
        description: "The flags' evaluations, or why the input was refused.",
      },
      result: { name: "EvaluateFeatureFlagsSuccess", description: "The flags were evaluated." },
      dataField: { name: "evaluations", description: "One evaluation per flag." },
    },
    resolve: async (project, args, ctx) => {
      const groups: Record<string, string> = {};
      const groupProperties: Record<string, Record<string, unknown>> = {};
      for (const [index, group] of (args.groups ?? []).entries()) {
        if (Object.hasOwn(groups, group.groupType)) {
          throw new ValidationError(`Group type "${group.groupType}" is given twice.`, {
            attr: `groups__${index}__group_type`,
          });
        }
        groups[group.groupType] = group.groupKey;
        groupProperties[group.groupType] = objectArgument(group.properties, `groups__${index}__properties`);
      }
      const input: EvaluationInput = {
        distinctId: args.distinctId,
        anonDistinctId: null,
        deviceId: null,
        groups,
        personProperties: objectArgument(args.personProperties, "person_properties"),
        groupProperties,
        flagKeys: args.keys ?? null,
      };
      const outcome = await ctx.services.flagEvaluation.evaluate(
        await ctx.serviceContext(),
        project.id,
        input,
      );
      return outcome.results;
    },
  }),
}));
