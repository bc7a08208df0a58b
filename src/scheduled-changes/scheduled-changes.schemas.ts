/**
 * Inputs of the scheduled-change operations in PostHog's field names (DRF's
 * `ScheduledChangeSerializer`, products/feature_flags/backend/api/scheduled_change.py), and the
 * constants both doors build from (`ScheduledChange.AllowedModels`, `RecurrenceInterval`,
 * `OperationType` of products/feature_flags/backend/models/scheduled_change.py). Field types and
 * their DRF messages are here; the rules across fields (`validate`) are rules/schedule.ts's.
 * Unknown and read-only fields (`id`, `team_id`, `executed_at`, `timezone`, ...) are ignored, as DRF does.
 */
import { z } from "zod";
import { drf } from "../core/validation.js";

/** The models a change can target (`ScheduledChange.AllowedModels`). */
export const MODEL_NAMES = ["FeatureFlag"] as const;

/** A target model. */
export type ModelName = (typeof MODEL_NAMES)[number];

/** How often a recurring schedule runs (`ScheduledChange.RecurrenceInterval`). */
export const RECURRENCE_INTERVALS = ["daily", "weekly", "monthly", "yearly"] as const;

/** A recurrence interval. */
export type RecurrenceInterval = (typeof RECURRENCE_INTERVALS)[number];

/** What a payload's `operation` may be (`ScheduledChange.OperationType`). */
export const OPERATIONS = ["update_status", "add_release_condition", "update_variants"] as const;

/** A payload operation. */
export type Operation = (typeof OPERATIONS)[number];

/** The NUL refusal every text field of the service makes in its own validation (DRF's `ProhibitNullCharactersValidator`). */
const noNul = {
  message: "Null characters are not allowed.",
  params: { code: "null_characters_not_allowed" },
};

/**
 * DRF `CharField` (trimmed, as DRF's default `trim_whitespace`): text, or a number taken as its
 * text (DRF accepts `int` and `float`); a boolean, list or object is "Not a valid string.".
 */
const charField = (options: { maxLength: number; allowBlank: boolean }) =>
  z.preprocess(
    (value) => (typeof value === "number" && Number.isFinite(value) ? String(value) : value),
    drf
      .string()
      .trim()
      .pipe(drf.string(options))
      .refine((value) => !value.includes("\u0000"), noNul),
  );

/** DRF `ChoiceField` of `values`, a NUL refused first. */
const choice = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .refine((value) => !value.includes("\u0000"), noNul)
    .pipe(z.enum(values));

/** DRF's `DateTimeField` message for a value it cannot read. */
export const DATETIME_FORMAT_ERROR =
  "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].";

const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Reads ISO 8601 text as DRF's `DateTimeField` does (Django's `parse_datetime`, then Python's
 * `fromisoformat`): a date, optionally a time with seconds and up to six fraction digits, optionally
 * an offset (`Z`, `±HH`, `±HHMM`, `±HH:MM`); without an offset the time is UTC (PostHog's `TIME_ZONE`).
 * Returns null for anything else, or for a day or time that does not exist (`2026-02-30`).
 */
export function parseDateTime(text: string): Date | null {
  const match = ISO_DATETIME.exec(text.trim());
  if (!match) return null;
  const [, y, mo, d, h = "00", mi = "00", s = "00", fraction = "0", zone] = match;
  let offset = "Z";
  if (zone && zone.toUpperCase() !== "Z") {
    const digits = zone.slice(1).replace(":", "");
    offset = `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2, 4) || "00"}`;
  }
  const ms = fraction.padEnd(3, "0").slice(0, 3);
  const parsed = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}${offset}`);
  if (Number.isNaN(parsed.getTime())) return null;
  // `new Date` rolls 2026-02-30 over to March: a day that does not exist is refused, as Python does.
  const check = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d)) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  return parsed;
}

/**
 * DRF `DateTimeField` (see `parseDateTime`): a `Date`; anything else is PostHog's format message.
 * `description` documents the field (OpenAPI: an ISO 8601 date-time string).
 */
const dateTime = (description: string) =>
  z
    .unknown()
    .transform((value, ctx) => {
      const parsed = typeof value === "string" ? parseDateTime(value) : null;
      if (parsed === null) {
        if (value === undefined || value === null) {
          // Left to the field's own required / null handling (the schemas below wrap this one).
          ctx.addIssue({ code: "invalid_type", expected: "string", input: value });
          return z.NEVER;
        }
        ctx.addIssue({ code: "custom", message: DATETIME_FORMAT_ERROR, params: { code: "invalid" } });
        return z.NEVER;
      }
      return parsed;
    })
    .meta({ type: "string", format: "date-time", description });

/** The writable fields of a scheduled change, each as the serializer declares it. */
const fields = {
  /** `CharField(max_length=200)`: the target's id, e.g. a flag's `12` (a number is taken as its text). */
  record_id: charField({ maxLength: 200, allowBlank: false }).describe(
    "The ID of the record to modify (e.g. the feature flag ID).",
  ),
  /** `ChoiceField(AllowedModels)`: `FeatureFlag`. */
  model_name: choice(MODEL_NAMES).describe(
    'The type of record to modify. Currently only "FeatureFlag" is supported.',
  ),
  /** `JSONField`: `{operation, value}`; checked when it is applied, as PostHog does (only its being an object here). */
  payload: z
    .record(z.string(), z.unknown())
    .describe(
      "The change to apply. Must include an 'operation' key and a 'value' key. Supported operations: " +
        "'update_status' (value: true/false to enable/disable the flag), 'add_release_condition' (value: object " +
        "with 'groups', 'payloads', and 'multivariate' keys), 'update_variants' (value: object with 'variants' and 'payloads' keys).",
    ),
  /** `DateTimeField`: when the change applies. */
  scheduled_at: dateTime(
    "ISO 8601 datetime when the change should be applied (e.g. '2025-06-01T14:00:00Z').",
  ),
  /** `BooleanField(default=False)`. */
  is_recurring: drf
    .boolean()
    .describe(
      "Whether this schedule repeats. Only the 'update_status' operation supports recurring schedules.",
    ),
  /** `ChoiceField(RecurrenceInterval, allow_null=True)`. */
  recurrence_interval: choice(RECURRENCE_INTERVALS)
    .nullable()
    .describe(
      "How often the schedule repeats. Required when is_recurring is true. One of: daily, weekly, monthly, yearly.",
    ),
  /** The model's `CharField(max_length=100, null=True, blank=True)`: a 5-field cron expression. */
  cron_expression: charField({ maxLength: 100, allowBlank: true })
    .nullable()
    .describe(
      "A standard 5-field cron expression (minute hour day month weekday), read in the project's time zone.",
    ),
  /** `DateTimeField(allow_null=True)`: a recurring schedule stops after it. */
  end_date: dateTime(
    "Optional ISO 8601 datetime after which a recurring schedule stops executing.",
  ).nullable(),
};

/** `POST scheduled_changes/` (and `PUT`): `record_id`, `model_name`, `payload` and `scheduled_at` required. */
export const createScheduledChangeSchema = z.object({
  record_id: fields.record_id,
  model_name: fields.model_name,
  payload: fields.payload,
  scheduled_at: fields.scheduled_at,
  is_recurring: fields.is_recurring.optional(),
  recurrence_interval: fields.recurrence_interval.optional(),
  cron_expression: fields.cron_expression.optional(),
  end_date: fields.end_date.optional(),
});

/** `PATCH scheduled_changes/:id/`: every field optional (absent keeps the stored value). */
export const updateScheduledChangeSchema = z.object({
  record_id: fields.record_id.optional(),
  model_name: fields.model_name.optional(),
  payload: fields.payload.optional(),
  scheduled_at: fields.scheduled_at.optional(),
  is_recurring: fields.is_recurring.optional(),
  recurrence_interval: fields.recurrence_interval.optional(),
  cron_expression: fields.cron_expression.optional(),
  end_date: fields.end_date.optional(),
});

/** A parsed write body (create's fields all present; an update's absent fields undefined). */
export type ScheduledChangeInput = z.output<typeof updateScheduledChangeSchema>;

/**
 * The list's filters (`safely_get_queryset`): exact `model_name` and `record_id`, each any text
 * (no match is an empty page, as PostHog's `filter`). For the OpenAPI document; the service reads
 * them from the query as they come.
 */
export const scheduledChangeListQuerySchema = z.object({
  model_name: z
    .string()
    .optional()
    .describe('Filter by model type. Use "FeatureFlag" to see feature flag schedules.'),
  record_id: z.string().optional().describe("Filter by the ID of a specific feature flag."),
});

/** The list's filters as the service takes them: absent means no filter. */
export interface ScheduledChangeFilters {
  modelName?: string | undefined;
  recordId?: string | undefined;
}

/** The payload of the job that applies one scheduled change when it is due. */
export const runJobSchema = z.object({ id: z.int().positive() });
