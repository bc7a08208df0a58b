/**
 * The cohort service: every cohort operation of both front doors. It checks scopes and project
 * access, validates input by PostHog's rules, writes the change, the members, the count and the
 * activity entry in one transaction, and returns records. It knows nothing of HTTP or GraphQL.
 * Source of the rules: `posthog/api/cohort.py` (CohortSerializer, CohortViewSet); issue 7 §4.
 *
 * Membership: a static cohort's members are rows of `cohort_people`, added by person uuid or by a
 * CSV upload (distinct ids, emails or person uuids). A dynamic cohort's members are whoever its
 * criteria select now, computed by SQL from the shared translation (`src/lib/property-filters/`).
 *
 * `count` (what PostHog shows): a static cohort's member count, kept current by every change of its
 * members; a dynamic cohort's count at its last calculation (`last_calculation`), which every
 * create and update performs synchronously (PostHog enqueues one on each). `is_calculating` is
 * therefore always false. Behavioral criteria `performed_event` and `performed_event_multiple` are
 * calculated from events (`src/lib/property-filters/behavioral.ts`); cohorts using other behavioral criteria
 * are stored but not calculated: their `count` stays null and their members answer 501.
 *
 * The operations on members are in ./cohort-members.ts, and the member selection and recount they
 * share with create and update in ./cohort-calculation.ts. How cohorts are stored is
 * ./cohorts.store.ts; how they are read, ./cohorts.queries.ts.
 */
import { type ActivityPage, changesBetween, listActivity, recordActivity } from "../core/activity-log.js";
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { ConflictError, NotImplementedError, ValidationError } from "../core/errors.js";
import { forbidDestroy } from "../core/forbid-destroy.js";
import type { ActivityPaging, OffsetPage } from "../core/paging.js";
import { RowMoved, retryWhileMoved } from "../core/row-lock.js";
import type { ServiceDeps } from "../core/services.js";
import { clientOf, transactional } from "../core/transactional.js";
import { inIdOrder, isUuid, parseInput, parseIntegerId } from "../core/validation.js";
import type { Prisma } from "../generated/prisma/client.js";
import { loadCohortDefinitions, storedCriteria } from "../lib/property-filters/cohort-definitions.js";
import { type PropertyGroup, referencedCohortIds } from "../lib/property-filters/property-filters.js";
import { checkRegexPatterns } from "../lib/property-filters/regex-check.js";
import { type CheckedCriteria, createCohortCalculation } from "./cohort-calculation.js";
import { createCohortMemberOperations } from "./cohort-members.js";
import {
  activeFlagsUsingCohort,
  type CohortRecord,
  cohortListWhere,
  readCohort,
  selectCohortNames,
  selectCohortPage,
  selectCohorts,
  selectLiveCohortCriteria,
} from "./cohorts.queries.js";
import {
  type CohortInput,
  type CohortType,
  cohortInputSchema,
  cohortListFiltersSchema,
  criteriaSchema,
} from "./cohorts.schemas.js";
import { insertCohort, insertMembers, lockCohort, writeCohortRow } from "./cohorts.store.js";
import {
  checkBehavioralCriteria,
  checkCohortType,
  checkPersonOperators,
  cohortsUsingEvents,
  derivedCohortType,
} from "./rules/criteria.js";
import { type CsvMembers, csvMembers, csvText } from "./rules/csv-members.js";

/** A CSV file's content, as uploaded (REST's `csv` multipart file, GraphQL's `csv` text). */
export type CsvUpload = Buffer | string;

/** What the flag rules need to know about a cohort a flag names (posthog-behavior.md §2.5 rule 8). */
export interface FlagCohortSummary {
  name: string | null;
  isStatic: boolean;
  /** Whether it or any cohort it depends on has criteria on events. */
  usesEvents: boolean;
}

/** The fields the activity log compares (PostHog's `Cohort.to_dict` less members). */
function snapshot(cohort: CohortRecord): Record<string, unknown> {
  return {
    name: cohort.name,
    description: cohort.description,
    groups: cohort.groups,
    deleted: cohort.deleted,
    filters: cohort.filters,
    query: cohort.query,
    is_static: cohort.isStatic,
    cohort_type: cohort.cohortType,
  };
}

/** Creates the cohort service. */
export function createCohortService(deps: ServiceDeps) {
  const calculation = createCohortCalculation(deps);
  const { recount } = calculation;
  /**
   * PostHog's `validate_filters` for a dynamic cohort, the parameters of calculable behavioral
   * criteria, then what needs the database: the cohorts
   * named exist in the project (`Invalid Cohort ID in filter`), none leads back to `selfId`
   * (`will_create_loops`), and every regex compiles.
   * @throws ValidationError attr `filters` (paths below it for shape errors).
   */
  async function checkCriteria(
    ctx: ServiceContext,
    projectId: number,
    filters: unknown,
    selfId: number | null,
  ): Promise<CheckedCriteria> {
    if (filters === null || typeof filters !== "object" || !("properties" in filters)) {
      throw new ValidationError("Must contain a 'properties' key with type and values", { attr: "filters" });
    }
    const tree = parseInput(criteriaSchema, { filters }, ctx.limits).filters.properties;
    checkPersonOperators(tree);
    checkBehavioralCriteria(tree, deps.now());
    // In the caller's transaction when one is open (`createDynamicAuthorized`, core/transactional.ts).
    const db = clientOf(ctx);
    const reached = await loadCohortDefinitions(db, projectId, tree);
    if (referencedCohortIds(tree).some((id) => !reached.has(id))) {
      throw new ValidationError("Invalid Cohort ID in filter", { attr: "filters" });
    }
    if (selfId !== null && reached.has(selfId)) {
      throw new ValidationError("Cohorts cannot reference other cohorts in a loop.", { attr: "filters" });
    }
    await checkRegexPatterns(db, tree, "filters");
    return { tree, reached };
  }

  /** The criteria a dynamic cohort will have: checked new `filters`, else its legacy `groups`. */
  async function criteriaFor(
    ctx: ServiceContext,
    projectId: number,
    input: CohortInput,
    current: CohortRecord | null,
  ): Promise<CheckedCriteria | null> {
    if (input.filters !== undefined && input.filters !== null) {
      return checkCriteria(ctx, projectId, input.filters, current?.id ?? null);
    }
    const filters = input.filters === null ? null : current?.filters;
    const tree = storedCriteria(filters, input.groups ?? current?.groups ?? []);
    if (tree === null) return null;
    // New legacy criteria run as SQL too: their patterns must compile.
    const db = clientOf(ctx);
    if (input.groups !== undefined) await checkRegexPatterns(db, tree, "groups");
    return { tree, reached: await loadCohortDefinitions(db, projectId, tree) };
  }

  /** The persons a static cohort gains: `_create_static_person_ids` and a CSV's ids, checked before any write. */
  function staticAdditions(personIds: string[] | undefined, csv: string | undefined): CsvMembers[] {
    const additions: CsvMembers[] = [{ idType: "person_id", ids: personIds ?? [] }];
    if (csv !== undefined) additions.push(csvMembers(csv));
    // Person ids that are not uuids name no person (PostHog's `uuid__in` never matches them).
    return additions
      .map(({ idType, ids }) => ({ idType, ids: idType === "person_id" ? ids.filter(isUuid) : ids }))
      .filter(({ ids }) => ids.length > 0);
  }

  /**
   * PostHog's `validate_query`: an empty query is none; any other must be an `ActorsQuery` or a
   * `HogQLQuery`. @throws ValidationError attr `query`.
   */
  function checkedQuery(query: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
    if (!query || Object.keys(query).length === 0) return null;
    if (query["kind"] !== "ActorsQuery" && query["kind"] !== "HogQLQuery") {
      throw new ValidationError(
        `Query must be an ActorsQuery or HogQLQuery. Got: ${String(query["kind"] ?? "None")}`,
        {
          attr: "query",
        },
      );
    }
    return query;
  }

  /**
   * The `cohort_type` stored: as sent when it fits the cohort, else derived from it.
   * @throws ValidationError attr `cohort_type` when the one sent does not fit.
   */
  function cohortTypeFor(
    given: CohortType | null | undefined,
    isStatic: boolean,
    tree: PropertyGroup | null,
  ) {
    const derived = derivedCohortType(isStatic, tree);
    if (given) checkCohortType(given, derived);
    return given ?? derived;
  }

  /**
   * PostHog's `_validate_feature_flag_constraints`: a cohort used by an active flag may not gain
   * criteria on events, directly or through the cohorts it names.
   * @throws ValidationError code `behavioral_cohort_found`.
   */
  async function checkFlagUse(
    ctx: ServiceContext,
    projectId: number,
    cohortId: number,
    checked: CheckedCriteria,
  ) {
    const criteria = new Map<number, PropertyGroup | null>([[cohortId, checked.tree]]);
    for (const [id, definition] of checked.reached) criteria.set(id, definition.criteria);
    if (!cohortsUsingEvents(criteria).has(cohortId)) return;
    if ((await activeFlagsUsingCohort(clientOf(ctx), projectId, cohortId)).length === 0) return;
    throw new ValidationError("Behavioral filters cannot be added to cohorts used in feature flags.", {
      attr: "filters",
      code: "behavioral_cohort_found",
    });
  }

  /** Adds `additions` to a static cohort inside `tx`. */
  async function addAll(
    tx: Prisma.TransactionClient,
    projectId: number,
    cohortId: number,
    additions: CsvMembers[],
  ) {
    for (const { idType, ids } of additions) await insertMembers(tx, projectId, cohortId, idType, ids);
  }

  /** The project's cohorts (not deleted) that use events, directly or through the cohorts they name. */
  async function cohortIdsUsingEvents(db: Pick<Prisma.TransactionClient, "cohort">, projectId: number) {
    const rows = await selectLiveCohortCriteria(db, projectId);
    return cohortsUsingEvents(
      new Map(rows.map((row) => [row.id, row.isStatic ? null : storedCriteria(row.filters, row.groups)])),
    );
  }

  /**
   * What an update's decision reads of the stored cohort (static or not, deleted or not, its
   * criteria): when the locked row differs here from the first read, the update decides again.
   */
  function decisionBasis(cohort: CohortRecord): string {
    return JSON.stringify([cohort.isStatic, cohort.deleted, cohort.filters, cohort.groups]);
  }

  /**
   * One attempt of `update`: decides from a first read of the cohort (so PostHog's refusals come
   * before any write), then locks its row (core/row-lock.ts) in a `transactional` and writes,
   * logging the changes from the locked state. Its reads go through the open transaction, if any
   * (core/transactional.ts). @throws RowMoved when the locked cohort no longer matches the first read.
   */
  async function updateOnce(
    ctx: ServiceContext,
    projectId: number,
    id: number,
    input: CohortInput,
    text: string | undefined,
  ): Promise<CohortRecord> {
    const db = clientOf(ctx);
    const first = await readCohort(db, projectId, id);
    const isStatic = input.is_static ?? first.isStatic;
    const deleted = input.deleted ?? first.deleted;
    if (checkedQuery(input.query)) {
      throw new NotImplementedError(
        "Cohorts defined by a query are not supported yet: they need the query engine (issue 10).",
      );
    }
    if (deleted && !first.deleted) {
      const flags = await activeFlagsUsingCohort(db, projectId, id);
      if (flags.length > 0) {
        throw new ValidationError(
          `This cohort is used in ${flags.length} active feature flag(s): ${flags.join(", ")}. ` +
            "Please remove the cohort from these feature flags before deleting it.",
        );
      }
    }
    const checked = isStatic ? null : await criteriaFor(ctx, projectId, input, first);
    if (checked && input.filters) await checkFlagUse(ctx, projectId, id, checked);
    const cohortType = cohortTypeFor(
      input.cohort_type === undefined ? null : input.cohort_type,
      isStatic,
      checked?.tree ?? null,
    );
    const additions = isStatic && !deleted ? staticAdditions(undefined, text) : [];
    const userId = ctx.actor.user.id;
    return transactional(ctx, async (tx) => {
      // Concurrent updates take turns from here; each decided from what it replaces, or again.
      const current = await lockCohort(tx, projectId, id);
      if (decisionBasis(current) !== decisionBasis(first)) throw new RowMoved();
      const written = await writeCohortRow(tx, id, {
        name: input.name,
        description: input.description,
        groups: input.groups,
        filters: input.filters,
        isStatic,
        deleted,
        cohortType,
      });
      await addAll(tx, projectId, id, additions);
      if (!deleted) await recount(tx, projectId, written, checked);
      const updated = await readCohort(tx, projectId, id);
      await recordActivity(tx, {
        projectId,
        userId,
        scope: "Cohort",
        itemId: String(id),
        activity: "updated",
        name: updated.name,
        changes: changesBetween("Cohort", snapshot(current), snapshot(updated)),
      });
      return updated;
    });
  }

  return {
    ...createCohortMemberOperations(calculation),

    /**
     * One page of the project's non-deleted cohorts, newest first, with the total count. `query`
     * holds the list filters under PostHog's names (bad values are ignored). Scope `cohort:read`.
     * @throws NotFoundError, PermissionDeniedError.
     */
    async list(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, unknown>,
      page: OffsetPage,
    ): Promise<{ count: number; results: CohortRecord[] }> {
      const project = await authorizeProject(ctx, projectId, "cohort:read");
      const filters = parseInput(cohortListFiltersSchema, query, ctx.limits);
      const hidden = filters.hideBehavioral ? [...(await cohortIdsUsingEvents(ctx.db, project.id))] : [];
      return selectCohortPage(ctx.db, cohortListWhere(project.id, filters, hidden), page);
    },

    /** One cohort of the project, deleted ones included. Scope `cohort:read`. @throws NotFoundError */
    async get(ctx: ServiceContext, projectId: number, id: number): Promise<CohortRecord> {
      await authorizeProject(ctx, projectId, "cohort:read");
      return readCohort(ctx.db, projectId, id);
    },

    /** Cohorts of the project by id, in the order asked, null where none (dataloaders). Scope `cohort:read`. */
    async getMany(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly number[],
    ): Promise<(CohortRecord | null)[]> {
      await authorizeProject(ctx, projectId, "cohort:read");
      return inIdOrder(ids, await selectCohorts(ctx.db, projectId, ids));
    },

    /**
     * Creates a cohort: static (members from `_create_static_person_ids` and `csv`) or dynamic
     * (criteria in `filters`), calculated at once. Scope `cohort:write`.
     * @throws ValidationError for PostHog's rules (both `query` and `filters`; a dynamic cohort with a
     *   `query`; malformed criteria; unknown cohorts named; bad regex; CSV problems, attr `csv`).
     * @throws NotImplementedError for a static cohort defined by a `query` (needs the query engine).
     */
    async create(
      ctx: ServiceContext,
      projectId: number,
      body: unknown,
      csv?: CsvUpload,
    ): Promise<CohortRecord> {
      const project = await authorizeProject(ctx, projectId, "cohort:write");
      const input = parseInput(cohortInputSchema, body, ctx.limits);
      const text = csv === undefined ? undefined : csvText(csv);
      const isStatic = input.is_static ?? false;
      const query = checkedQuery(input.query);
      if (query && input.filters) {
        throw new ValidationError("Cannot set both query and filters at the same time.");
      }
      if (query && !isStatic) {
        throw new ValidationError("Cannot create a dynamic cohort with a query. Set is_static to true.");
      }
      if (query) {
        throw new NotImplementedError(
          "Static cohorts defined by a query are not supported yet: they need the query engine (issue 10).",
        );
      }
      const checked = isStatic ? null : await criteriaFor(ctx, project.id, input, null);
      const cohortType = cohortTypeFor(input.cohort_type, isStatic, checked?.tree ?? null);
      const additions = isStatic ? staticAdditions(input._create_static_person_ids, text) : [];
      const userId = ctx.actor.user.id;
      return transactional(ctx, async (tx) => {
        const created = await insertCohort(
          tx,
          project.id,
          {
            name: input.name ?? null,
            description: input.description ?? "",
            groups: input.groups ?? [],
            filters: input.filters ?? null,
            query: null,
            isStatic,
            cohortType,
            createInFolder: input._create_in_folder ?? null,
          },
          userId,
        );
        await addAll(tx, project.id, created.id, additions);
        await recount(tx, project.id, created, checked);
        await recordActivity(tx, {
          projectId: project.id,
          userId,
          scope: "Cohort",
          itemId: String(created.id),
          activity: "created",
          name: created.name,
          changes: [],
        });
        return readCohort(tx, project.id, created.id);
      });
    },

    /**
     * A new dynamic cohort named `name` with criteria `filters` (`{properties: <group>}`), checked by
     * the create rules, calculated, and logged `created`, for callers that checked their own scopes
     * (`create_exposure_cohort_for_experiment` needs `experiment:write` only: PostHog's action saves
     * a `CohortSerializer` without a cohort scope). Called inside the caller's `transactional`
     * (core/transactional.ts), its reads and writes join it, so the caller's own write (e.g. the
     * experiment's link to it) lands with the cohort or not at all. Returns the cohort as written.
     * @throws ValidationError for criteria the create rules refuse.
     */
    async createDynamicAuthorized(
      ctx: ServiceContext,
      projectId: number,
      name: string,
      filters: Record<string, unknown>,
    ): Promise<CohortRecord> {
      const checked = await checkCriteria(ctx, projectId, filters, null);
      const userId = ctx.actor.user.id;
      return transactional(ctx, async (tx) => {
        const created = await insertCohort(
          tx,
          projectId,
          { name, filters, isStatic: false, cohortType: derivedCohortType(false, checked.tree) },
          userId,
        );
        await recount(tx, projectId, created, checked);
        await recordActivity(tx, {
          projectId,
          userId,
          scope: "Cohort",
          itemId: String(created.id),
          activity: "created",
          name: created.name,
          changes: [],
        });
        return readCohort(tx, projectId, created.id);
      });
    },

    /**
     * Changes a cohort (`PATCH`, PostHog's `update`): absent fields keep their value; `deleted`
     * soft-deletes or restores it; a static cohort gains the members of `csv`; a dynamic one is
     * recalculated (even when nothing else changes, as PostHog enqueues a calculation). Scope `cohort:write`.
     * Concurrent updates take turns under the cohort's row lock, each logged against the state it
     * replaces (core/row-lock.ts).
     * @throws NotFoundError; ValidationError for the create rules, a loop of cohorts, criteria on
     *   events in a cohort used by active flags, or deleting a cohort active flags use; ConflictError
     *   (409) when what the decision read kept changing under it (8 times over).
     */
    async update(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
      csv?: CsvUpload,
    ): Promise<CohortRecord> {
      await authorizeProject(ctx, projectId, "cohort:write");
      const input = parseInput(cohortInputSchema, body, ctx.limits);
      const text = csv === undefined ? undefined : csvText(csv);
      // Only a change of what the decision read (static, deleted, criteria) between the read and the lock moves it.
      return retryWhileMoved(
        () => updateOnce(ctx, projectId, id, input, text),
        () =>
          new ConflictError(
            "The cohort was updated by another request since you started editing it. Please refresh and try again.",
          ),
      );
    },

    /** Hard delete, which PostHog refuses (core/forbid-destroy.ts). Scope `cohort:write` first. */
    destroy: forbidDestroy("cohort:write"),

    /**
     * Activity of one cohort (`cohortId`) or of all the project's cohorts (null), newest first.
     * Scope `activity_log:read`. @throws NotFoundError when the cohort is not in this project.
     */
    async activity(
      ctx: ServiceContext,
      projectId: number,
      cohortId: number | null,
      paging: ActivityPaging,
    ): Promise<ActivityPage> {
      const project = await authorizeProject(ctx, projectId, "activity_log:read");
      if (cohortId !== null) await readCohort(ctx.db, projectId, cohortId);
      return listActivity(ctx.db, {
        projectId: project.id,
        scope: "Cohort",
        ...(cohortId === null ? {} : { itemId: String(cohortId) }),
        ...paging,
      });
    },

    /**
     * What flag validation needs of the cohorts a flag names (§2.5 rule 8): for each id that is a
     * cohort of the project, its name, whether it is static, and whether it or a cohort it depends on
     * uses events. No scope check of its own: for services that authorized the project already.
     * Reads in the open transaction when there is one (a flag written inside another write's,
     * core/transactional.ts), else on the context's client.
     */
    async summariesForFlags(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly number[],
    ): Promise<Map<number, FlagCohortSummary>> {
      const db = clientOf(ctx);
      // Ids beyond a cohort id's range name no cohort (and could not be compared with one).
      const candidates = ids.filter((id) => parseIntegerId(id) !== null);
      if (candidates.length === 0) return new Map();
      const named = await selectCohortNames(db, projectId, candidates);
      const usingEvents = named.length > 0 ? await cohortIdsUsingEvents(db, projectId) : new Set<number>();
      return new Map(
        named.map((c) => [c.id, { name: c.name, isStatic: c.isStatic, usesEvents: usingEvents.has(c.id) }]),
      );
    },
  };
}

/** The cohort service's operations. */
export type CohortService = ReturnType<typeof createCohortService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createCohortService`. */
    cohorts: CohortService;
  }
}

declare module "../core/activity-log.js" {
  interface ActivityScopes {
    /** Cohorts' entries (`posthog/api/cohort.py` `log_activity(scope="Cohort")`). */
    Cohort: true;
  }
}

declare module "../core/row-lock.js" {
  interface LockableTables {
    /** Cohorts (`id` integer). */
    cohorts: number;
  }
}
