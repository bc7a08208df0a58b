/**
 * Records that every domain shows inside its own: the user behind `created_by` /
 * `last_modified_by` (PostHog's UserBasic) and the project. Neutral ground, so that a domain never
 * imports another domain's adapters to show them (the REST serialisers are in src/rest/serializers.ts,
 * the GraphQL refs in src/graphql/refs.ts).
 */
import { Prisma, type Project } from "../generated/prisma/client.js";

/** PostHog's UserBasic: the fields of a user shown inside other records (posthog/api/shared.py). */
export interface UserBasic {
  id: number;
  uuid: string;
  distinctId: string;
  firstName: string;
  lastName: string;
  email: string;
  isEmailVerified: boolean | null;
  hedgehogConfig: unknown;
  roleAtOrganization: string | null;
}

/** The Prisma `select` of a user's `UserBasic` columns, for every read that includes a creator. */
export const USER_BASIC_SELECT = {
  id: true,
  uuid: true,
  distinctId: true,
  firstName: true,
  lastName: true,
  email: true,
  isEmailVerified: true,
  hedgehogConfig: true,
  roleAtOrganization: true,
} satisfies Prisma.UserSelect;

/** A project as every door shows it (PostHog's team). */
export type ProjectRecord = Project;

/**
 * SQL for one `users` row, aliased `alias`, as a JSON object of `UserBasic`'s fields (null when the
 * row is absent, e.g. a deleted creator behind a LEFT JOIN). Lets a list read its users in the same
 * statement as its rows. `alias` must be a fixed identifier of the query, never input.
 */
export function userBasicJson(alias: string): Prisma.Sql {
  const a = Prisma.raw(alias);
  return Prisma.sql`CASE WHEN ${a}.id IS NULL THEN NULL ELSE json_build_object(
    'id', ${a}.id, 'uuid', ${a}.uuid, 'distinctId', ${a}.distinct_id, 'firstName', ${a}.first_name,
    'lastName', ${a}.last_name, 'email', ${a}.email, 'isEmailVerified', ${a}.is_email_verified,
    'hedgehogConfig', ${a}.hedgehog_config, 'roleAtOrganization', ${a}.role_at_organization) END`;
}
