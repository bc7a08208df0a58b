/**
 * `GET /api/organizations/:organization_id/members/`: an organization's members as PostHog's
 * `OrganizationMemberViewSet.list` answers them (posthog/api/organization_member.py,
 * `OrganizationMemberSerializer`): DRF's limit/offset pages, newest membership first unless
 * `?order=` names a field, `?email=` narrowing to one user. Scope `organization_member:read`
 * (the viewset's `scope_object`); the caller must be a member (`OrganizationMemberPermissions`).
 * Not built yet: the viewset's `updated_after` and guest filters, and its member routes
 * (`/members/:user__uuid/`: update, remove, `scoped_api_keys`).
 */
import { z } from "zod";
import { drfDateTime } from "../rest/date-time.js";
import {
  offsetPageBody,
  offsetPageQuerySchema,
  paginatedListSchema,
  parseOffsetPage,
} from "../rest/pagination.js";
import type { RestModule } from "../rest/route.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";
import type { MemberRecord } from "./users.queries.js";
import { parseMemberOrder } from "./users.schemas.js";

/** One membership as PostHog's `OrganizationMemberSerializer` writes it. */
const organizationMemberSchema = z
  .object({
    id: z.uuid().describe("The membership's id (PostHog's `OrganizationMembership.id`), not the user's."),
    user: userBasicSchema.describe("The member (PostHog's `UserBasicSerializer`)."),
    level: z.int().describe("PostHog's `OrganizationMembership.Level`: 1 member, 8 admin, 15 owner."),
    joined_at: z.iso.datetime().describe("When the user joined the organization."),
    updated_at: z.iso
      .datetime()
      .describe("When the membership last changed: its `joined_at`, as no membership is updated here yet."),
    is_2fa_enabled: z
      .boolean()
      .describe("Whether the user has a TOTP device: always `false`, Signalbox has no two-factor log-in."),
    has_social_auth: z
      .boolean()
      .describe("Whether the user logs in through a social provider: always `false`, Signalbox has none."),
    last_login: z.iso
      .datetime()
      .nullable()
      .describe("The user's last log-in: always `null`, Signalbox has no log-in (personal API keys only)."),
  })
  .meta({ id: "OrganizationMember" });

const memberPageSchema = paginatedListSchema(organizationMemberSchema, "PaginatedOrganizationMemberList");

/** The query the member list reads: paging, `email`, `order`. */
const memberQuerySchema = offsetPageQuerySchema.extend({
  email: z.string().optional().describe("Only the member with exactly this e-mail."),
  order: z
    .string()
    .optional()
    .describe(
      "`joined_at`, `updated_at`, `level`, `user__first_name` or `user__email`, `-` first for descending; default (and for any other value) `-joined_at`.",
    ),
});

/** The path parameter: organizations are named by UUID (a malformed one answers 404, as PostHog). */
const organizationPath = z.object({ organization_id: z.uuid() });

/** `member` in PostHog's shape (`OrganizationMemberSerializer`). */
export function serializeMember(member: MemberRecord): z.output<typeof organizationMemberSchema> {
  const joinedAt = drfDateTime(member.joinedAt);
  return {
    id: member.id,
    user: serializeUserBasic(member.user),
    level: member.level,
    joined_at: joinedAt,
    updated_at: joinedAt,
    is_2fa_enabled: false,
    has_social_auth: false,
    last_login: null,
  };
}

/** The organization member routes. */
export const organizationMemberRoutes: RestModule = (services, limits) => [
  {
    method: "GET",
    path: "/api/organizations/:organization_id/members/",
    summary: "The organization's members with their users, newest first, limit/offset pages.",
    scopes: ["organization_member:read"],
    request: { params: organizationPath, query: memberQuerySchema },
    responses: { 200: memberPageSchema },
    handler: async ({ params, query, url, ctx }) => {
      const page = parseOffsetPage(query, limits);
      const email = query.get("email");
      const found = await services.users.members(ctx, params["organization_id"]!, {
        page,
        order: parseMemberOrder(query.get("order")),
        filter: email === null ? {} : { email },
      });
      return { body: offsetPageBody(url, page, found, serializeMember) };
    },
  },
];
