/**
 * How a cohort's members are found and counted, shared by the cohort service's operations: the SQL
 * that selects a cohort's members (a static cohort's rows of `cohort_people`; a dynamic cohort's
 * criteria translated by `src/lib/property-filters/to-sql.ts`) and the recount that every change of a cohort or
 * of its members performs in its transaction.
 */
import { NotImplementedError } from "../core/errors.js";
import type { ServiceDeps } from "../core/services.js";
import { Prisma } from "../generated/prisma/client.js";
import { loadCohortDefinitions, storedCriteria } from "../lib/property-filters/cohort-definitions.js";
import type { PropertyGroup } from "../lib/property-filters/property-filters.js";
import { type CohortDefinition, toSql } from "../lib/property-filters/to-sql.js";
import { countMembers, type Db, memberSource } from "./cohorts.queries.js";
import { writeCalculation } from "./cohorts.store.js";

/** A dynamic cohort's criteria, checked, with every cohort they reach. */
export interface CheckedCriteria {
  tree: PropertyGroup;
  reached: Map<number, CohortDefinition>;
}

/** Creates the member selection and recount of cohorts (`deps.now` dates relative criteria). */
export function createCohortCalculation(deps: ServiceDeps) {
  /**
   * The SQL that selects a cohort's members (see `memberSource`).
   * @throws NotImplementedError when its criteria, or a cohort they name, use behavioral criteria
   *   not calculated here (`src/lib/property-filters/behavioral.ts`).
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
   * stamps `last_calculation`. A dynamic cohort using behavioral criteria not calculated here gets a
   * null count.
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
    await writeCalculation(tx, cohort.id, { count, at: deps.now(), version: (cohort.version ?? 0) + 1 });
  }

  return { membersOf, recount };
}

/** See `createCohortCalculation`. */
export type CohortCalculation = ReturnType<typeof createCohortCalculation>;
