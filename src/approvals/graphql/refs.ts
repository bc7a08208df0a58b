/**
 * What the approval domain publishes to other domains' GraphQL modules: the typed errors a gated
 * write can answer, for the result unions of the mutations that write flags (flags, experiments,
 * restores). Importing this module registers their types.
 */
import {
  ApprovalRequiredError,
  ChangeRequestPendingError,
  PolicyConflictError,
} from "../approvals.errors.js";
import "./types.js";

/** The errors of a write the approval gate may hold (approvals/approvals.gate.ts). */
export const APPROVAL_ERRORS = [
  ApprovalRequiredError,
  ChangeRequestPendingError,
  PolicyConflictError,
] as const;
