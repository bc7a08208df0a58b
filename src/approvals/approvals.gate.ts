/**
 * The approval gate (issue 27; PostHog's `products/approvals/backend/decorators.py` `approval_gate`
 * on `FeatureFlagSerializer.update`): the flag's write calls it under the flag's row lock, inside its
 * transaction, with what it is about to write. When an enabled policy of the project needs approval
 * for the action the write is (rules/actions.ts, rules/policy.ts), the gate throws: the write and
 * whatever transaction it joined (an experiment's launch) roll back, and the outermost `transactional`
 * then opens the change request in a transaction of its own and answers 409 `approval_required`
 * (`change_request_pending` when one is open for the action and resource already). A write that
 * would need approvals under two policies is refused (400 `policy_conflict`). Writes that match no
 * action cost no statement; others one (the project's policies of those actions), two with a bypass
 * rule (the writer's membership level). An approved change request's own apply passes
 * (`withApprovedChange`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { ServiceContext } from "../core/context.js";
import type { RecordedAfterRollback } from "../core/transactional.js";
import type { Prisma } from "../generated/prisma/client.js";
import { PolicyConflictError } from "./approvals.errors.js";
import {
  type Db,
  membershipLevel,
  type NewChangeRequest,
  selectEnabledPolicies,
  selectOpenChangeRequest,
} from "./approvals.store.js";
import { type DetectedAction, detectActions, type FlagChange } from "./rules/actions.js";
import { decide, type PolicyRules, type PolicySnapshot } from "./rules/policy.js";

/** The gate a flag write calls under its row lock (see the module comment). */
export type ApprovalGate = (
  tx: Prisma.TransactionClient,
  ctx: ServiceContext,
  projectId: number,
  change: FlagChange,
) => Promise<void>;

/** What a gated write leaves for its change request. */
export interface GatedWrite {
  ctx: ServiceContext;
  projectId: number;
  organizationId: string;
  action: DetectedAction;
  /** The flag's id; null for a flag the write would create. */
  resourceId: string | null;
  snapshot: PolicySnapshot;
  message: string;
  approvers: Record<string, unknown>;
  expiresAfterUs: bigint;
}

/**
 * The pending change request row a gated write opens at `at`, by its requester, expiring after the
 * policy's `expires_after`; `intent` replaces the action's own (a scheduled change marks its own).
 */
export function requestRow(write: GatedWrite, at: Date, intent = write.action.intent): NewChangeRequest {
  return {
    projectId: write.projectId,
    organizationId: write.organizationId,
    actionKey: write.action.key,
    resourceType: "feature_flag",
    resourceId: write.resourceId,
    intent,
    intentDisplay: write.action.display,
    policySnapshot: write.snapshot as unknown as Record<string, unknown>,
    createdById: write.ctx.actor.user.id,
    createdAt: at,
    expiresAt: new Date(at.getTime() + Number(write.expiresAfterUs / 1000n)),
  };
}

/** The open change request of `write`'s action on its resource, or null: the one a new request would duplicate. */
export function openRequestFor(db: Db, write: GatedWrite) {
  return selectOpenChangeRequest(db, write.projectId, write.action.key, "feature_flag", write.resourceId);
}

/** Opens a gated write's change request once its write rolled back, and returns the refusal to answer. */
export type OpenChangeRequest = (write: GatedWrite) => Promise<Error>;

/**
 * Thrown by the gate: the write needs approvals. Not a refusal itself: the outermost `transactional`
 * calls `afterRollback`, which opens the change request and gives the 409 the caller gets. Where the
 * write is made inside a transaction that catches it (a scheduled change's run records it as a failed
 * run) no request is opened and the message says why.
 */
class ApprovalNeeded extends Error implements RecordedAfterRollback {
  constructor(
    private readonly write: GatedWrite,
    private readonly open: OpenChangeRequest,
  ) {
    super(`Approval required: this change matches the project's ${write.action.key} approval policy`);
  }

  afterRollback(): Promise<Error> {
    return this.open(this.write);
  }
}

const approved = new AsyncLocalStorage<{ changeRequestId: string }>();

/** Runs `work` (an approved change request's apply) with the gate open to it. */
export function withApprovedChange<T>(changeRequestId: string, work: () => Promise<T>): Promise<T> {
  return approved.run({ changeRequestId }, work);
}

/** A stored policy's fields as the rules read them. */
export function policyRules(policy: {
  conditions: unknown;
  approverConfig: unknown;
  allowSelfApprove: boolean;
  bypassOrgMembershipLevels: unknown;
}): PolicyRules {
  return {
    conditions: (policy.conditions ?? {}) as Record<string, unknown>,
    approverConfig: policy.approverConfig as PolicyRules["approverConfig"],
    allowSelfApprove: policy.allowSelfApprove,
    bypassOrgMembershipLevels: (policy.bypassOrgMembershipLevels ?? []) as number[],
  };
}

/**
 * What `change` needs under the project's enabled policies: null when nothing (no gated action, no
 * policy of it, the writer may bypass it), else the gated write its change request records.
 * @throws PolicyConflictError (400) when two policies would each need approvals.
 */
export async function evaluateGate(
  tx: Prisma.TransactionClient,
  ctx: ServiceContext,
  projectId: number,
  change: FlagChange,
): Promise<GatedWrite | null> {
  const detected = detectActions(change);
  if (detected.length === 0) return null;
  const policies = await selectEnabledPolicies(
    tx,
    projectId,
    detected.map((action) => action.key),
  );
  if (policies.length === 0) return null;
  const userId = ctx.actor.user.id;
  let level: number | null | undefined;
  const needing: Array<{ policy: (typeof policies)[number]; write: GatedWrite }> = [];
  for (const action of detected) {
    const policy = policies.find((p) => p.actionKey === action.key);
    if (!policy) continue;
    const rules = policyRules(policy);
    if (rules.bypassOrgMembershipLevels.length > 0 && level === undefined) {
      level = await membershipLevel(tx, policy.organizationId, userId);
    }
    const decision = decide(rules, { userId, level: level ?? null }, action.intent);
    if (decision.result === "ALLOW") continue;
    needing.push({
      policy,
      write: {
        ctx,
        projectId,
        organizationId: policy.organizationId,
        action,
        resourceId: change.flagId === null ? null : String(change.flagId),
        snapshot: decision.snapshot,
        message: decision.message,
        approvers: decision.approvers,
        expiresAfterUs: policy.expiresAfterUs,
      },
    });
  }
  if (needing.length > 1) {
    throw new PolicyConflictError(
      needing.map(({ policy }) => ({
        id: policy.id,
        name: `ApprovalPolicy(${policy.actionKey}, Team ${projectId})`,
      })),
    );
  }
  return needing[0]?.write ?? null;
}

/** The gate, opening change requests with `open`. */
export function createApprovalGate(open: OpenChangeRequest): ApprovalGate {
  return async (tx, ctx, projectId, change) => {
    if (approved.getStore()) return;
    const write = await evaluateGate(tx, ctx, projectId, change);
    if (write) throw new ApprovalNeeded(write, open);
  };
}
