/**
 * References to the object types that several domains return from their own fields: `User` (who
 * created or changed a record), `Project` (the tenant every domain adds fields to), `Organization`
 * `Cohort` (the flags' `createStaticCohortForFeatureFlag` returns one) and `Dashboard` (a flag's
 * `usageDashboard`). Declared here, neutral;
 * implemented by their own domains (users/users.graphql.ts, projects/projects.graphql.ts,
 * cohorts/graphql/cohort.type.ts), so a domain never imports another domain's GraphQL module to
 * use them.
 */
import type { CohortRecord, DashboardRecord, ProjectRecord, UserBasic } from "../core/records.js";
import type { Organization } from "../generated/prisma/client.js";
import { builder } from "./builder.js";

/** The `User` object type (PostHog's UserBasic); implemented in users/users.graphql.ts. */
export const UserRef = builder.objectRef<UserBasic>("User");

/** The `Project` object type (PostHog's team); implemented in projects/projects.graphql.ts. */
export const ProjectRef = builder.objectRef<ProjectRecord>("Project");

/** The `Organization` object type; implemented in projects/projects.graphql.ts. */
export const OrganizationRef = builder.objectRef<Organization>("Organization");

/** The `Cohort` object type (a node); implemented in cohorts/graphql/cohort.type.ts. */
export const CohortRef = builder.objectRef<CohortRecord>("Cohort");

/** The `Dashboard` object type (a node); implemented in dashboards/graphql/dashboard.type.ts. */
export const DashboardRef = builder.objectRef<DashboardRecord>("Dashboard");
