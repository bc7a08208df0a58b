/**
 * The cohort service: every cohort operation of both front doors. It checks scopes and project
 * access, validates input by PostHog's rules, writes the change, the members, the count and the
 * activity entry in one transaction, and returns records. It knows nothing of HTTP or GraphQL.
 * Source of the rules: `posthog/api/cohort.py` (CohortSerializer, CohortViewSet); issue 7 §4.
 *
 * Membership: a static cohort's members are rows of `cohort_people`, added by person uuid or by a
 * CSV upload (distinct ids, emails or person uuids). A dynamic cohort's members are whoever its
 * criteria select now, computed by SQL from the shared translation (`src/properties/`).
 *
 * `count` (what PostHog shows): a static cohort's member count, kept current by every change of its
 * members; a dynamic cohort's count at its last calculation (`last_calculation`), which every
 * create and update performs synchronously (PostHog enqueues one on each). `is_calculating` is
 * therefore always false. Cohorts whose criteria use events (behavioral) are stored but cannot be
 * calculated here: their `count` stays null and their members answer 501.
 */
import { type ActivityPage, changesBetween, listActivity, recordActivity } from "../core/activity-log.js";
import { authorizeProject, authorizeProjectScopes } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import {
  MethodNotAllowedError,
  NotFoundError,
  NotImplementedError,
  ValidationError,
} from "../core/errors.js";
import type { ActivityPaging, OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { isUuid, parseInput, parseIntegerId } from "../core/validation.js";
import { Prisma } from "../generated/prisma/client.js";
import { loadCohortDefinitions, storedCriteria } from "../properties/cohort-definitions.js";
import { type PropertyGroup, referencedCohortIds } from "../properties/property-filters.js";
import { checkRegexPatterns } from "../properties/regex-check.js";
import { type CohortDefinition, toSql } from "../properties/to-sql.js";
import {
  activeFlagsUsingCohort,
  type CohortRecord,
  cohortListWhere,
  countMembers,
  type Db,
  deleteMember,
  existingPersonUuids,
  insertMembers,
  insertMembersFrom,
  type MemberRecord,
  memberSource,
  selectCohortPage,
  selectCohorts,
  selectMemberPage,
} from "./cohorts.queries.js";
import {
  addPersonsSchema,
  type CohortInput,
  type CohortType,
  cohortInputSchema,
  cohortListFiltersSchema,
  criteriaSchema,
  removePersonSchema,
} from "./cohorts.schemas.js";
import {
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

/** A dynamic cohort's criteria, checked, with every cohort they reach. */
interface CheckedCriteria {
  tree: PropertyGroup;
  reached: Map<number, CohortDefinition>;
}

/** Creates the cohort service. */
export function createCohortService(deps: ServiceDeps) {
  /** One cohort of the project, deleted ones included. @throws NotFoundError */
  async function readOne(db: Db, projectId: number, id: number): Promise<CohortRecord> {
    const [cohort] = await selectCohorts(db, projectId, [id]);
    if (!cohort) throw new NotFoundError();
    return cohort;
  }

  /**
   * PostHog's `validate_filters` for a dynamic cohort, then what needs the database: the cohorts
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
    const reached = await loadCohortDefinitions(ctx.db, projectId, tree);
    if (referencedCohortIds(tree).some((id) => !reached.has(id))) {
      throw new ValidationError("Invalid Cohort ID in filter", { attr: "filters" });
    }
    if (selfId !== null && reached.has(selfId)) {
      throw new ValidationError("Cohorts cannot reference other cohorts in a loop.", { attr: "filters" });
    }
    await checkRegexPatterns(ctx.db, tree, "filters");
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
    if (input.groups !== undefined) await checkRegexPatterns(ctx.db, tree, "groups");
    return { tree, reached: await loadCohortDefinitions(ctx.db, projectId, tree) };
  }

  /**
   * The SQL that selects a cohort's members (see `memberSource`).
   * @throws NotImplementedError when its criteria, or a cohort they name, use events.
   */
  async function membersOf(
    db: Db & Pick<Prisma.TransactionClient, "cohort">,
    projectId: number,
    cohort: { id: number; isStatic: boolean; filters: unknown; groups: unknown },
    checked?: CheckedCriteria | null,
  ): Promise<Prisma.Sql> {
    if (cohort.isStatic) return memberSource(projectId, cohort, Prisma.empty);
    const tree = checked ? checked.tree : storedCriteria(cohort.filters, cohort.groups);
    if (tree === null) return memberSource(projectId, cohort, Prisma.sql`TRUE`);
    const reached = checked?.reached ?? (await loadCohortDefinitions(db, projectId, tree));
    const where = toSql(tree, { projectId, now: deps.now(), targets: { person: "p" }, cohorts: reached });
    return memberSource(projectId, cohort, where);
  }

  /**
   * Recalculates a cohort's `count` inside `tx` (static: its rows; dynamic: its criteria now) and
   * stamps `last_calculation`. A dynamic cohort that uses events gets a null count.
   */
  async function recount(
    tx: Prisma.TransactionClient,
    projectId: number,
    cohort: { id: number; isStatic: boolean; filters: unknown; groups: unknown; version: number | null },
    checked?: CheckedCriteria | null,
  ): Promise<void> {
    let count: number | null;
    try {
      count = await countMembers(tx, await membersOf(tx, projectId, cohort, checked));
    } catch (error) {
      if (!(error instanceof NotImplementedError)) throw error;
      count = null;
    }
    await tx.cohort.update({
      where: { id: cohort.id },
      data: {
        count,
        lastCalculation: deps.now(),
        isCalculating: false,
        version: (cohort.version ?? 0) + 1,
      },
    });
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
    if ((await activeFlagsUsingCohort(ctx.db, projectId, cohortId)).length === 0) return;
    throw new ValidationError("Behavioral filters cannot be added to cohorts used in feature flags.", {
      attr: "filters",
      code: "behavioral_cohort_found",
    });
  }

  /**
   * Changes a static cohort's members by `change` in one transaction with its recount and the
   * activity entry (`persons_added_manually`, `person_removed_manually`); returns the cohort as written.
   */
  async function changeMembers(
    ctx: ServiceContext,
    projectId: number,
    cohort: CohortRecord,
    activity: string,
    change: (tx: Prisma.TransactionClient) => Promise<void>,
  ): Promise<CohortRecord> {
    return ctx.db.$transaction(async (tx) => {
      await change(tx);
      await recount(tx, projectId, cohort);
      await recordActivity(tx, {
        projectId,
        userId: ctx.actor.user.id,
        scope: "Cohort",
        itemId: String(cohort.id),
        activity,
        name: cohort.name,
        changes: null,
      });
      return readOne(tx, projectId, cohort.id);
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
    const rows = await db.cohort.findMany({
      where: { projectId, deleted: false },
      select: { id: true, isStatic: true, filters: true, groups: true },
    });
    return cohortsUsingEvents(
      new Map(rows.map((row) => [row.id, row.isStatic ? null : storedCriteria(row.filters, row.groups)])),
    );
  }

  return {
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
      return readOne(ctx.db, projectId, id);
    },

    /** Cohorts of the project by id, in the order asked, null where none (dataloaders). Scope `cohort:read`. */
    async getMany(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly number[],
    ): Promise<(CohortRecord | null)[]> {
      await authorizeProject(ctx, projectId, "cohort:read");
      const byId = new Map((await selectCohorts(ctx.db, projectId, ids)).map((c) => [c.id, c]));
      return ids.map((id) => byId.get(id) ?? null);
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
      return ctx.db.$transaction(async (tx) => {
        const created = await tx.cohort.create({
          data: {
            projectId: project.id,
            name: input.name ?? null,
            description: input.description ?? "",
            groups: (input.groups ?? []) as Prisma.InputJsonValue,
            filters: (input.filters ?? Prisma.DbNull) as Prisma.InputJsonValue,
            query: Prisma.DbNull,
            isStatic,
            cohortType,
            createInFolder: input._create_in_folder ?? null,
            createdById: userId,
          },
        });
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
        return readOne(tx, project.id, created.id);
      });
    },

    /**
     * Changes a cohort (`PATCH`, PostHog's `update`): absent fields keep their value; `deleted`
     * soft-deletes or restores it; a static cohort gains the members of `csv`; a dynamic one is
     * recalculated (even when nothing else changes, as PostHog enqueues a calculation). Scope `cohort:write`.
     * @throws NotFoundError; ValidationError for the create rules, a loop of cohorts, criteria on
     *   events in a cohort used by active flags, or deleting a cohort active flags use.
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
      const current = await readOne(ctx.db, projectId, id);
      const isStatic = input.is_static ?? current.isStatic;
      const deleted = input.deleted ?? current.deleted;
      if (checkedQuery(input.query)) {
        throw new NotImplementedError(
          "Cohorts defined by a query are not supported yet: they need the query engine (issue 10).",
        );
      }
      if (deleted && !current.deleted) {
        const flags = await activeFlagsUsingCohort(ctx.db, projectId, id);
        if (flags.length > 0) {
          throw new ValidationError(
            `This cohort is used in ${flags.length} active feature flag(s): ${flags.join(", ")}. ` +
              "Please remove the cohort from these feature flags before deleting it.",
          );
        }
      }
      const checked = isStatic ? null : await criteriaFor(ctx, projectId, input, current);
      if (checked && input.filters) await checkFlagUse(ctx, projectId, id, checked);
      const cohortType = cohortTypeFor(
        input.cohort_type === undefined ? null : input.cohort_type,
        isStatic,
        checked?.tree ?? null,
      );
      const additions = isStatic && !deleted ? staticAdditions(undefined, text) : [];
      const userId = ctx.actor.user.id;
      return ctx.db.$transaction(async (tx) => {
        const written = await tx.cohort.update({
          where: { id },
          data: {
            name: input.name === undefined ? undefined : input.name,
            description: input.description,
            groups: input.groups as Prisma.InputJsonValue | undefined,
            filters:
              input.filters === undefined
                ? undefined
                : ((input.filters ?? Prisma.DbNull) as Prisma.InputJsonValue),
            isStatic,
            deleted,
            cohortType,
          },
        });
        await addAll(tx, projectId, id, additions);
        if (!deleted) await recount(tx, projectId, written, checked);
        const updated = await readOne(tx, projectId, id);
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
    },

    /**
     * Hard delete, which PostHog refuses (`ForbidDestroyModel`): soft delete is `update` with
     * `deleted: true`. @throws MethodNotAllowedError (after the project and scope checks).
     */
    async destroy(ctx: ServiceContext, projectId: number): Promise<never> {
      await authorizeProject(ctx, projectId, "cohort:write");
      throw new MethodNotAllowedError("DELETE");
    },

    /**
     * One page of a cohort's persons, by person id, and whether more follow: a static cohort's
     * members, or whoever a dynamic cohort's criteria select now (computed by SQL). Scopes
     * `cohort:read` and `person:read` (PostHog's `persons` action).
     * @throws NotFoundError; NotImplementedError when the criteria use events.
     */
    async persons(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      page: OffsetPage,
    ): Promise<{ results: MemberRecord[]; hasMore: boolean }> {
      await authorizeProjectScopes(ctx, projectId, ["cohort:read", "person:read"]);
      const cohort = await readOne(ctx.db, projectId, id);
      return selectMemberPage(ctx.db, await membersOf(ctx.db, projectId, cohort), page);
    },

    /**
     * Adds persons by uuid to a static cohort (`add_persons_to_static_cohort`), updating its count.
     * Scope `cohort:write`. Returns the cohort as written.
     * @throws NotFoundError; ValidationError with PostHog's messages (not static, empty or too long
     *   a list, no uuid naming a person of the project).
     */
    async addPersons(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
    ): Promise<CohortRecord> {
      await authorizeProject(ctx, projectId, "cohort:write");
      const cohort = await readOne(ctx.db, projectId, id);
      // The body is read before the static check (PostHog reads it after): bad input is a 400 naming its field.
      const { person_ids } = parseInput(addPersonsSchema, body, ctx.limits);
      if (!cohort.isStatic) throw new ValidationError("Can only add users to static cohorts");
      const found = await existingPersonUuids(ctx.db, projectId, person_ids);
      if (found.length === 0) throw new ValidationError("No valid users to add to cohort");
      return changeMembers(ctx, projectId, cohort, "persons_added_manually", async (tx) => {
        await insertMembers(tx, projectId, id, "person_id", found);
      });
    },

    /**
     * Removes one person (by uuid) from a static cohort (`remove_person_from_static_cohort`).
     * Scope `cohort:write`. Returns the cohort as written.
     * @throws NotFoundError (cohort; `Person with this UUID does not exist in the cohort's team`;
     *   `Person is not part of the cohort`); ValidationError (not static, bad uuid).
     */
    async removePerson(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
    ): Promise<CohortRecord> {
      await authorizeProject(ctx, projectId, "cohort:write");
      const cohort = await readOne(ctx.db, projectId, id);
      const { person_id } = parseInput(removePersonSchema, body, ctx.limits);
      if (!cohort.isStatic) throw new ValidationError("Can only remove users from static cohorts");
      if ((await existingPersonUuids(ctx.db, projectId, [person_id])).length === 0) {
        throw new NotFoundError("Person with this UUID does not exist in the cohort's team");
      }
      return changeMembers(ctx, projectId, cohort, "person_removed_manually", async (tx) => {
        if (!(await deleteMember(tx, projectId, id, person_id))) {
          throw new NotFoundError("Person is not part of the cohort");
        }
      });
    },

    /**
     * A static copy of a dynamic cohort (`duplicate_as_static_cohort`): named `<name> (static copy)`,
     * holding the persons the criteria select now, copied by one `INSERT ... SELECT`. Scope `cohort:write`.
     * @throws NotFoundError; ValidationError for a static cohort; NotImplementedError for criteria on events.
     */
    async duplicateAsStatic(ctx: ServiceContext, projectId: number, id: number): Promise<CohortRecord> {
      await authorizeProject(ctx, projectId, "cohort:write");
      const source = await readOne(ctx.db, projectId, id);
      if (source.isStatic) throw new ValidationError("Cannot duplicate a static cohort as a static cohort.");
      const members = await membersOf(ctx.db, projectId, source);
      const userId = ctx.actor.user.id;
      return ctx.db.$transaction(async (tx) => {
        const copy = await tx.cohort.create({
          data: {
            projectId,
            name: `${source.name} (static copy)`,
            isStatic: true,
            cohortType: "static",
            createdById: userId,
          },
        });
        await insertMembersFrom(tx, copy.id, projectId, members);
        await recount(tx, projectId, copy);
        await recordActivity(tx, {
          projectId,
          userId,
          scope: "Cohort",
          itemId: String(copy.id),
          activity: "created",
          name: copy.name,
          changes: [],
        });
        return readOne(tx, projectId, copy.id);
      });
    },

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
      if (cohortId !== null) await readOne(ctx.db, projectId, cohortId);
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
     */
    async summariesForFlags(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly number[],
    ): Promise<Map<number, FlagCohortSummary>> {
      // Ids beyond a cohort id's range name no cohort (and could not be compared with one).
      const candidates = ids.filter((id) => parseIntegerId(id) !== null);
      if (candidates.length === 0) return new Map();
      const named = await ctx.db.cohort.findMany({
        where: { projectId, id: { in: candidates } },
        select: { id: true, name: true, isStatic: true },
      });
      const usingEvents =
        named.length > 0 ? await cohortIdsUsingEvents(ctx.db, projectId) : new Set<number>();
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
