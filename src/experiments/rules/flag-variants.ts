/**
 * The flag an experiment runs on (`ExperimentSerializer`, posthog-behavior.md §5.3): which flags are
 * eligible (≥ 2 variants, `control` first), the variants a request may ask for, and the filters
 * PostHog writes on an experiment's flag for its variants and holdout. Pure: no reads, no writes.
 */
import { ValidationError } from "../../core/errors.js";

/** PostHog's default variants of a new experiment flag. */
const DEFAULT_VARIANTS = [
  { key: "control", name: "Control Group", rollout_percentage: 50 },
  { key: "test", name: "Test Variant", rollout_percentage: 50 },
];

/** Most variants an experiment may have (newer PostHog: fewer than 21). */
const MAX_VARIANTS = 20;

/** A JSON object. */
export type Obj = Record<string, unknown>;

/** Whether `value` is a JSON object (not null, not a list). */
export function isObject(value: unknown): value is Obj {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The flag's variants (`filters.multivariate.variants`), [] when none. */
export function flagVariants(filters: unknown): Array<{ key: string }> {
  const multivariate = isObject(filters) ? filters["multivariate"] : undefined;
  const variants = isObject(multivariate) ? multivariate["variants"] : undefined;
  return Array.isArray(variants) ? (variants.filter(isObject) as Array<{ key: string }>) : [];
}

/** Whether a flag can run an experiment: ≥ 2 variants, `control` first (spec "Experiment"). */
export function isEligibleFlag(filters: unknown): boolean {
  const variants = flagVariants(filters);
  return variants.length >= 2 && variants[0]?.key === "control";
}

/**
 * `parameters.feature_flag_variants` (ExperimentSerializer.validate_parameters): fewer than 21, one
 * keyed `control`. @throws ValidationError attr `parameters`.
 */
export function checkParameters(parameters: unknown): void {
  if (!parameters) return;
  if (!isObject(parameters))
    throw new ValidationError("Parameters must be an object", { attr: "parameters" });
  const variants = parameters["feature_flag_variants"] ?? [];
  if (!Array.isArray(variants)) {
    throw new ValidationError("Feature flag variants must be a list", { attr: "parameters" });
  }
  if (variants.length > MAX_VARIANTS) {
    throw new ValidationError(`Feature flag variants must be less than ${MAX_VARIANTS + 1}`, {
      attr: "parameters",
    });
  }
  if (variants.length > 0 && !variants.some((v) => isObject(v) && v["key"] === "control")) {
    throw new ValidationError("Feature flag variants must contain a control variant", {
      attr: "parameters",
    });
  }
}

/** The flag filters PostHog writes for an experiment's variants and holdout. */
export function experimentFlagFilters(parameters: unknown, holdoutFilters: unknown): Obj {
  const params = isObject(parameters) ? parameters : {};
  const variants = Array.isArray(params["feature_flag_variants"]) ? params["feature_flag_variants"] : [];
  return {
    groups: [{ properties: [], rollout_percentage: 100 }],
    multivariate: { variants: variants.length > 0 ? variants : DEFAULT_VARIANTS },
    aggregation_group_type_index: params["aggregation_group_type_index"] ?? null,
    // PostHog writes `holdout_groups: None` without a holdout; the flag rules here take a list or no key.
    ...(Array.isArray(holdoutFilters) ? { holdout_groups: holdoutFilters } : {}),
  };
}
