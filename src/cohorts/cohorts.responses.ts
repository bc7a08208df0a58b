/**
 * The cohort record and a cohort's persons as the REST door answers them (PostHog's
 * `CohortSerializer` and the `persons` action's serialized actors, `posthog/api/cohort.py`,
 * `posthog/queries/actor_base_query.py` `get_serialized_people`), written once as zod schemas:
 * the serialisers return their types, fastify writes bodies with them, OpenAPI names them. The
 * cohort serialiser is here rather than in cohorts.rest.ts because another domain's REST door answers
 * a cohort too (the flags' `create_static_cohort_for_flag`).
 */
import { z } from "zod";
import { drfDateTime, drfDateTimeOrNull } from "../rest/date-time.js";
import { paginatedListSchema } from "../rest/pagination.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";
import type { CohortRecord } from "./cohorts.queries.js";
import { COHORT_TYPES } from "./cohorts.schemas.js";
import { filtersForResponse } from "./rules/criteria.js";

/** A cohort in PostHog's response shape. */
export const cohortSchema = z
  .object({
    id: z.int(),
    name: z.string().nullable(),
    description: z.string(),
    groups: z.array(z.record(z.string(), z.unknown())).describe("Legacy criteria, as stored."),
    deleted: z.boolean(),
    filters: z
      .record(z.string(), z.unknown())
      .describe("`{properties: <property group>}`; built from `groups` for legacy cohorts."),
    query: z.unknown().describe("A query defining a static cohort, or null."),
    is_calculating: z.boolean().describe("Always false here: calculations are synchronous."),
    created_by: userBasicSchema.nullable(),
    created_at: z.iso.datetime(),
    last_calculation: z.iso.datetime().nullable(),
    errors_calculating: z.int(),
    count: z
      .int()
      .nullable()
      .describe(
        "Members: current for a static cohort; at `last_calculation` for a dynamic one; null when not calculable.",
      ),
    is_static: z.boolean(),
    cohort_type: z.enum(COHORT_TYPES).nullable(),
    experiment_set: z.array(z.int()).describe("Ids of the experiments whose exposure cohort this is."),
  })
  .meta({ id: "Cohort" });

/** A cohort in PostHog's response shape (the output of `cohortSchema`). */
export type CohortResponse = z.output<typeof cohortSchema>;

/** A DRF offset page of cohorts. */
export const cohortPageSchema = paginatedListSchema(cohortSchema, "PaginatedCohortList");

/** A person of a cohort, as PostHog serializes actors. */
export const cohortPersonSchema = z
  .object({
    type: z.literal("person"),
    id: z.string().describe("The person's uuid."),
    uuid: z.string(),
    name: z.string().describe("Its `email`, `name` or `username` property, else its first distinct id."),
    distinct_ids: z.array(z.string()).describe("Up to 10 of the person's distinct ids."),
    properties: z.record(z.string(), z.unknown()),
    is_identified: z.boolean(),
    created_at: z.iso.datetime(),
    matched_recordings: z.array(z.unknown()),
    value_at_data_point: z.null(),
  })
  .meta({ id: "CohortPerson" });

/** A page of a cohort's persons: PostHog's `{results, next, previous}` (no count). */
export const cohortPersonPageSchema = z
  .object({
    results: z.array(cohortPersonSchema),
    next: z.url().nullable(),
    previous: z.url().nullable(),
  })
  .meta({ id: "CohortPersonPage" });

/** `add_persons_to_static_cohort` and `remove_person_from_static_cohort`'s answer. */
export const successSchema = z.object({ success: z.literal(true) }).meta({ id: "Success" });

/** A cohort in PostHog's response shape (`CohortSerializer`; schema: cohorts.responses.ts). */
export function serializeCohort(cohort: CohortRecord): CohortResponse {
  return {
    id: cohort.id,
    name: cohort.name,
    description: cohort.description,
    groups: Array.isArray(cohort.groups) ? (cohort.groups as Record<string, unknown>[]) : [],
    deleted: cohort.deleted,
    filters: filtersForResponse(cohort.filters, cohort.groups),
    query: cohort.query,
    is_calculating: cohort.isCalculating,
    created_by: cohort.createdBy ? serializeUserBasic(cohort.createdBy) : null,
    created_at: drfDateTime(cohort.createdAt),
    last_calculation: drfDateTimeOrNull(cohort.lastCalculation),
    errors_calculating: cohort.errorsCalculating,
    count: cohort.count,
    is_static: cohort.isStatic,
    cohort_type: cohort.cohortType as CohortResponse["cohort_type"],
    experiment_set: cohort.experimentSet,
  };
}
