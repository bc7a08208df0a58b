/**
 * Flag evaluation for a subject, for every door: SDKs' `/flags` and `/decide` (project by public
 * token, flags.sdk.ts), OpenFeature's OFREP (public token, ofrep.sdk.ts), REST's
 * `evaluation_reasons` and `my_flags`, GraphQL's `Project.evaluateFeatureFlags` (personal API key,
 * `feature_flag:read`). Per request:
 * 1. the project's definitions (definitions.ts: one statement when cached), compiled once per
 *    definitions object by the engine (engine/evaluate.ts) and kept beside it;
 * 2. the subject in ONE statement (subject.queries.ts): stored person properties, static-cohort
 *    memberships, group properties, hash keys; a `/flags` request with `$anon_distinct_id` for a
 *    project with active continuity flags also writes the missing hash keys in that statement. No
 *    statement at all when the request's properties decide every flag (no flag needs stored data);
 * 3. the request's properties overlaid with PostHog's precedence (rules/subject.ts), then the
 *    engine's pure evaluation.
 * When reading the subject fails for a reason other than bad input (the database), the flags that
 * need nothing stored are still evaluated from the request alone, the others are reported failed,
 * and the answer says `errorsWhileComputingFlags` (rust/feature-flags/src/flags/flag_matching.rs
 * `prepare_evaluation_state_if_needed`, `handle_db_preparation_error`).
 *
 * One flag over every person of a project (`personsWithFlag`, for `create_static_cohort_for_flag`)
 * runs the same engine on the same compiled definitions, with the persons read a keyset page at a
 * time (person-subjects.queries.ts) instead of one subject per statement.
 */
import { authorizeProject } from "../../core/auth/access.js";
import type { DataAccess, ServiceContext } from "../../core/context.js";
import { DomainError, ValidationError } from "../../core/errors.js";
import { databaseOf, type ServiceDeps } from "../../core/services.js";
import { parseInput } from "../../core/validation.js";
import type { SqlReader } from "../../db/sql-reader.js";
import type { FlagDefinitionsService } from "../delivery/definitions.js";
import { type CompiledDefinitions, compileDefinitions, evaluateFlags } from "./engine/evaluate.js";
import type { FlagEvaluation } from "./engine/types.js";
import {
  type EvaluationInput,
  type FlagsRequest,
  flagsRequestSchema,
  ofrepRequestSchema,
  readFlagsRequest,
  readGroupsParameter,
  readOfrepRequest,
} from "./evaluation.schemas.js";
import { readPersonSubjects } from "./person-subjects.queries.js";
import type { DefinitionFlag, ProjectDefinitions } from "./project-definitions.js";
import { detectRuntime, matchesContexts, type RuntimeHeaders, runsIn } from "./rules/runtime.js";
import {
  buildSubject,
  groupsToLoad,
  hasExperienceContinuity,
  needsStoredData,
  type StoredSubject,
  staticCohortIds,
} from "./rules/subject.js";
import { readSubject, type SubjectQuery } from "./subject.queries.js";
import { subjectCacheOf } from "./subject-cache.js";

/**
 * Persons read and evaluated per statement by `personsWithFlag`: PostHog's task's `batchsize`
 * (posthog/tasks/calculate_cohort.py `get_cohort_actors_for_feature_flag`).
 */
export const PERSON_BATCH_SIZE = 1_000;

/** One flag's outcome: its evaluation, or null when it could not be computed (`failed`). */
export interface FlagResult {
  flag: DefinitionFlag;
  evaluation: FlagEvaluation | null;
}

/** An evaluation of a project's flags for one subject. */
export interface EvaluationOutcome {
  /** The flags evaluated, in the definitions' order. */
  results: FlagResult[];
  /** True when stored data could not be read: some flags may be missing (failed) or computed from the request alone. */
  errorsWhileComputingFlags: boolean;
  /** What reading the subject threw, when it did (for the caller's log). */
  loadError: unknown;
}

/** An SDK's `/flags` evaluation: the request as read, and the outcome (no flags when `disable_flags`). */
export interface SdkEvaluation extends EvaluationOutcome {
  request: FlagsRequest;
  /** Whether the project has an active flag (the config's `hasFeatureFlags`). */
  hasActiveFlags: boolean;
}

/** `evaluation_reasons`' answer per flag key (posthog-behavior.md §2.10). */
export interface EvaluationReason {
  value: boolean | string;
  evaluation: { reason: string; condition_index: number | null };
}

/** How an evaluation is run. */
interface RunOptions {
  /** Flags to evaluate (the rest are absent from the outcome). */
  include: (flag: DefinitionFlag) => boolean;
  /** Evaluate only these keys (and what they depend on); all included flags when null. */
  keys: readonly string[] | null;
  /** Runs the subject's statement (in a transaction when `query.write` is set). */
  readSubject: (query: SubjectQuery) => Promise<StoredSubject>;
  /** Whether to write hash keys for `$anon_distinct_id` (SDK requests only). */
  writeHashKeys: boolean;
  /**
   * Whether a failure to read the subject still answers, with what the request alone decides (SDK
   * requests, as PostHog's `errorsWhileComputingFlags`); otherwise the failure is thrown.
   */
  tolerateLoadFailure: boolean;
}

/** Every flag. */
const ALL_FLAGS = () => true;

/** Whether the project has an active (non-deleted) flag. */
const anyActive = (project: ProjectDefinitions) => project.definitions.flags.some((flag) => flag.active);

/**
 * Creates the flag evaluation service on the project definitions of `definitions`; `deps.now` is
 * the time relative dates (`-7d`) are measured from.
 */
export function createFlagEvaluationService(
  deps: ServiceDeps,
  definitions: Pick<FlagDefinitionsService, "current">,
) {
  /**
   * Reads the subject of a read-only `query` through the process's subject cache (./subject-cache.ts)
   * when there is a database to follow, else straight on `reader`.
   */
  const subjects = deps.data ? subjectCacheOf(deps.data) : null;
  const data = (): DataAccess => databaseOf(deps, "flag evaluation service");
  const readStored = (reader: SqlReader, query: SubjectQuery): Promise<StoredSubject> =>
    subjects
      ? subjects.read(query, () => readSubject(reader, query))
      : readSubject(reader, query).then((read) => read.stored);

  /** Compiled definitions per definitions object: compiled once per project revision, not per request. */
  const compiled = new WeakMap<ProjectDefinitions, CompiledDefinitions>();
  const compiledOf = (project: ProjectDefinitions): CompiledDefinitions => {
    let entry = compiled.get(project);
    if (!entry) {
      entry = compileDefinitions(project.definitions);
      compiled.set(project, entry);
    }
    return entry;
  };

  /** Evaluates `input` against `project` (see the module comment). */
  async function run(
    project: ProjectDefinitions,
    input: EvaluationInput,
    options: RunOptions,
  ): Promise<EvaluationOutcome> {
    const flags = project.definitions.flags.filter(options.include);
    const continuity = flags.filter((flag) => flag.active && hasExperienceContinuity(flag));
    const query: SubjectQuery = {
      projectId: project.projectId,
      distinctId: input.distinctId,
      staticCohortIds: staticCohortIds(project.definitions),
      groups: groupsToLoad(input.groups, project.definitions.groupTypeMapping),
      hashKeysOf:
        continuity.length === 0
          ? null
          : input.anonDistinctId === null
            ? [input.distinctId]
            : [input.distinctId, input.anonDistinctId],
      write:
        options.writeHashKeys && continuity.length > 0 && input.anonDistinctId !== null
          ? { hashKey: input.anonDistinctId, flagKeys: continuity.map((flag) => flag.key) }
          : null,
    };

    // Stored data is read only when some flag needs it: the request's properties decide the rest
    // (rust/feature-flags flag_matching.rs prepares the evaluation state only for flags whose
    // `requires_db_properties` holds). Every flag is looked at, not only the keys asked for: a flag
    // may depend on another that needs stored data.
    let stored: StoredSubject | null = null;
    let loadError: unknown = null;
    if (flags.some((flag) => needsStoredData(flag, input.personProperties))) {
      try {
        stored = await options.readSubject(query);
      } catch (error) {
        if (error instanceof DomainError || !options.tolerateLoadFailure) throw error;
        loadError = error;
      }
    }

    // Without stored data, only flags decided by the request alone are computed.
    const computable =
      stored === null ? flags.filter((flag) => !needsStoredData(flag, input.personProperties)) : flags;
    const wanted = options.keys === null ? null : new Set(options.keys);
    const keys = computable.filter((flag) => wanted === null || wanted.has(flag.key)).map((flag) => flag.key);
    const subject = buildSubject(input, stored, project.definitions);
    const everyFlag = keys.length === project.definitions.flags.length;
    const evaluations =
      keys.length === 0
        ? new Map<string, FlagEvaluation>()
        : evaluateFlags(
            compiledOf(project),
            subject,
            everyFlag ? { now: deps.now() } : { now: deps.now(), keys },
          );

    const results: FlagResult[] = [];
    for (const flag of flags) {
      if (wanted !== null && !wanted.has(flag.key)) continue;
      results.push({ flag, evaluation: evaluations.get(flag.key) ?? null });
    }
    return { results, errorsWhileComputingFlags: stored === null, loadError };
  }

  /** An API caller's evaluation of every flag of the project: reads only. Scope `feature_flag:read`. */
  async function evaluateForApi(
    ctx: ServiceContext,
    projectId: number,
    input: EvaluationInput,
  ): Promise<EvaluationOutcome> {
    const project = await authorizeProject(ctx, projectId, "feature_flag:read");
    return run(await definitions.current(project.id), input, {
      include: ALL_FLAGS,
      keys: input.flagKeys,
      readSubject: (query) => {
        // Persons come from the subject cache without a statement: no revision covers them.
        ctx.reads?.volatile();
        return readStored(ctx.reader, query);
      },
      writeHashKeys: false,
      tolerateLoadFailure: false,
    });
  }

  /** The evaluation input of a REST caller: a distinct id and `groups` as JSON text. */
  const apiInput = (distinctId: string, groups: string | null): EvaluationInput => ({
    distinctId,
    anonDistinctId: null,
    deviceId: null,
    groups: readGroupsParameter(groups),
    personProperties: {},
    groupProperties: {},
    flagKeys: null,
  });

  return {
    /**
     * Evaluates the flags of `projectId` for a decoded `/flags` (or `/decide`) body, as PostHog's
     * flags service does: the body read as `FlagsRequest` (evaluation.schemas.ts), the flags
     * filtered by runtime and evaluation tags (rules/runtime.ts; `headers` tell the runtime when the
     * body does not), inactive flags left out, `flag_keys` honoured, hash keys written for
     * `$anon_distinct_id`. No flag is evaluated (and nothing read) for `disable_flags`. The public
     * token authorised the project: no scope applies.
     * @throws ValidationError (400) for a body without `distinct_id` or with a field of the wrong type.
     */
    async evaluateForSdk(
      projectId: number,
      body: unknown,
      headers: RuntimeHeaders,
      maxJsonDepth: number,
    ): Promise<SdkEvaluation> {
      const request = readFlagsRequest(body, (input) =>
        parseInput(flagsRequestSchema, input, { maxJsonDepth }),
      );
      const project = await definitions.current(projectId);
      const hasActiveFlags = anyActive(project);
      if (request.disableFlags) {
        return { request, hasActiveFlags, results: [], errorsWhileComputingFlags: false, loadError: null };
      }
      const runtime = detectRuntime(request.runtime, headers);
      const outcome = await run(project, request, {
        include: (flag) =>
          flag.active &&
          runsIn(flag.evaluationRuntime, runtime) &&
          matchesContexts(flag.evaluationTags, request.evaluationContexts),
        keys: request.flagKeys,
        readSubject: (query) =>
          query.write === null
            ? readStored(data().reader, query)
            : data()
                .transaction((tx) => readSubject(tx, query))
                .then((read) => read.stored),
        writeHashKeys: true,
        tolerateLoadFailure: true,
      });
      return { ...outcome, request, hasActiveFlags };
    },

    /**
     * Evaluates the flags of `projectId` for an OpenFeature (OFREP) request body (./ofrep.ts): the
     * context read by `readOfrepRequest` (evaluation.schemas.ts: `targetingKey` the distinct id, the
     * other attributes person properties), every non-deleted flag evaluated, inactive ones included
     * (the engine's `flag_disabled`, OFREP's `DISABLED`), or only `key` (absent from the outcome
     * when the project has no such flag). Reads only: no hash keys are written (OFREP has no
     * `$anon_distinct_id`). When the subject's stored data cannot be read, the flags the context
     * alone decides are still evaluated and the others come back with no evaluation. No runtime or
     * evaluation-tag filtering (those are `/flags` request fields). The public token authorised the
     * project: no scope applies.
     * @throws ValidationError code `TARGETING_KEY_MISSING` or `INVALID_CONTEXT` (400).
     */
    async evaluateForOpenFeature(
      projectId: number,
      body: unknown,
      key: string | null,
      maxJsonDepth: number,
    ): Promise<EvaluationOutcome> {
      const input = readOfrepRequest(body, (raw) => parseInput(ofrepRequestSchema, raw, { maxJsonDepth }));
      return run(await definitions.current(projectId), input, {
        include: ALL_FLAGS,
        keys: key === null ? null : [key],
        readSubject: (query) => readStored(data().reader, query),
        writeHashKeys: false,
        tolerateLoadFailure: true,
      });
    },

    /**
     * Whether the project has an active flag (the remote config's `hasFeatureFlags`): one statement
     * when its definitions are cached. The public token authorised the project.
     */
    async hasActiveFlags(projectId: number): Promise<boolean> {
      return anyActive(await definitions.current(projectId));
    },

    /**
     * Every flag of the project evaluated for an API caller's input (GraphQL
     * `Project.evaluateFeatureFlags`): inactive flags included (the engine's `flag_disabled`).
     * Scope `feature_flag:read`. @throws NotFoundError, PermissionDeniedError.
     */
    evaluate: evaluateForApi,

    /**
     * `evaluation_reasons` (spec row 15, posthog-behavior.md §2.10): each non-deleted flag's value,
     * reason and condition index for `query.distinct_id` (required) and `query.groups` (JSON), with
     * every inactive flag reported `disabled`. Scope `feature_flag:read` (decision 2).
     * @throws ValidationError `required` (attr `distinct_id`), or for malformed `groups`.
     */
    async evaluationReasons(
      ctx: ServiceContext,
      projectId: number,
      query: URLSearchParams,
    ): Promise<Record<string, EvaluationReason>> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      const distinctId = query.get("distinct_id");
      if (!distinctId) {
        throw new ValidationError("This field is required.", { attr: "distinct_id", code: "required" });
      }
      const outcome = await evaluateForApi(ctx, projectId, apiInput(distinctId, query.get("groups")));
      const reasons: Record<string, EvaluationReason> = {};
      for (const { flag, evaluation } of outcome.results) {
        reasons[flag.key] =
          !flag.active || evaluation === null
            ? {
                value: false,
                evaluation: { reason: flag.active ? "unknown" : "disabled", condition_index: null },
              }
            : {
                value: evaluation.value,
                evaluation: { reason: evaluation.reason, condition_index: evaluation.conditionIndex },
              };
      }
      return reasons;
    },

    /**
     * `my_flags` (spec row 17, §2.10): every non-deleted flag, newest first, with its value for the
     * calling user's `distinct_id` (false when not computed) and `groups` (JSON). Scope
     * `feature_flag:read` (decision 2: the key's user is "me").
     * @throws ValidationError for malformed `groups`.
     */
    async myFlags(
      ctx: ServiceContext,
      projectId: number,
      groups: string | null,
    ): Promise<Array<{ flag: DefinitionFlag; value: boolean | string }>> {
      const input = apiInput(ctx.actor.user.distinctId, groups);
      const outcome = await evaluateForApi(ctx, projectId, input);
      return outcome.results
        .map(({ flag, evaluation }) => ({ flag, value: evaluation?.value ?? false }))
        .sort((a, b) => b.flag.id - a.flag.id);
    },

    /**
     * The internal ids of the project's persons for whom flag `flagId` is truthy (`true` or any
     * variant), ascending: what `create_static_cohort_for_flag` puts in its cohort (spec row 7,
     * posthog-behavior.md §2.10). Each person is evaluated as PostHog's task does it
     * (posthog/tasks/calculate_cohort.py `get_cohort_actors_for_feature_flag`): as its first
     * distinct id (person-subjects.queries.ts says which), with its stored properties, its static
     * cohorts and its hash keys, and no groups (a person's groups are unknown: group conditions
     * answer `no_group_type`). Conditions on cohorts and on other flags are evaluated by the engine as
     * `/flags` would. None when the flag is deleted (or not in the project), inactive, or aggregates
     * by group: PostHog's guard, with no error. Persons are read `PERSON_BATCH_SIZE` at a time, one
     * statement per page; only the matching ids are kept. Reads only. Scope `feature_flag:read`.
     * @throws as `authorizeProject`.
     */
    async personsWithFlag(ctx: ServiceContext, projectId: number, flagId: number): Promise<bigint[]> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      const project = await definitions.current(projectId);
      const flags: readonly DefinitionFlag[] = project.definitions.flags;
      const flag = flags.find((candidate) => candidate.id === flagId);
      if (!flag?.active || flag.filters["aggregation_group_type_index"] != null) return [];

      const compiledDefinitions = compiledOf(project);
      const options = { now: deps.now(), keys: [flag.key] };
      const pageQuery = {
        projectId: project.projectId,
        limit: PERSON_BATCH_SIZE,
        staticCohortIds: staticCohortIds(project.definitions),
        hashKeys: flags.some((candidate) => candidate.active && hasExperienceContinuity(candidate)),
      };
      const matching: bigint[] = [];
      let afterId = 0n;
      for (;;) {
        const page = await readPersonSubjects(ctx.reader, { ...pageQuery, afterId });
        for (const person of page) {
          const subject = buildSubject(apiInput(person.distinctId, null), person.stored, project.definitions);
          const value = evaluateFlags(compiledDefinitions, subject, options).get(flag.key)?.value ?? false;
          if (value !== false) matching.push(person.id);
        }
        const last = page.at(-1);
        if (!last || page.length < PERSON_BATCH_SIZE) return matching;
        afterId = last.id;
      }
    },
  };
}

/** The flag evaluation service's operations. */
export type FlagEvaluationService = ReturnType<typeof createFlagEvaluationService>;

declare module "../../core/services.js" {
  interface Services {
    /** See `createFlagEvaluationService`. */
    flagEvaluation: FlagEvaluationService;
  }
}
