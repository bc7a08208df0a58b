/**
 * The users domain's constants and input schemas: membership levels by name (PostHog's
 * `OrganizationMembership.Level`, posthog/models/organization.py), a new user's fields (the CLI's
 * `users create`), and the member list's `?order=` values (posthog/api/organization_member.py).
 */
import { z } from "zod";
import type { MemberOrder } from "./users.queries.js";

/** PostHog's `OrganizationMembership.Level` by name: member 1, admin 8, owner 15. */
export const MEMBERSHIP_LEVELS = { member: 1, admin: 8, owner: 15 } as const;

/** A membership level's name. */
export type MembershipLevelName = keyof typeof MEMBERSHIP_LEVELS;

/** The levels a new user may be given (`users create --level`): an owner is made by `bootstrap` only. */
export const NEW_USER_LEVELS = ["member", "admin"] as const satisfies readonly MembershipLevelName[];

/** Longest first name (PostHog's `User.first_name`, `max_length=150`). */
export const FIRST_NAME_MAX_LENGTH = 150;

/**
 * A new user, as `users create` gives it: `email` (an e-mail address), `firstName` (absent: the
 * e-mail's local part, as bootstrap.ts names its user), `level` (default `member`) and
 * `organizationId` (absent: the first organization, `bootstrap`'s).
 */
export const newUserSchema = z.object({
  email: z.email(),
  firstName: z.string().trim().min(1).max(FIRST_NAME_MAX_LENGTH).optional(),
  level: z.enum(NEW_USER_LEVELS).default("member"),
  organizationId: z.uuid().optional(),
});

/** `newUserSchema`'s parsed value. */
export type NewUser = z.output<typeof newUserSchema>;

/** The member list's order when `?order=` names none we sort by: newest membership first (PostHog's list default). */
export const DEFAULT_MEMBER_ORDER: MemberOrder = { field: "joined_at", descending: true };

/**
 * `?order=` values the member list sorts by, as PostHog's `queryset.order_by(order)` names them:
 * each field ascending, or descending with a leading `-`. `updated_at` sorts as `joined_at` (a
 * membership here is never updated).
 */
const ORDER_FIELDS = new Map<string, MemberOrder["field"]>([
  ["joined_at", "joined_at"],
  ["updated_at", "joined_at"],
  ["level", "level"],
  ["user__first_name", "first_name"],
  ["user__email", "email"],
]);

/** The member order `raw` (`?order=`) names, or the default for none or one not in `ORDER_FIELDS`. */
export function parseMemberOrder(raw: string | null): MemberOrder {
  if (raw === null) return DEFAULT_MEMBER_ORDER;
  const descending = raw.startsWith("-");
  const field = ORDER_FIELDS.get(descending ? raw.slice(1) : raw);
  return field ? { field, descending } : DEFAULT_MEMBER_ORDER;
}
