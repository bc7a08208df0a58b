/**
 * The cohorts domain's published GraphQL reference: the `Cohort` object type, which other domains
 * return (a flag's `createStaticCohortForFeatureFlag`, an experiment's exposure cohort). Implemented in
 * ./cohort.type.ts; the one module of this folder other domains may import.
 */
import { builder } from "../../graphql/builder.js";
import type { CohortRecord } from "../cohorts.queries.js";

/** The `Cohort` object type (a node); implemented in ./cohort.type.ts. */
export const CohortRef = builder.objectRef<CohortRecord>("Cohort");
