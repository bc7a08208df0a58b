/**
 * The local-evaluation payload PostHog's SDKs poll (posthog-behavior.md §2.10, §3.6;
 * `posthog/models/feature_flag/local_evaluation.py` `_get_flags_response_for_local_evaluation`):
 * `{"flags": [MinimalFlag], "group_type_mapping": {"<index>": "<name>"}, "cohorts": {"<id>": group}}`.
 * - `flags`: every non-deleted flag except remote-configuration ones, inactive ones included, in
 *   PostHog's `MinimalFeatureFlagSerializer` shape (`filters` is `get_filters()`: the legacy
 *   rollout synthesised into one group).
 * - with `send_cohorts`: `cohorts` holds each non-static cohort a flag reaches (directly or through
 *   other cohorts) in PostHog's `to_dict` form, and flags are sent as stored;
 * - without it: `cohorts` is `{}`, and a flag whose one cohort is a simple person-property cohort
 *   has it inlined (rules/cohort-inlining.ts).
 * A flag whose stored filters PostHog's code cannot read (a cohort value that is not an id) is sent
 * as stored and adds no cohort, as PostHog's per-flag `except: continue` does.
 * - in both, flag dependencies are sent as SDKs read them: each `flag` filter names its dependency by
 *   key, with the `dependency_chain` to evaluate first (rules/dependency-chains.ts; PostHog's
 *   `_apply_flag_dependency_transformation`); posthog-node defers a flag filter without one.
 * Pure; the bytes are made once per project revision by definitions.ts.
 */

import type { DefinitionFlag, ProjectDefinitions } from "../evaluation/project-definitions.js";
import { cohortDict, flagCohortIds, inlineCohort, UnreadableFlagError } from "../rules/cohort-inlining.js";
import { withDependencyChains } from "../rules/dependency-chains.js";

/** One flag of the payload (PostHog's `MinimalFeatureFlagSerializer`, §2.10). */
export interface MinimalFlag {
  id: number;
  team_id: number;
  name: string;
  key: string;
  filters: Record<string, unknown>;
  deleted: false;
  active: boolean;
  ensure_experience_continuity: boolean;
  has_encrypted_payloads: boolean;
  version: number;
  evaluation_runtime: string;
  bucketing_identifier: string;
  evaluation_tags: string[];
}

/** The whole payload. */
export interface LocalEvaluationBody {
  flags: MinimalFlag[];
  group_type_mapping: Record<string, string>;
  cohorts: Record<string, Record<string, unknown>>;
}

/**
 * A flag in PostHog's `MinimalFeatureFlagSerializer` shape with `filters` as given (the payload's,
 * or the stored `get_filters()` for `my_flags`).
 */
export function minimalFlag(
  flag: DefinitionFlag,
  projectId: number,
  filters: Record<string, unknown> = flag.filters,
): MinimalFlag {
  return {
    id: flag.id,
    team_id: projectId,
    name: flag.name,
    key: flag.key,
    filters,
    deleted: false,
    active: flag.active,
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    has_encrypted_payloads: flag.hasEncryptedPayloads,
    version: flag.version,
    evaluation_runtime: flag.evaluationRuntime,
    bucketing_identifier: flag.bucketingIdentifier ?? "distinct_id",
    evaluation_tags: flag.evaluationTags,
  };
}

/** Runs `read` on a flag's stored filters; null where PostHog's code would raise (see the module comment). */
function readable<T>(read: () => T): T | null {
  try {
    return read();
  } catch (error) {
    if (error instanceof UnreadableFlagError) return null;
    throw error;
  }
}

/** The payload of `project`, with or without `send_cohorts` (see the module comment). */
export function localEvaluationBody(project: ProjectDefinitions, sendCohorts: boolean): LocalEvaluationBody {
  const { definitions, projectId } = project;
  const cohorts = project.projectCohorts;
  const flags: MinimalFlag[] = [];
  const cohortBodies: Record<string, Record<string, unknown>> = {};
  for (const flag of definitions.flags) {
    if (flag.isRemoteConfiguration) continue;
    if (sendCohorts) {
      for (const id of readable(() => flagCohortIds(flag.filters, cohorts)) ?? []) {
        const criteria = cohorts.get(id)?.criteria;
        if (criteria) cohortBodies[String(id)] ??= cohortDict(criteria);
      }
      flags.push(minimalFlag(flag, projectId, flag.filters));
      continue;
    }
    const groups = readable(() => inlineCohort(flag.filters, cohorts));
    flags.push(minimalFlag(flag, projectId, groups ? { ...flag.filters, groups } : flag.filters));
  }
  const chained = withDependencyChains(flags);
  return {
    flags: flags.map((flag, index) => ({ ...flag, filters: chained[index]! })),
    group_type_mapping: { ...definitions.groupTypeMapping },
    cohorts: cohortBodies,
  };
}
