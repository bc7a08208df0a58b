/**
 * How a flag is created (spec row 2, §2.4), for the flag writes (feature-flags.writes.ts): the key,
 * `analytics_dashboards`, the fields and the filters checked by PostHog's rules in their order
 * (flag-write-checks.ts), the key freed from a soft-deleted flag holding it, then the row, its tags,
 * its usage dashboard, the activity entry and the kept version written in one transaction (the
 * caller's, joined, for another domain's create), gated by an approval policy when it is a flag
 * create of its own. Source: `posthog/api/feature_flag.py` (`FeatureFlagSerializer.create`,
 * `_delete_soft_deleted_flags_with_key`); posthog-behavior.md §2.4–2.6, §2.11.
 */
import { recordActivity } from "../core/activity-log.js";
import type { ServiceContext } from "../core/context.js";
import { ValidationError } from "../core/errors.js";
import { normalizeTags } from "../core/tags.js";
import { clientOf, transactional } from "../core/transactional.js";
import { parseInput } from "../core/validation.js";
import { isUniqueViolation } from "../db/database-error.js";
import type { Prisma } from "../generated/prisma/client.js";
import type { FlagRecord } from "./feature-flags.queries.js";
import { type CreateFlagInput, createFlagSchema } from "./feature-flags.schemas.js";
import {
  insertFlag,
  lockSoftDeletedHolder,
  readFlagIn,
  readFlagSummaries,
  removeFlagRow,
  renameFlagKey,
  replaceFlagTags,
  setUsageDashboard,
} from "./feature-flags.store.js";
import { createFlagWriteChecks, duplicateKey, type FlagWriteCollaborators } from "./flag-write-checks.js";
import { createdChange, recordFlagVersion } from "./flag-write-records.js";
import type { FeatureFlagFilters } from "./rules/filter-types.js";

/** Creates the flag create over the collaborators it calls. */
export function createFlagCreateWrites(others: FlagWriteCollaborators) {
  const { dashboards, approvals } = others;
  const { validateKey, checkAnalyticsDashboards, checkFieldsBesideFilters, validatedFilters } =
    createFlagWriteChecks(others);

  /**
   * Frees `key` from the project's soft-deleted flag holding it (§2.4): the row is removed, unless
   * experiments still reference it (their flag is never removed): then, as PostHog's
   * `_delete_soft_deleted_flags_with_key`, a non-deleted experiment refuses the key, and deleted ones
   * only keep the old row under a tombstoned key.
   * Concurrent creates of the key take turns on the old row's lock (src/core/row-lock.ts): the ones
   * after the first find it gone or renamed and leave the key to the unique constraint (400).
   * @throws ValidationError `Cannot reuse key '<key>': a soft-deleted flag with this key is still referenced by active experiment(s) with ID(s): …`
   */
  async function freeSoftDeletedKey(tx: Prisma.TransactionClient, projectId: number, key: string) {
    const old = await lockSoftDeletedHolder(tx, projectId, key);
    if (!old) return;
    if (old.experiments.length === 0) {
      await removeFlagRow(tx, old.id);
      return;
    }
    const active = old.experiments.filter((x) => !x.deleted).map((x) => x.id);
    if (active.length > 0) {
      throw new ValidationError(
        `Cannot reuse key '${key}': a soft-deleted flag with this key is still referenced by active ` +
          `experiment(s) with ID(s): ${active.join(", ")}. Please contact support.`,
      );
    }
    await renameFlagKey(tx, old.id, `${key}:deleted:${old.id}`);
  }

  /**
   * Creates a flag (spec row 2, §2.4) after the caller authorised it, in one `transactional` with
   * its tags, its usage dashboard (the dashboards service joins it) and its activity entry; inside
   * another domain's `transactional` (an experiment's create) it joins that one, its reads included,
   * so the caller's rows commit or roll back with the flag. Returns the flag as read in the
   * transaction. `gated`: the create is a flag create of its own (REST, GraphQL, an approved request's),
   * which the approval gate sees (`createdChange`); another domain's flag (an experiment's) is not.
   * @throws ValidationError for any rule of §2.4–2.6; NotImplementedError for encrypted payloads;
   *   the approval gate's refusals when `gated`.
   */
  async function createFlag(
    ctx: ServiceContext,
    projectId: number,
    body: unknown,
    gated = false,
  ): Promise<FlagRecord> {
    const input: CreateFlagInput = parseInput(createFlagSchema, body, ctx.limits);
    const db = clientOf(ctx);
    await validateKey(db, projectId, input.key, null);
    await checkAnalyticsDashboards(db, projectId, input);
    checkFieldsBesideFilters(input);
    const filters =
      input.filters === undefined
        ? ({} as FeatureFlagFilters)
        : await validatedFilters(ctx, projectId, input.filters, { id: null, key: input.key }, true, () =>
            readFlagSummaries(db, projectId),
          );
    const tags = normalizeTags(input.tags ?? []);
    const evaluationTags = normalizeTags(input.evaluation_tags ?? []);
    const userId = ctx.actor.user.id;
    try {
      return await transactional(ctx, async (tx) => {
        // The (project, key) constraint covers soft-deleted rows too: a new flag replaces a deleted one (§2.4).
        await freeSoftDeletedKey(tx, projectId, input.key);
        if (gated) await approvals.gate(tx, ctx, projectId, createdChange(input, filters, body));
        const flag = await insertFlag(tx, projectId, input, filters, userId);
        if (tags.length) await replaceFlagTags(tx, projectId, flag.id, tags, "tags");
        if (evaluationTags.length)
          await replaceFlagTags(tx, projectId, flag.id, evaluationTags, "evaluationTags");
        // PostHog's create writes the usage dashboard unless asked not to (§2.4, §2.11).
        if (input._should_create_usage_dashboard !== false) {
          const usageDashboardId = await dashboards.writeUsageDashboard(ctx, { projectId, key: flag.key });
          await setUsageDashboard(ctx, flag.id, usageDashboardId);
        }
        await recordActivity(tx, {
          projectId,
          userId,
          scope: "FeatureFlag",
          itemId: String(flag.id),
          activity: "created",
          name: flag.key,
          changes: [],
        });
        const created = await readFlagIn(tx, projectId, flag.id);
        await recordFlagVersion(tx, created, "created", userId);
        return created;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateKey();
      throw error;
    }
  }

  return { createFlag };
}
