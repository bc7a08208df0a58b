/**
 * Inputs of the experiment, holdout and saved-metric operations in PostHog's field names (DRF
 * serializers of `ee/clickhouse/views/experiments.py` `ExperimentSerializer`,
 * `experiment_holdouts.py`, `experiment_saved_metrics.py`; posthog-behavior.md §5). Unknown fields
 * are ignored, as DRF does. Rules beyond field types (variants, dates, saved metrics, update keys)
 * are the service's, in PostHog's order.
 */
import { z } from "zod";
import { ValidationError } from "../core/errors.js";
import { drf } from "../core/validation.js";

/** `conclusion` values (`Experiment.ConclusionType`). */
export const CONCLUSIONS = ["won", "lost", "inconclusive", "stopped_early", "invalid"] as const;

/** `type` values (`Experiment.ExperimentType`). */
export const EXPERIMENT_TYPES = ["web", "product"] as const;

/**
 * DRF `CharField`, refusing a NUL in the field's own validation (`ProhibitNullCharactersValidator`), so
 * the error comes in field order, before a later field's (DRF reports the first field's error).
 */
const text = (options: { maxLength?: number; allowBlank?: boolean } = {}) =>
  drf.string(options).refine((value) => !value.includes("\u0000"), {
    message: "Null characters are not allowed.",
    params: { code: "null_characters_not_allowed" },
  });

/** DRF `ChoiceField` of `values`, a NUL refused first (what every other text field of the service answers). */
const choice = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .refine((value) => !value.includes("\u0000"), {
      message: "Null characters are not allowed.",
      params: { code: "null_characters_not_allowed" },
    })
    .pipe(z.enum(values));

/** A JSON field (DRF `JSONField`): any JSON value, null allowed. */
const json = () => z.unknown().optional();

/** DRF's `DateTimeField` message for text it cannot read. */
const DATETIME_FORMAT_ERROR =
  "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].";

/**
 * DRF `DateTimeField` (ISO 8601; a date-time without an offset is UTC, the project's `USE_TZ`
 * default): a `Date`, or null.
 */
const dateTime = () =>
  z
    .string()
    .nullable()
    .transform((value, ctx) => {
      if (value === null) return null;
      const text = value.trim();
      const match =
        /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(
          text,
        );
      const parsed = match
        ? new Date(
            `${match[1]}-${match[2]}-${match[3]}T${match[4] ?? "00"}:${match[5] ?? "00"}:${match[6] ?? "00"}` +
              `.${(match[7] ?? "0").padEnd(3, "0").slice(0, 3)}${match[8] ? normalizeOffset(match[8]) : "Z"}`,
          )
        : null;
      if (!parsed || Number.isNaN(parsed.getTime())) {
        ctx.addIssue({ code: "custom", message: DATETIME_FORMAT_ERROR, params: { code: "invalid" } });
        return z.NEVER;
      }
      return parsed;
    });

function normalizeOffset(offset: string): string {
  if (offset === "Z") return "Z";
  return offset.includes(":") ? offset : `${offset.slice(0, 3)}:${offset.slice(3)}`;
}

/** The experiment's writable fields (spec "Experiment (writable fields)"), each optional. */
const experimentFields = {
  name: text({ maxLength: 400, allowBlank: false }),
  description: text({ maxLength: 3000 }).nullish(),
  start_date: dateTime().optional(),
  end_date: dateTime().optional(),
  feature_flag_key: text({ allowBlank: false }),
  holdout_id: drf.integer().nullish(),
  parameters: json(),
  secondary_metrics: json(),
  saved_metrics_ids: z.array(z.unknown()).nullish(),
  filters: json(),
  archived: drf.boolean(),
  deleted: drf.boolean(),
  type: choice(EXPERIMENT_TYPES).nullish(),
  exposure_criteria: json(),
  metrics: json(),
  metrics_secondary: json(),
  stats_config: json(),
  _create_in_folder: z.string().nullish(),
  conclusion: choice(CONCLUSIONS).nullish(),
  conclusion_comment: z.string().nullish(),
  primary_metrics_ordered_uuids: z.array(z.string()).nullish(),
  secondary_metrics_ordered_uuids: z.array(z.string()).nullish(),
};

/** `POST experiments/`: `name` and `feature_flag_key` required. */
export const createExperimentSchema = z.object({
  ...experimentFields,
  archived: experimentFields.archived.optional(),
  deleted: experimentFields.deleted.optional(),
});

/** `PATCH experiments/:id/`: every field optional. */
export const updateExperimentSchema = z.object({
  ...experimentFields,
  name: experimentFields.name.optional(),
  feature_flag_key: experimentFields.feature_flag_key.optional(),
  archived: experimentFields.archived.optional(),
  deleted: experimentFields.deleted.optional(),
});

/** A parsed create body. */
export type CreateExperimentInput = z.output<typeof createExperimentSchema>;
/** A parsed update body. */
export type UpdateExperimentInput = z.output<typeof updateExperimentSchema>;

/** `POST :id/duplicate`'s optional body. */
export const duplicateExperimentSchema = z.object({ feature_flag_key: z.string().nullish() });

/** Orders the list accepts besides the computed `duration` and `status` (DRF `OrderingFilter`). */
export const EXPERIMENT_ORDER_FIELDS = [
  "id",
  "name",
  "created_at",
  "updated_at",
  "start_date",
  "end_date",
  "duration",
  "status",
] as const;

/** The list's filters (§5.2). */
export const experimentListFiltersSchema = z.object({
  status: z.enum(["draft", "running", "complete", "all"]).optional(),
  created_by_id: drf.integer().optional(),
  archived: drf.boolean().optional(),
  search: z.string().optional(),
  order: z.string().optional(),
});

/** Parsed list filters. */
export type ExperimentListFilters = z.output<typeof experimentListFiltersSchema>;

/** `eligible_feature_flags`' query parameters (§5.5). */
export const eligibleFlagsQuerySchema = z.object({
  search: z.string().optional(),
  active: drf.boolean().optional(),
  created_by_id: drf.integer().optional(),
  evaluation_runtime: z.string().optional(),
  has_evaluation_tags: drf.boolean().optional(),
  order: z.string().optional(),
});

/** A holdout's writable fields (`ExperimentHoldoutSerializer`). */
export const holdoutSchema = z.object({
  name: text({ maxLength: 400, allowBlank: false }),
  description: text({ maxLength: 400 }).nullish(),
  filters: z.array(z.unknown()),
});

/** A holdout's partial update. */
export const holdoutUpdateSchema = holdoutSchema.partial();

/** A saved metric's writable fields (`ExperimentSavedMetricSerializer`). */
export const savedMetricSchema = z.object({
  name: text({ maxLength: 400, allowBlank: false }),
  description: text({ maxLength: 400 }).nullish(),
  query: z.record(z.string(), z.unknown()),
});

/** A saved metric's partial update. */
export const savedMetricUpdateSchema = savedMetricSchema.partial();

/**
 * Holdout `filters` (ee/clickhouse/views/experiment_holdouts.py `validate_filters`): a list of
 * groups, each with a `rollout_percentage` number in [0, 100].
 * @throws ValidationError attr `filters`.
 */
export function checkHoldoutFilters(filters: unknown[]): void {
  for (const group of filters) {
    const rollout =
      group !== null && typeof group === "object"
        ? (group as Record<string, unknown>)["rollout_percentage"]
        : undefined;
    if (rollout === undefined || rollout === null) {
      throw new ValidationError("Rollout percentage must be present.", { attr: "filters" });
    }
    if (typeof rollout !== "number" || rollout < 0 || rollout > 100) {
      throw new ValidationError("Rollout percentage must be between 0 and 100.", { attr: "filters" });
    }
  }
}
