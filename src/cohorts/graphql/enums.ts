/** The cohort enums of GraphQL, built from the constants cohorts.schemas.ts validates with. */
import { builder } from "../../graphql/builder.js";
import { enumValues } from "../../graphql/enums.js";
import { COHORT_KIND_FILTERS, COHORT_TYPES } from "../cohorts.schemas.js";

/** `cohort_type`. */
export const CohortTypeEnum = builder.enumType("CohortType", {
  description: "What defines a cohort's members (PostHog `cohort_type`).",
  values: enumValues(COHORT_TYPES, {
    static: "An explicit list of persons (`static`).",
    person_property: "Criteria on person properties and other cohorts (`person_property`).",
    behavioral:
      "Criteria on events persons performed (`behavioral`): `performed_event` and `performed_event_multiple` are calculated; other behavioral criteria are stored, not calculated (count null).",
    analytical:
      "Criteria on event patterns over time (`analytical`): calculated as `behavioral` for `performed_event` and `performed_event_multiple`, stored only for the others.",
  }),
});

/** The list's `type` filter. */
export const CohortKindFilterEnum = builder.enumType("CohortKindFilter", {
  description: "Static or dynamic cohorts (REST's `type` list filter).",
  values: enumValues(COHORT_KIND_FILTERS, {
    static: "Cohorts with an explicit member list.",
    dynamic: "Cohorts defined by criteria.",
  }),
});
