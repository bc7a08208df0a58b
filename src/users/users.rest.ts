/**
 * `GET /api/users/@me/` and `GET /api/personal_api_keys/@current` in PostHog's shapes
 * (posthog/api/user.py, posthog/api/personal_api_key.py, `UserBasicSerializer`).
 */
import { z } from "zod";
import type { Organization, PersonalApiKey } from "../generated/prisma/client.js";
import { drfDateTime, drfDateTimeOrNull } from "../rest/date-time.js";
import type { RestModule } from "../rest/route.js";
import { projectSchema, serializeProject, serializeUserBasic, userBasicSchema } from "../rest/serializers.js";

const organizationBasicSchema = z
  .object({ id: z.uuid(), name: z.string() })
  .meta({ id: "OrganizationBasic" });

/** `GET /api/users/@me/`: the user with its current project and organizations (PostHog's `UserSerializer`, in part). */
const meSchema = userBasicSchema
  .extend({
    team: projectSchema.nullable().describe("The project the user works in now."),
    organization: organizationBasicSchema.nullable(),
    organizations: z.array(organizationBasicSchema),
  })
  .meta({ id: "User" });

/** A personal API key as `@current` shows it (posthog/api/personal_api_key.py). */
const apiKeySchema = z
  .object({
    id: z.string(),
    label: z.string(),
    value: z.null().describe("Only ever shown once, at creation."),
    mask_value: z.string().describe("First and last four characters: `phx_...abcd`."),
    created_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable(),
    user_id: z.int(),
    scopes: z.array(z.string()),
    scoped_teams: z.array(z.int()).describe("Project ids the key is limited to; empty: all."),
    scoped_organizations: z.array(z.string()).describe("Organization ids the key is limited to; empty: all."),
  })
  .meta({ id: "PersonalAPIKey" });

function serializeOrganizationBasic(organization: Organization): z.output<typeof organizationBasicSchema> {
  return { id: organization.id, name: organization.name };
}

/** A key without its value (`value` is only ever shown once, at creation). */
export function serializeApiKey(key: PersonalApiKey): z.output<typeof apiKeySchema> {
  return {
    id: key.id,
    label: key.label,
    value: null,
    mask_value: key.maskValue,
    created_at: drfDateTime(key.createdAt),
    last_used_at: drfDateTimeOrNull(key.lastUsedAt),
    user_id: key.userId,
    scopes: key.scopes,
    scoped_teams: key.scopedTeams,
    scoped_organizations: key.scopedOrganizations,
  };
}

/** The identity routes. */
export const userRoutes: RestModule = (services) => [
  {
    method: "GET",
    path: "/api/users/@me/",
    summary: "The key's user, with its organizations and current project.",
    scopes: ["user:read"],
    responses: { 200: meSchema },
    handler: async ({ ctx }) => {
      const me = await services.users.me(ctx);
      const body: z.output<typeof meSchema> = {
        ...serializeUserBasic(me.user),
        team: me.team ? serializeProject(me.team) : null,
        organization: me.organization ? serializeOrganizationBasic(me.organization) : null,
        organizations: me.organizations.map(serializeOrganizationBasic),
      };
      return { body };
    },
  },
  {
    method: "GET",
    path: "/api/personal_api_keys/@current",
    summary: "The key itself, without its value.",
    scopes: [],
    responses: { 200: apiKeySchema },
    handler: async ({ ctx }) => ({ body: serializeApiKey(await services.users.currentKey(ctx)) }),
  },
];
