/**
 * Inputs of the cohort operations, in PostHog's field names (the REST contract; GraphQL maps its
 * camelCase inputs onto these). One schema per intent: create/update, list filters, adding and
 * removing persons of a static cohort. Read-only fields in a body (`id`, `count`, `created_by`, ...)
 * and unknown fields are ignored, as DRF does. A dynamic cohort's `filters` are checked further by
 * `rules/criteria.ts`.
 * Source: `posthog/api/cohort.py` CohortSerializer, AddPersonsToStaticCohortRequestSerializer,
 * RemovePersonRequestSerializer, `CohortViewSet._filter_request`; `posthog/models/cohort/cohort.py`.
 */
import { z } from "zod";
import { drf } from "../core/validation.js";
import { cohortCriteriaSchema } from "../lib/property-filters/property-filters.js";

/** Values of `cohort_type` (PostHog's `CohortType`). */
export const COHORT_TYPES = ["static", "person_property", "behavioral", "analytical"] as const;
/** One of `COHORT_TYPES`. */
export type CohortType = (typeof COHORT_TYPES)[number];

/** Longest `name` (`CharField(max_length=400)`) and `description` (`max_length=1000`). */
export const COHORT_NAME_MAX_LENGTH = 400;
const DESCRIPTION_MAX_LENGTH = 1000;

/** Most person ids one `add_persons_to_static_cohort` call takes (`DEFAULT_COHORT_INSERT_BATCH_SIZE`). */
export const MAX_PERSONS_PER_ADD = 1000;

const writableFields = {
  name: drf.string({ maxLength: COHORT_NAME_MAX_LENGTH }).nullable(),
  description: drf.string({ maxLength: DESCRIPTION_MAX_LENGTH }),
  /** The legacy criteria form (`[{properties: [...]}, ...]`), kept as sent. */
  groups: z.array(z.record(z.string(), z.unknown())),
  deleted: drf.boolean(),
  /** `{properties: <property group>}`; checked by `criteriaSchema` for dynamic cohorts only. */
  filters: z.record(z.string(), z.unknown()).nullable(),
  /** A HogQL/actors query defining a static cohort's members. */
  query: z.record(z.string(), z.unknown()).nullable(),
  is_static: drf.boolean(),
  cohort_type: drf.choice(COHORT_TYPES).nullable(),
  _create_in_folder: drf.string(),
};

type Writable = { [K in keyof typeof writableFields]: z.output<(typeof writableFields)[K]> };

/** A validated create or update body: every field optional (absent keeps, on update). */
export type CohortInput = Partial<Writable> & { _create_static_person_ids?: string[] };

/**
 * `POST cohorts/` and `PATCH cohorts/:id/`: every field optional (PostHog has no required field).
 * `_create_static_person_ids` (create only): person uuids to put in a new static cohort.
 */
export const cohortInputSchema = z.object({
  ...(Object.fromEntries(Object.entries(writableFields).map(([k, v]) => [k, v.optional()])) as {
    [K in keyof typeof writableFields]: z.ZodOptional<(typeof writableFields)[K]>;
  }),
  _create_static_person_ids: z.array(drf.string()).optional(),
}) as z.ZodType<CohortInput>;

/**
 * A dynamic cohort's `filters`, PostHog's `CohortFilters` pydantic model: a `properties` property
 * group of person, cohort and behavioral criteria. Parsed under the key `filters` so errors name
 * their path from it (`filters__properties__values__0__key`).
 */
export const criteriaSchema = z.object({
  filters: z.looseObject({ properties: cohortCriteriaSchema }),
});

/**
 * `PATCH cohorts/:id/add_persons_to_static_cohort/`: a non-empty list of at most
 * `MAX_PERSONS_PER_ADD` person uuids, with PostHog's messages (`add_persons_to_static_cohort`).
 */
export const addPersonsSchema = z.object({
  person_ids: z
    .unknown()
    .superRefine((value, ctx) => {
      const fail = (message: string) => ctx.addIssue({ code: "custom", message });
      if (!Array.isArray(value)) fail("person_ids must be a list");
      else if (value.length === 0) fail("person_ids cannot be empty");
      else if (value.length > MAX_PERSONS_PER_ADD) fail("List size exceeds limit");
    })
    .pipe(z.array(z.uuid({ error: "Must be a valid UUID." }))),
});

/** `PATCH cohorts/:id/remove_person_from_static_cohort/`: one person uuid. */
export const removePersonSchema = z.object({
  person_id: z.uuid({ error: "Must be a valid UUID." }),
});

/** Values of the list's `type` filter. */
export const COHORT_KIND_FILTERS = ["static", "dynamic"] as const;

/** A filter PostHog ignores when its value is bad: absent or unparseable means "do not filter". */
function lenient<T extends z.ZodType>(schema: T) {
  return schema.optional().catch(undefined);
}

/**
 * The cohort list's filters under PostHog's query names (`CohortViewSet._filter_request`,
 * `safely_get_queryset`): `type` static/dynamic, `created_by_id`, `search` (name substring,
 * case-insensitive), `hide_behavioral_cohorts` (leave out cohorts that use events, directly or
 * through the cohorts they name). Bad values are ignored.
 */
export const cohortListFiltersSchema = z
  .object({
    type: lenient(z.enum(COHORT_KIND_FILTERS)),
    created_by_id: lenient(drf.integer()),
    search: lenient(z.string().min(1)),
    hide_behavioral_cohorts: lenient(drf.boolean()),
  })
  .transform(
    (q): CohortListFilters => ({
      ...(q.type === undefined ? {} : { isStatic: q.type === "static" }),
      ...(q.created_by_id === undefined ? {} : { createdById: q.created_by_id }),
      ...(q.search === undefined ? {} : { search: q.search }),
      ...(q.hide_behavioral_cohorts ? { hideBehavioral: true } : {}),
    }),
  );

/** Filters of the cohort list, parsed by `cohortListFiltersSchema`. Unset fields do not filter. */
export interface CohortListFilters {
  isStatic?: boolean;
  createdById?: number;
  /** Case-insensitive substring of the name. */
  search?: string;
  /** Leave out cohorts that use events. */
  hideBehavioral?: boolean;
}
