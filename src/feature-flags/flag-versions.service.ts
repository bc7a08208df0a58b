/**
 * A flag's kept versions (issue 27, core/object-versions.ts) and the operations that replay a stored
 * body through the flag's writes (feature-flags.writes.ts): restoring a kept version, and applying
 * an approved change request (the `feature_flag` applier the composition root registers with
 * approvals). Part of the feature-flag service (feature-flags.service.ts), which spreads these into
 * its operations. Source of the rules: `posthog/api/feature_flag.py` (the PATCH a replay is),
 * PostHog's `FeatureFlagActionBase.apply`; posthog-behavior.md §2.7.
 */
import { type AppliedChange, PreconditionFailed } from "../approvals/approvals.service.js";
import type { ServiceContext } from "../core/context.js";
import { ConflictError } from "../core/errors.js";
import { versionOperations } from "../core/object-versions.js";
import { readerOf } from "../core/transactional.js";
import { parseInput } from "../core/validation.js";
import { readFlag } from "./feature-flags.queries.js";
import { updateFlagSchema } from "./feature-flags.schemas.js";
import { flagExists } from "./feature-flags.store.js";
import type { FlagWrites } from "./feature-flags.writes.js";

/**
 * The fields of a kept version (core/object-versions.ts) a restore writes: what a flag PATCH sets,
 * less `deleted` (a restore neither deletes nor undeletes), the usage dashboard and the encrypted
 * payloads switch (not built). `filters` follow the PATCH rule: without `groups` they keep the
 * stored ones (§2.5 rule 1).
 */
function flagRestoreBody(snapshot: Record<string, unknown>): Record<string, unknown> {
  const fields = [
    "name",
    "key",
    "filters",
    "active",
    "ensure_experience_continuity",
    "rollback_conditions",
    "has_enriched_analytics",
    "is_remote_configuration",
    "evaluation_runtime",
    "bucketing_identifier",
    "tags",
    "evaluation_tags",
  ];
  return Object.fromEntries(fields.filter((f) => f in snapshot).map((f) => [f, snapshot[f]]));
}

/** Creates the version operations of the feature-flag service over the flag writes they replay through. */
export function createFlagVersionOperations({
  createFlag,
  applyUpdate,
}: Pick<FlagWrites, "createFlag" | "applyUpdate">) {
  const versions = versionOperations({
    scope: "FeatureFlag",
    readScope: "feature_flag:read",
    writeScope: "feature_flag:write",
    exists: (ctx, projectId, id) => flagExists(ctx.db, projectId, id),
    restoreBody: flagRestoreBody,
    update: (ctx, projectId, id, body) =>
      applyUpdate(ctx, projectId, id, parseInput(updateFlagSchema, body, ctx.limits), { kind: "posthog" }),
  });

  return {
    /** A page of a flag's kept versions, highest first, with their changes (issue 27). Scope `feature_flag:read`. @throws NotFoundError */
    versions: versions.versions,
    /** One kept version of a flag (issue 27). Scope `feature_flag:read`. @throws NotFoundError (flag or version) */
    version: versions.version,
    /**
     * Restores a flag to kept version n (issue 27): a flag PATCH of that version's fields (every
     * rule, the version bump, activity with the `version_restore` trigger, webhooks), returning the
     * flag as written. Scope `feature_flag:write`. @throws NotFoundError, ValidationError, as `update`.
     */
    restoreVersion: versions.restore,

    /**
     * Applies an approved change request's intent to its flag (issue 27; PostHog's
     * `FeatureFlagActionBase.apply`) as `ctx`'s user (the requester), after the approval was
     * authorised: the stored body through the flag's update path, under the row lock, only if the
     * flag's version is still the one the request was made against; a held create (`flag_id` null)
     * creates the flag by the create's rules. Returns PostHog's `result_data`.
     * @throws PreconditionFailed (`Flag version mismatch: expected N, got M`); what the update or the
     *   create throws (a key taken meanwhile: ValidationError).
     */
    async applyApprovedChange(
      ctx: ServiceContext,
      projectId: number,
      intent: Record<string, unknown>,
    ): Promise<AppliedChange> {
      if (intent["flag_id"] === null) {
        // A gated create: the flag is created now, by the create's rules (a taken key fails it).
        const flag = await createFlag(ctx, projectId, intent["full_request_data"] ?? {}, true);
        return { resource_id: flag.id, resource_version: flag.version };
      }
      const id = Number(intent["flag_id"]);
      const expected = Number((intent["preconditions"] as { version?: unknown } | undefined)?.version);
      const body = parseInput(updateFlagSchema, intent["full_request_data"] ?? {}, ctx.limits);
      try {
        const flag = await applyUpdate(ctx, projectId, id, body, {
          kind: "expectedVersion",
          version: expected,
        });
        return { resource_id: flag.id, resource_version: flag.version };
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        const now = await readFlag(readerOf(ctx), projectId, { id });
        throw new PreconditionFailed(`Flag version mismatch: expected ${expected}, got ${now.version}`);
      }
    },
  };
}
