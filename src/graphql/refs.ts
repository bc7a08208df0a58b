/**
 * References to the object types every domain returns from its own fields: `User` (who created or
 * changed a record), `Project` (the tenant every domain adds fields to) and `Organization`. Declared
 * here, neutral; implemented by their own domains (users/users.graphql.ts, projects/projects.graphql.ts).
 * A domain's own type that other domains return (a `Cohort`, a `Dashboard`) is published by that
 * domain instead, in its `graphql/refs.ts`, the one GraphQL module other domains may import.
 */
import type { ProjectRecord, UserBasic } from "../core/records.js";
import type { Organization } from "../generated/prisma/client.js";
import { builder } from "./builder.js";

/** The `User` object type (PostHog's UserBasic); implemented in users/users.graphql.ts. */
export const UserRef = builder.objectRef<UserBasic>("User");

/** The `Project` object type (PostHog's team); implemented in projects/projects.graphql.ts. */
export const ProjectRef = builder.objectRef<ProjectRecord>("Project");

/** The `Organization` object type; implemented in projects/projects.graphql.ts. */
export const OrganizationRef = builder.objectRef<Organization>("Organization");
