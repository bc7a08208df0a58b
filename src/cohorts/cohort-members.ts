/**
 * The cohort operations on members (PostHog's `CohortViewSet` actions `persons`,
 * `add_persons_to_static_cohort`, `remove_person_from_static_cohort`, `duplicate_as_static_cohort`):
 * part of the cohort service (cohorts.service.ts spreads them in), kept apart so each file holds one
 * job. Every change of members runs in one transaction (`transactional`, core/transactional.ts:
 * the caller's, when one is open) with the recount and the activity entry;
 * how members are stored is cohorts.store.ts.
 */
import { recordActivity } from "../core/activity-log.js";
import { authorizeProject, authorizeProjectScopes } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import type { OffsetPage } from "../core/paging.js";
import { transactional } from "../core/transactional.js";
import { parseInput } from "../core/validation.js";
import type { Prisma } from "../generated/prisma/client.js";
import type { CohortCalculation } from "./cohort-calculation.js";
import {
  type CohortRecord,
  existingPersonUuids,
  type MemberRecord,
  readCohort,
  selectMemberPage,
} from "./cohorts.queries.js";
import { addPersonsSchema, removePersonSchema } from "./cohorts.schemas.js";
import {
  deleteMember,
  insertCohort,
  insertMembers,
  insertMembersFrom,
  lockCohort,
  personsById,
} from "./cohorts.store.js";

/** Person ids written per statement when a cohort is filled from a list (bound as one array). */
const INSERT_CHUNK = 10_000;

/** Creates the member operations over `calculation`. */
export function createCohortMemberOperations({ membersOf, recount }: CohortCalculation) {
  /**
   * Changes static cohort `id`'s members by `change` in one transaction with its recount and the
   * activity entry (`persons_added_manually`, `person_removed_manually`); returns the cohort as written.
   * The cohort's row is locked first (src/core/row-lock.ts), so concurrent changes take turns and
   * each recount sees the members every earlier change left.
   * @throws NotFoundError when the cohort is gone; ValidationError `notStatic` when it is no longer
   *   static; what `change` throws.
   */
  async function changeMembers(
    ctx: ServiceContext,
    projectId: number,
    id: number,
    notStatic: string,
    activity: string,
    change: (tx: Prisma.TransactionClient) => Promise<void>,
  ): Promise<CohortRecord> {
    return transactional(ctx, async (tx) => {
      const cohort = await lockCohort(tx, projectId, id);
      if (!cohort.isStatic) throw new ValidationError(notStatic);
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
      return readCohort(tx, projectId, cohort.id);
    });
  }

  /**
   * Creates a static cohort named `name`, filled by `fill` in the same transaction, then counted and
   * logged as `created`; returns it as written.
   */
  async function createStatic(
    ctx: ServiceContext,
    projectId: number,
    name: string,
    fill: (tx: Prisma.TransactionClient, cohortId: number) => Promise<unknown>,
  ): Promise<CohortRecord> {
    const userId = ctx.actor.user.id;
    return transactional(ctx, async (tx) => {
      const cohort = await insertCohort(
        tx,
        projectId,
        { name, isStatic: true, cohortType: "static" },
        userId,
      );
      await fill(tx, cohort.id);
      await recount(tx, projectId, cohort);
      await recordActivity(tx, {
        projectId,
        userId,
        scope: "Cohort",
        itemId: String(cohort.id),
        activity: "created",
        name: cohort.name,
        changes: [],
      });
      return readCohort(tx, projectId, cohort.id);
    });
  }

  return {
    /**
     * One page of a cohort's persons, by person id, and whether more follow: a static cohort's
     * members, or whoever a dynamic cohort's criteria select now (computed by SQL). Scopes
     * `cohort:read` and `person:read` (PostHog's `persons` action).
     * @throws NotFoundError; NotImplementedError when the criteria use behavioral criteria not calculated here.
     */
    async persons(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      page: OffsetPage,
    ): Promise<{ results: MemberRecord[]; hasMore: boolean }> {
      await authorizeProjectScopes(ctx, projectId, ["cohort:read", "person:read"]);
      const cohort = await readCohort(ctx.db, projectId, id);
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
      const cohort = await readCohort(ctx.db, projectId, id);
      // The body is read before the static check (PostHog reads it after): bad input is a 400 naming its field.
      const { person_ids } = parseInput(addPersonsSchema, body, ctx.limits);
      const notStatic = "Can only add users to static cohorts";
      if (!cohort.isStatic) throw new ValidationError(notStatic);
      const found = await existingPersonUuids(ctx.db, projectId, person_ids);
      if (found.length === 0) throw new ValidationError("No valid users to add to cohort");
      return changeMembers(ctx, projectId, id, notStatic, "persons_added_manually", async (tx) => {
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
      const cohort = await readCohort(ctx.db, projectId, id);
      const { person_id } = parseInput(removePersonSchema, body, ctx.limits);
      const notStatic = "Can only remove users from static cohorts";
      if (!cohort.isStatic) throw new ValidationError(notStatic);
      if ((await existingPersonUuids(ctx.db, projectId, [person_id])).length === 0) {
        throw new NotFoundError("Person with this UUID does not exist in the cohort's team");
      }
      return changeMembers(ctx, projectId, id, notStatic, "person_removed_manually", async (tx) => {
        if (!(await deleteMember(tx, projectId, id, person_id))) {
          throw new NotFoundError("Person is not part of the cohort");
        }
      });
    },

    /**
     * A static copy of a dynamic cohort (`duplicate_as_static_cohort`): named `<name> (static copy)`,
     * holding the persons the criteria select now, copied by one `INSERT ... SELECT`. Scope `cohort:write`.
     * @throws NotFoundError; ValidationError for a static cohort; NotImplementedError for behavioral criteria not calculated here.
     */
    async duplicateAsStatic(ctx: ServiceContext, projectId: number, id: number): Promise<CohortRecord> {
      await authorizeProject(ctx, projectId, "cohort:write");
      const source = await readCohort(ctx.db, projectId, id);
      if (source.isStatic) throw new ValidationError("Cannot duplicate a static cohort as a static cohort.");
      const members = await membersOf(ctx.db, projectId, source);
      return createStatic(ctx, projectId, `${source.name} (static copy)`, (tx, cohortId) =>
        insertMembersFrom(tx, cohortId, projectId, members),
      );
    },

    /**
     * A new static cohort named `name` holding the persons of `personIds` (internal ids; ids of
     * persons deleted meanwhile are skipped), written with its count and activity entry in one
     * transaction, so that it exists complete or not at all. For callers that chose the persons
     * and checked their own scopes (`create_static_cohort_for_flag`, in the flags domain); this
     * checks `cohort:write`. Returns the cohort as written.
     */
    async createStaticWithPersons(
      ctx: ServiceContext,
      projectId: number,
      name: string,
      personIds: readonly bigint[],
    ): Promise<CohortRecord> {
      await authorizeProject(ctx, projectId, "cohort:write");
      return createStatic(ctx, projectId, name, async (tx, cohortId) => {
        for (let start = 0; start < personIds.length; start += INSERT_CHUNK) {
          const chunk = personIds.slice(start, start + INSERT_CHUNK);
          await insertMembersFrom(tx, cohortId, projectId, personsById(projectId, chunk));
        }
      });
    },
  };
}
