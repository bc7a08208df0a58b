/**
 * Group types, groups and events as fixtures for tests of what reads them (persons' events, groups
 * lists), written straight into the tables as capture would leave them. Tests of capture itself
 * send events through the capture paths instead.
 */
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../../src/generated/prisma/client.js";

/** Inserts group type `groupType` at `groupTypeIndex` in `projectId`, unless that slot is taken. */
export async function insertGroupType(
  db: PrismaClient,
  projectId: number,
  groupTypeIndex: number,
  groupType: string,
): Promise<void> {
  await db.groupTypeMapping.createMany({
    data: [{ projectId, groupTypeIndex, groupType }],
    skipDuplicates: true,
  });
}

/** A group to insert. */
export interface GroupFixture {
  groupTypeIndex: number;
  groupKey: string;
  properties?: Record<string, unknown>;
  createdAt?: Date;
}

/** Inserts groups into `projectId` in one statement (a group already there is left as it is). */
export async function insertGroups(
  db: PrismaClient,
  projectId: number,
  groups: readonly GroupFixture[],
): Promise<void> {
  await db.group.createMany({
    data: groups.map((group) => ({
      projectId,
      groupTypeIndex: group.groupTypeIndex,
      groupKey: group.groupKey,
      groupProperties: (group.properties ?? {}) as object,
      ...(group.createdAt ? { createdAt: group.createdAt } : {}),
    })),
    skipDuplicates: true,
  });
}

/** An event to insert. */
export interface EventFixture {
  event: string;
  distinctId: string;
  personId?: string;
  timestamp: Date;
  properties?: Record<string, unknown>;
}

/** Inserts events into `projectId` in one statement; returns their uuids in order. */
export async function insertEvents(
  db: PrismaClient,
  projectId: number,
  events: readonly EventFixture[],
): Promise<string[]> {
  const rows = events.map((event) => ({
    projectId,
    uuid: randomUUID(),
    event: event.event,
    distinctId: event.distinctId,
    personId: event.personId ?? null,
    properties: (event.properties ?? {}) as object,
    timestamp: event.timestamp,
  }));
  await db.event.createMany({ data: rows });
  return rows.map((row) => row.uuid);
}
