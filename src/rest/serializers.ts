/**
 * PostHog's shapes of the records several domains show inside their own (posthog/api/shared.py
 * `UserBasicSerializer`, posthog/api/project.py): neutral, so no domain imports another's adapter.
 * Each shape is written once, as a zod schema: the serialiser's return type comes from it, fastify
 * writes the response with it, and the OpenAPI document names it.
 */
import { z } from "zod";
import type { ProjectRecord, UserBasic } from "../core/records.js";
import { drfDateTime } from "./date-time.js";

/** PostHog's `UserBasic` (the spec's user object inside `created_by` and `last_modified_by`). */
export const userBasicSchema = z
  .object({
    id: z.int(),
    uuid: z.uuid(),
    distinct_id: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    is_email_verified: z.boolean().nullable(),
    hedgehog_config: z.unknown().describe("Free-form JSON, or null."),
    role_at_organization: z.string().nullable(),
  })
  .meta({ id: "UserBasic" });

/** A project in PostHog's shape (ids are integers; `organization` is the organization's UUID). */
export const projectSchema = z
  .object({
    id: z.int(),
    organization: z.uuid(),
    name: z.string(),
    api_token: z.string().describe("The public project token (`phc_…`) SDKs send."),
    timezone: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Project" });

/** PostHog's `UserBasic` (the spec's user object inside `created_by` and `last_modified_by`). */
export function serializeUserBasic(user: UserBasic): z.output<typeof userBasicSchema> {
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.distinctId,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    is_email_verified: user.isEmailVerified,
    hedgehog_config: user.hedgehogConfig,
    role_at_organization: user.roleAtOrganization,
  };
}

/** A project in PostHog's shape (ids are integers; `organization` is the organization's UUID). */
export function serializeProject(project: ProjectRecord): z.output<typeof projectSchema> {
  return {
    id: project.id,
    organization: project.organizationId,
    name: project.name,
    api_token: project.apiToken,
    timezone: project.timezone,
    created_at: drfDateTime(project.createdAt),
    updated_at: drfDateTime(project.updatedAt),
  };
}
