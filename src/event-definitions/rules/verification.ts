/**
 * PostHog's verification rules of an event definition (posthog-behavior.md §6.2,
 * `ee/api/ee_event_definition.py` EnterpriseEventDefinitionSerializer `validate`, `create`,
 * `update`): an event is never both hidden and verified, hiding unverifies, verifying unhides and
 * stamps who and when, re-verifying keeps the first stamp, unverifying clears it. Pure: the caller
 * passes the user and the time.
 */
import { ValidationError } from "../../core/errors.js";

/** The verification columns of a definition. */
export interface VerificationState {
  verified: boolean;
  verifiedAt: Date | null;
  verifiedById: number | null;
  hidden: boolean;
}

/** What a request asks of them: absent fields keep their value. */
export interface VerificationChange {
  verified?: boolean | undefined;
  hidden?: boolean | undefined;
}

/** A definition's state before any write (what capture creates). */
export const UNVERIFIED: VerificationState = {
  verified: false,
  verifiedAt: null,
  verifiedById: null,
  hidden: false,
};

/**
 * The state after `change`, made by user `userId` at `now`, from `current` (`UNVERIFIED` for a
 * new definition).
 * Property definitions follow the same rules with their own message (`ee_property_definition.py`),
 * passed as `conflict`.
 * @throws ValidationError `conflict` (default `An event cannot be both hidden and verified`; no attr,
 *   as PostHog's `validate`) when the request sets both to true.
 */
export function nextVerification(
  current: VerificationState,
  change: VerificationChange,
  userId: number,
  now: Date,
  conflict = "An event cannot be both hidden and verified",
): VerificationState {
  const kept = {
    verified: current.verified,
    verifiedAt: current.verifiedAt,
    verifiedById: current.verifiedById,
  };
  if (change.hidden === true && change.verified === true) {
    throw new ValidationError(conflict);
  }
  if (change.hidden === true) {
    return { verified: false, verifiedAt: null, verifiedById: null, hidden: true };
  }
  const hidden = change.verified === true ? false : (change.hidden ?? current.hidden);
  if (change.verified === true) {
    // Verifying an unverified event stamps it; re-verifying a verified one keeps its stamp.
    return current.verified
      ? { ...kept, hidden }
      : { verified: true, verifiedAt: now, verifiedById: userId, hidden };
  }
  if (change.verified === false) return { verified: false, verifiedAt: null, verifiedById: null, hidden };
  return { ...kept, hidden };
}
