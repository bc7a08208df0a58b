/**
 * Scheduled-change writes for GraphQL: create, update, delete, through the same service methods as
 * REST (inputs re-encoded into REST's body, so PostHog's rules and messages apply alike). The target
 * is a flag (`featureFlagId`: its integer id or global id), so `model_name` is `FeatureFlag`.
 */
import { SCHEDULE_APPROVAL_ERRORS } from "../../approvals/graphql/refs.js";
import { NotFoundError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseIntegerObjectId, parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { mutationResult, WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { requiresScopes } from "../../graphql/scopes.js";
import {
  parseScheduledChangeId,
  RecurrenceIntervalEnum,
  ScheduledChangeOperationEnum,
  ScheduledChangeRef,
} from "./scheduled-change.type.js";

const PROJECT_ID_DESCRIPTION =
  "The change's project: PostHog's integer id (REST's `:project_id`) or the project's global `id`.";
const ID_DESCRIPTION = "The scheduled change: its integer id or its global `id`.";

/** The writable fields, with their REST names. */
const FIELD_NAMES = {
  featureFlagId: "record_id",
  payload: "payload",
  scheduledAt: "scheduled_at",
  isRecurring: "is_recurring",
  recurrenceInterval: "recurrence_interval",
  cronExpression: "cron_expression",
  endDate: "end_date",
} as const;

/** A `DateTime` input as REST's ISO text. */
const isoText = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** REST's `record_id` of a `featureFlagId`: the flag's integer id (from a global id too), else the text as given. */
const recordId = (value: unknown) => {
  const raw = String(value);
  return parseIntegerObjectId(raw, "FeatureFlag", "project") ?? raw;
};

/** REST's `payload` of a payload input: `{operation, value}`, `value` left out when absent. */
const payload = (value: { operation: string; value?: unknown }) => ({
  operation: value.operation,
  ...(value.value === undefined ? {} : { value: value.value }),
});

const CONVERT = { featureFlagId: recordId, payload, scheduledAt: isoText, endDate: isoText };

/** The integer id of a mutation input's `id`. @throws NotFoundError for an id naming no scheduled change. */
function mutationId(raw: string): number {
  const id = parseScheduledChangeId(raw);
  if (id === null) throw new NotFoundError();
  return id;
}

const ScheduledChangePayloadInput = builder.inputType("ScheduledChangePayloadInput", {
  description:
    "The change to apply (REST's `payload`): checked when it applies, as PostHog does, so a bad `value` " +
    "ends the schedule then with PostHog's message.",
  fields: (t) => ({
    operation: t.field({ type: ScheduledChangeOperationEnum, required: true, description: "What to do." }),
    value: t.field({
      type: "JSON",
      description:
        "Its argument: true/false (`UPDATE_STATUS`), `{groups}` (`ADD_RELEASE_CONDITION`), `{variants, payloads}` (`UPDATE_VARIANTS`).",
    }),
  }),
});

const CreateScheduledChangeInput = builder.inputType("CreateScheduledChangeInput", {
  description: "A change to schedule on a flag (REST `POST scheduled_changes/`, `model_name` `FeatureFlag`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    featureFlagId: t.id({ required: true, description: "The flag: its integer id or its global `id`." }),
    payload: t.field({ type: ScheduledChangePayloadInput, required: true, description: "The change." }),
    scheduledAt: t.field({ type: "DateTime", required: true, description: "When it applies." }),
    isRecurring: t.boolean({
      description: "Whether it recurs (default false); only `update_status` may recur.",
    }),
    recurrenceInterval: t.field({
      type: RecurrenceIntervalEnum,
      description: "How often it recurs; or give `cronExpression`.",
    }),
    cronExpression: t.string({
      description: "A 5-field cron expression (`0 9 * * 1-5`), read in the project's time zone.",
    }),
    endDate: t.field({ type: "DateTime", description: "A recurring schedule stops after this time." }),
  }),
});

builder.mutationField("createScheduledChange", (t) =>
  t.field({
    type: ScheduledChangeRef,
    nullable: true,
    description: "Schedules a change to a flag. Scope `feature_flag:write`.",
    extensions: requiresScopes("feature_flag:write"),
    args: {
      input: t.arg({ type: CreateScheduledChangeInput, required: true, description: "The change and when." }),
    },
    errors: mutationResult({
      name: "CreateScheduledChange",
      field: "scheduledChange",
      what: "The scheduled change",
      verb: "created",
      types: [...WRITE_ERRORS, ...SCHEDULE_APPROVAL_ERRORS],
    }),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, ...fields } = input;
      return ctx.services.scheduledChanges.create(await ctx.serviceContext(), parseProjectId(projectId), {
        model_name: "FeatureFlag",
        ...postHogFields(fields, FIELD_NAMES, CONVERT),
      });
    },
  }),
);

const UpdateScheduledChangeInput = builder.inputType("UpdateScheduledChangeInput", {
  description:
    "Changes to a scheduled change (REST `PATCH scheduled_changes/:id/`): an absent field keeps its value; " +
    "`isRecurring: false` pauses a recurring one, keeping its recurrence.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
    featureFlagId: t.id({ description: "The flag, which cannot change: another one is refused." }),
    payload: t.field({ type: ScheduledChangePayloadInput, description: "A new change." }),
    scheduledAt: t.field({ type: "DateTime", description: "A new time." }),
    isRecurring: t.boolean({ description: "Pause (false) or resume (true) a recurring schedule." }),
    recurrenceInterval: t.field({
      type: RecurrenceIntervalEnum,
      description: "A new interval (null clears).",
    }),
    cronExpression: t.string({ description: "A new cron expression (null clears)." }),
    endDate: t.field({ type: "DateTime", description: "A new end date (null clears)." }),
  }),
});

builder.mutationField("updateScheduledChange", (t) =>
  t.field({
    type: ScheduledChangeRef,
    nullable: true,
    description: "Changes a scheduled change. Scope `feature_flag:write`.",
    extensions: requiresScopes("feature_flag:write"),
    args: { input: t.arg({ type: UpdateScheduledChangeInput, required: true, description: "The changes." }) },
    errors: mutationResult({
      name: "UpdateScheduledChange",
      field: "scheduledChange",
      what: "The scheduled change",
      verb: "updated",
      types: [...WRITE_ERRORS, ...SCHEDULE_APPROVAL_ERRORS],
    }),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, id, ...fields } = input;
      return ctx.services.scheduledChanges.update(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        mutationId(id),
        postHogFields(fields, FIELD_NAMES, CONVERT),
        true,
      );
    },
  }),
);

const DeleteScheduledChangeInput = builder.inputType("DeleteScheduledChangeInput", {
  description: "A scheduled change to delete (REST `DELETE scheduled_changes/:id/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
  }),
});

builder.mutationField("deleteScheduledChange", (t) =>
  t.field({
    type: ScheduledChangeRef,
    nullable: true,
    description:
      "Deletes a scheduled change; it no longer runs. Answers it as it was. Scope `feature_flag:write`.",
    extensions: requiresScopes("feature_flag:write"),
    args: {
      input: t.arg({ type: DeleteScheduledChangeInput, required: true, description: "Which change." }),
    },
    errors: mutationResult({
      name: "DeleteScheduledChange",
      field: "scheduledChange",
      what: "The scheduled change",
      verb: "deleted",
      types: WRITE_ERRORS,
    }),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.scheduledChanges.remove(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationId(input.id),
      ),
  }),
);
