/**
 * How projects and organizations are read: the read model of the projects service's answers (a
 * project's configuration revision, a page of projects, one organization with its projects, a batch
 * of organizations), and of one project's row for a system job acting in it. One statement per
 * record, batch or revision; a page is two statements run together (its rows and its total). Which
 * projects a key reaches is the service's `where` (projects.service.ts), given here as is.
 *
 * Invariant: every statement is narrowed by the caller's `where`, by ids the service has already
 * checked the actor may read, or (`readProject`) by the project id of the row a system job runs
 * for; values are bound parameters, never text.
 */
import type { SqlReader } from "../db/sql-reader.js";
import { type Organization, Prisma, type PrismaClient, type Project } from "../generated/prisma/client.js";

/** A database client or an interactive transaction's client. */
export type Db = Prisma.TransactionClient | PrismaClient;

/** An organization with the projects of the `where` asked, and the actor's memberships (their levels). */
export type OrganizationWithProjects = Organization & {
  projects: Project[];
  memberships: Array<{ level: number }>;
};

/** Project `projectId`'s configuration revision now, or null when no project has this id. One statement. */
export async function selectProjectRevision(reader: SqlReader, projectId: number): Promise<bigint | null> {
  const rows = await reader.rows<{ revision: string }>(
    Prisma.sql`SELECT revision::text AS revision FROM projects WHERE id = ${projectId}`,
  );
  return rows[0] ? BigInt(rows[0].revision) : null;
}

/**
 * One page of the projects matching `where`, oldest first (by id), with the number of all of them:
 * two statements, run concurrently.
 */
export async function selectProjectPage(
  db: Db,
  where: Prisma.ProjectWhereInput,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: Project[] }> {
  const [count, results] = await Promise.all([
    db.project.count({ where }),
    db.project.findMany({ where, orderBy: { id: "asc" }, skip: page.offset, take: page.limit }),
  ]);
  return { count, results };
}

/**
 * Organization `organizationId` with its projects matching `projects` (by id ascending) and user
 * `userId`'s memberships of it (their levels), or null. One statement.
 */
export function findOrganization(
  db: Db,
  organizationId: string,
  projects: Prisma.ProjectWhereInput,
  userId: number,
): Promise<OrganizationWithProjects | null> {
  return db.organization.findUnique({
    where: { id: organizationId },
    include: {
      projects: { where: projects, orderBy: { id: "asc" } },
      memberships: { where: { userId }, select: { level: true } },
    },
  });
}

/** The organizations among `ids` (their own rows), in no particular order. One statement. */
export function selectOrganizations(db: Db, ids: string[]): Promise<Organization[]> {
  return db.organization.findMany({ where: { id: { in: ids } } });
}

/**
 * Project `projectId`'s own row, as the service context holds a project (`ProjectAccess`): what a
 * system job acting in one project (an endpoint's materialization refresh) reads it as. One statement.
 * @throws Prisma's P2025 when no project has this id.
 */
export function readProject(db: Db, projectId: number): Promise<Project> {
  return db.project.findUniqueOrThrow({ where: { id: projectId } });
}
