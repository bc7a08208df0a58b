/**
 * What the approval domain publishes to other domains' GraphQL modules: the typed errors a gated
 * write can answer, for the result unions of the mutations that write flags (flags, experiments,
 * restores, scheduled changes), and the `ChangeRequest` type. Importing this module registers their types.
 */
import {
  ApprovalRequiredError,
  ChangeRequestPendingError,
  PolicyConflictError,
} from "../approvals.errors.js";
import "./types.js";

/** The `ChangeRequest` type, for fields of other domains that name one (a scheduled change's). */
export { ChangeRequestRef } from "./types.js";

/** The errors of a write the approval gate may hold (approvals/approvals.gate.ts). */
export const APPROVAL_ERRORS = [
  ApprovalRequiredError,
  ChangeRequestPendingError,
  PolicyConflictError,
] as const;

/** The errors approvals answer a schedule they refuse (approvals.scheduled.ts): another open request, two policies. */
export const SCHEDULE_APPROVAL_ERRORS = [ChangeRequestPendingError, PolicyConflictError] as const;
