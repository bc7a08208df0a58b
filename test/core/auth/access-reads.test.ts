/**
 * Project access for projects the request has not read yet (src/core/auth/access.ts): they are read
 * from the database (an in-memory PGlite from the migrated template) and kept for the rest of the
 * request; an unknown id is PostHog's 404 whatever the key (posthog-behavior.md §1.1).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeProject, authorizeProjects } from "../../../src/core/auth/access.js";
import type { ProjectAccess, ServiceContext } from "../../../src/core/context.js";
import { PermissionDeniedError, ProjectNotFoundError } from "../../../src/core/errors.js";
import type { Database } from "../../../src/db/database.js";
import { bootstrap } from "../../../src/users/bootstrap.js";
import { openTestDatabase } from "../../support/server.js";
import { actor } from "./support.js";

let database: Database;
let drop: () => Promise<void>;
/** A project of the actor's organization, and one of another organization. */
let ours: number;
let theirs: number;
let organizationId: string;

beforeAll(async () => {
  ({ database, drop } = await openTestDatabase("pglite"));
  const mine = await bootstrap(database.prisma, {
    email: "ada@example.com",
    organizationName: "Acme",
    projectName: "Web",
  });
  const other = await bootstrap(database.prisma, {
    email: "bob@example.com",
    organizationName: "Other",
    projectName: "Theirs",
  });
  // A third project nobody asks for: a request reads only the projects it names.
  await bootstrap(database.prisma, {
    email: "eve@example.com",
    organizationName: "Third",
    projectName: "Else",
  });
  ours = mine.project_id;
  theirs = other.project_id;
  organizationId = (await database.prisma.project.findUniqueOrThrow({ where: { id: ours } })).organizationId;
});

afterAll(async () => {
  await database.close();
  await drop();
});

/** A request of a member of our organization that has read no project yet (`scopes` of its key). */
function context(scopes: string[] = ["*"]): ServiceContext {
  return {
    actor: actor({ organizationIds: [organizationId], key: { scopes } }),
    projects: new Map<number, ProjectAccess>(),
    db: database.prisma,
  } as Partial<ServiceContext> as ServiceContext;
}

const UNKNOWN = 999_999;

describe("authorizeProject on a project the request has not read", () => {
  it("reads it, answers it and keeps it for the request", async () => {
    const ctx = context();
    const project = await authorizeProject(ctx, ours, "feature_flag:read");
    expect(project).toMatchObject({ id: ours, organizationId, name: "Web" });
    expect(ctx.projects.get(ours)).toEqual(project);
  });

  it("answers an unknown id with the 404, even for a key without the scope, and keeps nothing", async () => {
    const ctx = context([]);
    await expect(authorizeProject(ctx, UNKNOWN, "feature_flag:read")).rejects.toThrow(ProjectNotFoundError);
    expect(ctx.projects.has(UNKNOWN)).toBe(false);
  });

  it("refuses another organization's project", async () => {
    await expect(authorizeProject(context(), theirs, "feature_flag:read")).rejects.toThrow(
      expect.objectContaining({ message: "You don't have access to the project." }),
    );
  });
});

describe("authorizeProjects on projects the request has not read", () => {
  it("answers each id in order: the project, the 404 or the refusal, and keeps only the ones it names", async () => {
    const ctx = context();
    const answers = await authorizeProjects(ctx, [ours, UNKNOWN, theirs, ours], "feature_flag:read");
    expect(answers[0]).toMatchObject({ id: ours });
    expect(answers[1]).toBeInstanceOf(ProjectNotFoundError);
    expect(answers[2]).toBeInstanceOf(PermissionDeniedError);
    expect(answers[3]).toBe(answers[0]);
    expect([...ctx.projects.keys()].sort()).toEqual([ours, theirs].sort());
  });
});
