/**
 * How a policy decides a gated write (PostHog's `products/approvals/backend/policies.py`
 * `PolicyEngine`): a bypassing member passes; a write its conditions do not match passes; otherwise
 * it needs approvals, by the policy's approvers, recorded as a snapshot of the policy.
 */
import type { RolloutValue } from "./actions.js";

/** A policy's fields the decision reads. */
export interface PolicyRules {
  conditions: Record<string, unknown>;
  approverConfig: { quorum: number; users?: number[] };
  allowSelfApprove: boolean;
  bypassOrgMembershipLevels: number[];
}

/** What a change request keeps of its policy (`PolicyDecision.policy_snapshot`). */
export interface PolicySnapshot {
  quorum: number;
  users: number[];
  roles: string[];
  allow_self_approve: boolean;
  conditions: Record<string, unknown>;
  bypass_org_membership_levels: number[];
  bypass_roles: string[];
}

/** A policy's decision: pass, or wait for approvals with PostHog's message. */
export type PolicyDecision =
  | { result: "ALLOW"; reason: "User has bypass" | "Conditions not matched" }
  | {
      result: "REQUIRE_APPROVAL";
      message: string;
      snapshot: PolicySnapshot;
      approvers: Record<string, unknown>;
    };

const COMPARISONS: Record<string, (a: number, b: number) => boolean> = {
  ">": (a, b) => a > b,
  "<": (a, b) => a < b,
  ">=": (a, b) => a >= b,
  "<=": (a, b) => a <= b,
  "==": (a, b) => a === b,
  "!=": (a, b) => a !== b,
};

type Values = Record<string, RolloutValue[] | unknown>;

/** The `{path, value}` list an intent holds for `field` (empty when it holds none, or not a list). */
function valuesOf(state: unknown, field: string): RolloutValue[] {
  const list = (state as Values | undefined)?.[field];
  return Array.isArray(list) ? (list as RolloutValue[]) : [];
}

/**
 * Whether `conditions` match `intent` (`_evaluate_conditions`): none (or an unknown type, or one
 * missing its field, operator or value) gates every change; `before_after` compares each value
 * after the change with the threshold; `change_amount` each path's after − before; `any_change`
 * whether any path's value changed.
 */
export function conditionsMatch(
  conditions: Record<string, unknown>,
  intent: Record<string, unknown>,
): boolean {
  if (Object.keys(conditions).length === 0) return true;
  const { type, field, operator, value } = conditions as {
    type?: unknown;
    field?: unknown;
    operator?: unknown;
    value?: unknown;
  };
  if (type !== "before_after" && type !== "change_amount" && type !== "any_change") return true;
  if (typeof field !== "string" || field === "") return true;
  const before = new Map(valuesOf(intent["current_state"], field).map((v) => [v.path, v.value]));
  const after = new Map(valuesOf(intent["gated_changes"], field).map((v) => [v.path, v.value]));
  const paths = [...new Set([...before.keys(), ...after.keys()])];
  if (type === "any_change") return paths.some((path) => before.get(path) !== after.get(path));
  const compare = typeof operator === "string" ? COMPARISONS[operator] : undefined;
  if (!compare || value === null || value === undefined || typeof value !== "number") return true;
  if (type === "before_after") {
    return [...after.values()].some((v) => typeof v === "number" && compare(v, value));
  }
  return paths.some((path) => {
    const old = before.get(path);
    const next = after.get(path);
    return typeof old === "number" && typeof next === "number" && compare(next - old, value);
  });
}

/**
 * The decision of `policy` on a write by a user at membership `level` (null: none) whose intent is
 * `intent` (`PolicyEngine.evaluate`).
 */
export function decide(
  policy: PolicyRules,
  actor: { userId: number; level: number | null },
  intent: Record<string, unknown>,
): PolicyDecision {
  if (actor.level !== null && policy.bypassOrgMembershipLevels.includes(actor.level)) {
    return { result: "ALLOW", reason: "User has bypass" };
  }
  if (!conditionsMatch(policy.conditions, intent))
    return { result: "ALLOW", reason: "Conditions not matched" };
  const users = policy.approverConfig.users ?? [];
  const message =
    !policy.allowSelfApprove && users.includes(actor.userId)
      ? "A change request has been created and is pending approval from others."
      : "A change request has been created and is pending approval.";
  return {
    result: "REQUIRE_APPROVAL",
    message,
    approvers: policy.approverConfig as Record<string, unknown>,
    snapshot: {
      quorum: policy.approverConfig.quorum,
      users,
      roles: [],
      allow_self_approve: policy.allowSelfApprove,
      conditions: policy.conditions,
      bypass_org_membership_levels: policy.bypassOrgMembershipLevels,
      bypass_roles: [],
    },
  };
}

/**
 * Why `userId` may not approve a request with `snapshot` made by `requesterId`, as PostHog's
 * `CanApprove` words it, or null when it may.
 */
export function approvalRefusal(
  snapshot: PolicySnapshot,
  userId: number,
  requesterId: number | null,
): string | null {
  if (requesterId === userId && !snapshot.allow_self_approve)
    return "You cannot approve your own change request";
  if (!snapshot.users.includes(userId)) return "You are not in the approver set for this change request";
  return null;
}
