/**
 * Persons as fixtures for tests of what READS persons (persons and groups lists, cohorts, targeting):
 * rows written straight into the data tables, as capture would leave them. Tests of capture itself
 * create persons by sending events through the capture paths instead.
 */
import type { PrismaClient } from "../../src/generated/prisma/client.js";

/** A person to insert: its distinct ids (at least one) and properties. */
export interface PersonFixture {
  distinctIds: string[];
  properties?: Record<string, unknown>;
  isIdentified?: boolean;
  createdAt?: Date;
}

/** An inserted person: its internal id and its public uuid. */
export interface InsertedPerson {
  id: bigint;
  uuid: string;
}

/** Inserts one person with its distinct ids into `projectId`, in one transaction. */
export async function insertPerson(
  db: PrismaClient,
  projectId: number,
  person: PersonFixture,
): Promise<InsertedPerson> {
  const row = await db.person.create({
    data: {
      projectId,
      properties: (person.properties ?? {}) as object,
      isIdentified: person.isIdentified ?? false,
      ...(person.createdAt ? { createdAt: person.createdAt } : {}),
      distinctIds: { create: person.distinctIds.map((distinctId) => ({ distinctId })) },
    },
    select: { id: true, uuid: true },
  });
  return row;
}

/** Inserts persons in order (so `created_at` and ids follow the list). */
export async function insertPersons(
  db: PrismaClient,
  projectId: number,
  persons: readonly PersonFixture[],
): Promise<InsertedPerson[]> {
  const inserted: InsertedPerson[] = [];
  for (const person of persons) inserted.push(await insertPerson(db, projectId, person));
  return inserted;
}
