/**
 * What a flag write records beside its row, for the create and update paths (feature-flags.writes.ts)
 * and the flag service's own writes: the flag's fields as PostHog's model names them (what the
 * activity log and the `original_flag` conflict rule compare), its kept version
 * (core/object-versions.ts), and the write as the approval gate sees it (approvals/rules/actions.ts).
 * Source: `posthog/api/feature_flag.py`, PostHog's approval gates for flags (issue 27);
 * posthog-behavior.md §2.7, §2.9.
 */
import type { FlagChange } from "../approvals/rules/actions.js";
import { recordVersion } from "../core/object-versions.js";
import type { Prisma } from "../generated/prisma/client.js";
import type { FlagRecord } from "./feature-flags.queries.js";
import type { CreateFlagInput } from "./feature-flags.schemas.js";

/**
 * A flag's fields as PostHog's model names them: what the activity log compares (PostHog's fields
 * less its exclusions, §2.9) and what the `original_flag` conflict rule compares (§2.7).
 */
export function snapshot(flag: FlagRecord): Record<string, unknown> {
  return {
    name: flag.name,
    key: flag.key,
    filters: flag.filters,
    rollout_percentage: flag.rolloutPercentage,
    deleted: flag.deleted,
    active: flag.active,
    version: flag.version,
    rollback_conditions: flag.rollbackConditions,
    performed_rollback: flag.performedRollback,
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    usage_dashboard: flag.usageDashboardId,
    has_enriched_analytics: flag.hasEnrichedAnalytics,
    is_remote_configuration: flag.isRemoteConfiguration,
    has_encrypted_payloads: flag.hasEncryptedPayloads,
    evaluation_runtime: flag.evaluationRuntime,
    bucketing_identifier: flag.bucketingIdentifier,
    tags: flag.tags,
    evaluation_tags: flag.evaluationTags,
  };
}

/**
 * Keeps `flag`, as written in `tx` by `userId`, as its version `flag.version` (core/object-versions.ts):
 * its `snapshot` less the version number, which numbers the row.
 */
export async function recordFlagVersion(
  tx: Prisma.TransactionClient,
  flag: FlagRecord,
  activity: string,
  userId: number | null,
): Promise<void> {
  const { version, ...fields } = snapshot(flag);
  await recordVersion(tx, {
    scope: "FeatureFlag",
    projectId: flag.projectId,
    itemId: String(flag.id),
    version: flag.version,
    activity,
    snapshot: fields,
    userId,
  });
}

/**
 * The write of `current` the approval gate looks at (approvals/rules/actions.ts): what `input` sets
 * of `active` and `filters` (as they would be stored), and the body an approved request replays
 * (the parsed input, less the conflict fields: the replay checks the version itself).
 */
export function gatedChange(
  current: FlagRecord,
  input: Record<string, unknown> & { active?: boolean | undefined; filters?: unknown },
  filters: unknown,
): FlagChange {
  const { version: _version, original_flag: _original, ...body } = input;
  return {
    flagId: current.id,
    flagKey: current.key,
    version: current.version,
    updatedAt: current.updatedAt.toISOString(),
    ownedByExperiment: current.experimentSet.length > 0,
    before: { active: current.active, filters: current.filters },
    sent: {
      ...(input.active === undefined ? {} : { active: input.active }),
      ...(input.filters === undefined ? {} : { filters }),
    },
    body,
  };
}

/**
 * A flag create as the approval gate sees it (PostHog's create gate,
 * products/approvals/backend/tests/test_create_feature_flag_gate.py): from an empty baseline, an
 * inactive flag without filters, to the flag as it would be stored (`active` true unless sent false,
 * the model's default); `body` is replayed by the create when approved.
 */
export function createdChange(input: CreateFlagInput, filters: unknown, body: unknown): FlagChange {
  return {
    flagId: null,
    flagKey: input.key,
    version: 0,
    updatedAt: new Date(0).toISOString(),
    ownedByExperiment: false,
    before: { active: false, filters: {} },
    sent: { active: input.active !== false, filters },
    body: body as Record<string, unknown>,
  };
}
