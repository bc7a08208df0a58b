/**
 * The run's version errors, which PostHog answers with its own bodies instead of DRF's
 * (posthog-behavior.md §4.7; `products/endpoints/backend/api.py` `run`): REST renders them as
 * `{"error": ...}` (and `current_version`), GraphQL as the typed errors of their base classes.
 */
import { NotFoundError, ValidationError } from "../../core/errors.js";

/** 400 `{"error": "Invalid version parameter: x"}`: `?version=` is not an integer. */
export class InvalidVersionParameterError extends ValidationError {
  constructor(raw: string) {
    super(`Invalid version parameter: ${raw}`, { attr: "version" });
  }
}

/** 404 `{"error": "Version N not found for endpoint '<name>'", "current_version": n}`. */
export class RunVersionNotFoundError extends NotFoundError {
  /** The endpoint's current version number. */
  readonly currentVersion: number;
  constructor(version: number, name: string, currentVersion: number) {
    super(`Version ${version} not found for endpoint '${name}'`);
    this.currentVersion = currentVersion;
  }
}

/** PostHog's own body for a run version error, or undefined for any other error (DRF's body). */
export function runErrorBody(error: unknown): Record<string, unknown> | undefined {
  if (error instanceof RunVersionNotFoundError) {
    return { error: error.detail, current_version: error.currentVersion };
  }
  if (error instanceof InvalidVersionParameterError) return { error: error.detail };
  return undefined;
}
