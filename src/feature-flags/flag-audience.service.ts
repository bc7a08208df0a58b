/**
 * Who a release condition or a flag reaches: a condition's blast radius (`POST user_blast_radius/`,
 * counted in the database by the persons or groups service) and a flag's static cohort
 * (`POST :id/create_static_cohort_for_flag`: the persons the flag is truthy for, written by the
 * cohort service). Part of the feature-flag service (feature-flags.service.ts), which spreads these
 * into its operations. Source of the rules: `posthog/api/feature_flag.py` (`user_blast_radius`,
 * `create_static_cohort_for_flag`); posthog-behavior.md §2.10 and decision 2.
 */
import type { CohortRecord } from "../cohorts/cohorts.queries.js";
import type { CohortService } from "../cohorts/cohorts.service.js";
import { authorizeProject, authorizeProjectScopes } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { checkNestingDepth } from "../core/json-input.js";
import type { ServiceDeps } from "../core/services.js";
import type { GroupService } from "../groups/groups.service.js";
import type { PersonService } from "../persons/persons.service.js";
import type { FlagEvaluationService } from "./evaluation/evaluation.service.js";
import { readFlag } from "./feature-flags.queries.js";
import { readBlastRadiusQuery } from "./rules/blast-radius.js";
import { staticCohortName } from "./rules/static-cohort.js";

/** The other domains' services the audience operations call. */
export interface FlagAudienceCollaborators {
  /** Writes the static cohort of `create_static_cohort_for_flag`. */
  cohorts: Pick<CohortService, "createStaticWithPersons">;
  /** Evaluates a flag for every person (`create_static_cohort_for_flag`). */
  evaluation: Pick<FlagEvaluationService, "personsWithFlag">;
  /** Counts the persons a condition selects (blast radius). */
  persons: Pick<PersonService, "countMatching">;
  /** Counts the groups a condition selects (blast radius of a group flag). */
  groups: Pick<GroupService, "countMatching">;
}

/** A condition's blast radius (§2.10): persons (or groups) it selects, of all the project has. */
export interface BlastRadius {
  usersAffected: number;
  totalUsers: number;
}

/** Creates the audience operations of the feature-flag service. */
export function createFlagAudienceOperations(deps: ServiceDeps, others: FlagAudienceCollaborators) {
  const { cohorts } = others;
  return {
    /**
     * How many persons a release condition selects, of all the project's persons (spec row 18,
     * `POST user_blast_radius/`, §2.10), or with `group_type_index` how many groups of that type;
     * the condition's rollout is not applied. Counted in the database. Scope `feature_flag:read`
     * (decision 2). @throws ValidationError (`readBlastRadiusQuery`, and filters the rows cannot be
     * filtered by); NotImplementedError for conditions on other flags or behavioral cohorts.
     */
    async blastRadius(ctx: ServiceContext, projectId: number, body: unknown): Promise<BlastRadius> {
      const project = await authorizeProject(ctx, projectId, "feature_flag:read");
      const { criteria, groupTypeIndex } = readBlastRadiusQuery(body, ctx.limits);
      const attr = "condition__properties";
      const counts =
        groupTypeIndex === null
          ? await others.persons.countMatching(ctx, project.id, criteria, attr)
          : await others.groups.countMatching(ctx, project.id, groupTypeIndex, criteria, attr);
      return { usersAffected: counts.matching, totalUsers: counts.total };
    },

    /**
     * `POST :id/create_static_cohort_for_flag` (spec row 7, posthog-behavior.md §2.10 and decision 2):
     * a new static cohort named `Users with feature flag <key> enabled at <YYYY-MM-DD HH:MM:SS>` (UTC,
     * rules/static-cohort.ts), created by the key's user, holding every person of the project for
     * whom flag `id` is truthy now (`flagEvaluation.personsWithFlag`: our engine, persons read in
     * pages; none for a deleted, inactive or group-aggregated flag, as PostHog's task, which raises
     * nothing for them). Soft-deleted flags are found, as PostHog's `get_object` finds them.
     *
     * Unlike PostHog, which answers `is_calculating: true` and fills the cohort in a background task,
     * the members are computed before the write, and the cohort, its members, its `count` and its
     * `created` activity entry are written in one transaction (cohorts' `createStaticWithPersons`):
     * the cohort exists complete or not at all, even if the process dies, and the answer already
     * says `is_calculating: false` and the right `count`. Persons deleted between the read and the
     * write are left out. `body` is not read (PostHog's action reads none; only its nesting is
     * limited). Scopes `feature_flag:read` and `cohort:write`, checked before anything is read.
     * Returns the cohort as written.
     * @throws NotFoundError when the flag is not in the project; PermissionDeniedError (either
     *   scope); ValidationError `max_depth`.
     */
    async createStaticCohort(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
    ): Promise<CohortRecord> {
      await authorizeProjectScopes(ctx, projectId, ["feature_flag:read", "cohort:write"]);
      // The body is not read, but too deep a one is refused, as for `has_active_dependents`.
      checkNestingDepth(body, ctx.limits.maxJsonDepth);
      const flag = await readFlag(ctx.reader, projectId, { id });
      const name = staticCohortName(flag.key, deps.now());
      const personIds = await others.evaluation.personsWithFlag(ctx, projectId, flag.id);
      return cohorts.createStaticWithPersons(ctx, projectId, name, personIds);
    },
  };
}
