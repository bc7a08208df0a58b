/**
 * API scopes: `<object>:<read|write>` or `*` (posthog/scopes.py, posthog-behavior.md §1.5–1.6).
 * `X:write` satisfies `X:read`; `*` satisfies everything.
 */
import { PermissionDeniedError, ValidationError } from "../errors.js";

/** Scope objects this service grants (the relevant subset of PostHog's catalogue, §1.6). */
export const SCOPE_OBJECTS = [
  "activity_log",
  "approvals",
  "cohort",
  "dashboard",
  "endpoint",
  "event_definition",
  "experiment",
  "experiment_holdout",
  "experiment_saved_metric",
  "feature_flag",
  "group",
  "insight",
  "insight_variable",
  "organization",
  "organization_member",
  "person",
  "project",
  "property_definition",
  "query",
  "user",
  "webhook",
] as const;

/** A scope object, e.g. `feature_flag`. */
export type ScopeObject = (typeof SCOPE_OBJECTS)[number];

/** A required scope: `<object>:read` or `<object>:write`. */
export type Scope = `${ScopeObject}:${"read" | "write"}`;

/** Every grantable scope string, `*` first. */
export const ALL_SCOPES: readonly string[] = [
  "*",
  ...SCOPE_OBJECTS.flatMap((object) => [`${object}:read`, `${object}:write`]),
];

/** True when `granted` satisfies `required` (`*`, the exact scope, or `X:write` for `X:read`). */
export function scopeSatisfied(granted: readonly string[], required: Scope): boolean {
  if (granted.includes("*") || granted.includes(required)) return true;
  const [object, action] = required.split(":");
  return action === "read" && granted.includes(`${object}:write`);
}

/**
 * Throws unless the key's scopes satisfy `required`.
 * @throws PermissionDeniedError `API key missing required scope '<scope>'` (posthog/permissions.py).
 */
export function requireScope(granted: readonly string[], required: Scope): void {
  if (!scopeSatisfied(granted, required)) {
    throw new PermissionDeniedError(`API key missing required scope '${required}'`);
  }
}

/**
 * Validates scopes given for a new key: non-empty, each `*` or a known `object:action`.
 * @throws ValidationError `Invalid scope: x` (attr `scopes`), as PostHog's key serializer.
 */
export function validateScopes(scopes: readonly string[]): string[] {
  if (scopes.length === 0)
    throw new ValidationError("This field is required.", { attr: "scopes", code: "required" });
  for (const scope of scopes) {
    if (!ALL_SCOPES.includes(scope)) throw new ValidationError(`Invalid scope: ${scope}`, { attr: "scopes" });
  }
  return [...new Set(scopes)];
}
