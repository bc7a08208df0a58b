/**
 * The flags that depend on a flag (§2.6): `GET :id/dependent_flags`, `POST :id/has_active_dependents`
 * and GraphQL's batched `dependentFlags`, all from one read of the project's flags
 * (rules/flag-dependencies.ts says which flags depend on which). Part of the feature-flag service
 * (feature-flags.service.ts), which spreads these into its operations. Source of the rules:
 * `posthog/api/feature_flag.py` (`dependent_flags`, `has_active_dependents`); posthog-behavior.md §2.6.
 */
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { checkNestingDepth } from "../core/json-input.js";
import { type FlagRecord, readFlag, selectFlags } from "./feature-flags.queries.js";
import { readFlagSummaries } from "./feature-flags.store.js";
import type { FlagSummary } from "./rules/filter-types.js";
import {
  type DependentFlagEntry,
  dependentFlagEntry,
  dependentFlags,
  dependentsWarning,
} from "./rules/flag-dependencies.js";

/** `POST :id/has_active_dependents`'s answer (§2.6): the flags that depend on a flag, and PostHog's warning. */
export interface ActiveDependents {
  hasActiveDependents: boolean;
  dependentFlags: DependentFlagEntry[];
  /** Present only when there are dependents (`dependentsWarning`). */
  warning?: string;
}

/** Creates the dependent-flag reads of the feature-flag service. */
export function createFlagDependentOperations() {
  /**
   * The non-deleted, active flags depending on each of `ids` (§2.6 `dependentFlags`), by key, from
   * one read of the project's flags. Flags of `ids` not in the project have none.
   */
  async function dependentsByFlag(
    ctx: ServiceContext,
    projectId: number,
    ids: readonly number[],
  ): Promise<Map<number, Array<FlagSummary & { name: string }>>> {
    const flags = await readFlagSummaries(ctx.db, projectId);
    return new Map(ids.map((id) => [id, dependentFlags(id, flags.values())]));
  }

  /** One flag's dependents (§2.6), after checking it is in the project. @throws NotFoundError */
  async function dependentsOfOne(ctx: ServiceContext, projectId: number, id: number) {
    await readFlag(ctx.reader, projectId, { id });
    return (await dependentsByFlag(ctx, projectId, [id])).get(id) ?? [];
  }

  return {
    /**
     * The flags that depend on flag `id` (`GET :id/dependent_flags`, §2.6): non-deleted, active
     * flags of the project with a `type: "flag"` condition on it, by key, as `{id, key, name}`.
     * Scope `feature_flag:read`. @throws NotFoundError when the flag is not in the project.
     */
    async dependentFlags(ctx: ServiceContext, projectId: number, id: number): Promise<DependentFlagEntry[]> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      return (await dependentsOfOne(ctx, projectId, id)).map(dependentFlagEntry);
    },

    /**
     * `POST :id/has_active_dependents` (spec row 10, §2.6; PostHog's older form of `dependentFlags`):
     * the same flags, whether there are any, and a warning when there are. Writes nothing; `body` is
     * not read (only its nesting is limited). Scope `feature_flag:read` (decision 2).
     * @throws NotFoundError when the flag is not in the project; ValidationError `max_depth`.
     */
    async activeDependents(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
    ): Promise<ActiveDependents> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      // The body is not read, but too deep a one is refused, as DRF's parser does before any action.
      checkNestingDepth(body, ctx.limits.maxJsonDepth);
      const dependents = (await dependentsOfOne(ctx, projectId, id)).map(dependentFlagEntry);
      if (dependents.length === 0) return { hasActiveDependents: false, dependentFlags: [] };
      return {
        hasActiveDependents: true,
        dependentFlags: dependents,
        warning: dependentsWarning(dependents.length),
      };
    },

    /**
     * The dependents (§2.6) of each of `ids`, whole records, by key, in the order asked (a batch for
     * GraphQL's loaders: two statements whatever the number of flags). Scope `feature_flag:read`.
     */
    async dependentsOfMany(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly number[],
    ): Promise<FlagRecord[][]> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      const byFlag = await dependentsByFlag(ctx, projectId, ids);
      const wanted = [...new Set([...byFlag.values()].flat().map((flag) => flag.id))];
      const records =
        wanted.length === 0
          ? new Map<number, FlagRecord>()
          : new Map((await selectFlags(ctx.reader, projectId, { ids: wanted })).map((f) => [f.id, f]));
      return ids.map((id) =>
        (byFlag.get(id) ?? []).flatMap((flag) => {
          const record = records.get(flag.id);
          return record ? [record] : [];
        }),
      );
    },
  };
}
