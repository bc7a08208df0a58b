/**
 * How schema property groups and event schemas are kept: every write of `schema_property_groups`,
 * their properties (`schema_property_group_properties`) and `event_schemas`, and every read a write
 * decides from (a group name's clash, the objects an event schema links and whether it exists, the
 * row locked for an update or a delete). The service says what happens (event-schemas.service.ts);
 * this module says how it is stored. Reads that answer callers are the read model's
 * (event-schemas.queries.ts).
 *
 * Invariant: every statement filters by `project_id`; a write takes the transaction it belongs to
 * (`tx`), never the client.
 */

import type { Prisma } from "../generated/prisma/client.js";
import { lockUuidRecord } from "./definitions-base.store.js";
import {
  type EventSchemaRecord,
  type SchemaPropertyGroupRecord,
  selectEventSchemas,
  selectSchemaPropertyGroups,
} from "./event-schemas.queries.js";
import type { SchemaPropertyInput } from "./event-schemas.schemas.js";

/** An object an event schema links, by its id and name (for the activity entry's `<event> → <group>`). */
export interface NamedRef {
  /** UUID. */
  id: string;
  name: string;
}

/** A new group's fields, as decided (defaults applied). */
export interface NewSchemaPropertyGroup {
  name: string;
  description: string;
  /** Its creator's user id. */
  createdById: number;
}

/** What an update writes over a group's row; an absent (undefined) field keeps its value. */
export interface SchemaPropertyGroupChange {
  name?: string | undefined;
  description?: string | undefined;
}

/** Whether the project has a schema property group named `name` (the table's unique key). One statement. */
export async function isGroupNameTaken(
  db: Prisma.TransactionClient,
  projectId: number,
  name: string,
): Promise<boolean> {
  const holder = await db.schemaPropertyGroup.findFirst({ where: { projectId, name }, select: { id: true } });
  return holder !== null;
}

/** Event definition `id` of the project by its id and name, or null when it has none. One statement. */
export function findEventDefinitionRef(
  db: Prisma.TransactionClient,
  projectId: number,
  id: string,
): Promise<NamedRef | null> {
  return db.eventDefinition.findFirst({ where: { projectId, id }, select: { id: true, name: true } });
}

/** Schema property group `id` of the project by its id and name, or null when it has none. One statement. */
export function findSchemaPropertyGroupRef(
  db: Prisma.TransactionClient,
  projectId: number,
  id: string,
): Promise<NamedRef | null> {
  return db.schemaPropertyGroup.findFirst({ where: { projectId, id }, select: { id: true, name: true } });
}

/** Whether group `propertyGroupId` is attached to event definition `eventDefinitionId` in the project. One statement. */
export async function isEventSchemaAttached(
  db: Prisma.TransactionClient,
  projectId: number,
  eventDefinitionId: string,
  propertyGroupId: string,
): Promise<boolean> {
  const existing = await db.eventSchema.findFirst({
    where: { projectId, eventDefinitionId, propertyGroupId },
    select: { id: true },
  });
  return existing !== null;
}

/**
 * Locks group `id`'s row in `tx` (core/row-lock.ts, PostHog's `select_for_update`) and reads it again,
 * its properties and events included: the state a write decides from; concurrent writers of one
 * group take turns. @throws NotFoundError when `id` names no group of the project (or a writer before
 * deleted it).
 */
export function lockSchemaPropertyGroup(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: string,
): Promise<SchemaPropertyGroupRecord> {
  return lockUuidRecord(tx, "schema_property_groups", projectId, id, selectSchemaPropertyGroups);
}

/**
 * Locks event schema `id`'s row in `tx` and reads it again, its group included.
 * @throws NotFoundError when `id` names no event schema of the project (or a writer before deleted it).
 */
export function lockEventSchema(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: string,
): Promise<EventSchemaRecord> {
  return lockUuidRecord(tx, "event_schemas", projectId, id, selectEventSchemas);
}

/**
 * Inserts a group of the project with `group`'s fields, created and updated at `now`, without
 * properties (`replaceGroupProperties`). Returns its id (UUID).
 * @throws Prisma's P2002 (`isUniqueViolation`) when the project has the name already.
 */
export async function insertSchemaPropertyGroup(
  tx: Prisma.TransactionClient,
  projectId: number,
  group: NewSchemaPropertyGroup,
  now: Date,
): Promise<string> {
  const created = await tx.schemaPropertyGroup.create({
    data: {
      projectId,
      name: group.name,
      description: group.description,
      createdById: group.createdById,
      createdAt: now,
      updatedAt: now,
    },
    select: { id: true },
  });
  return created.id;
}

/**
 * Writes `change` over group `id`'s row, locked in `tx`, updated at `now`. One statement.
 * @throws Prisma's P2002 (`isUniqueViolation`) when the project has the new name already.
 */
export async function writeSchemaPropertyGroupRow(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: string,
  change: SchemaPropertyGroupChange,
  now: Date,
): Promise<void> {
  await tx.schemaPropertyGroup.update({
    where: { id, projectId },
    data: { name: change.name, description: change.description, updatedAt: now },
  });
}

/**
 * Writes `properties` as group `groupId`'s whole property list, each created and updated at `now`
 * (PostHog's property ids are read-only, so every property is recreated), inside `tx`.
 */
export async function replaceGroupProperties(
  tx: Prisma.TransactionClient,
  projectId: number,
  groupId: string,
  properties: readonly SchemaPropertyInput[],
  now: Date,
): Promise<void> {
  await tx.schemaPropertyGroupProperty.deleteMany({ where: { projectId, propertyGroupId: groupId } });
  if (properties.length === 0) return;
  await tx.schemaPropertyGroupProperty.createMany({
    data: properties.map((p) => ({
      projectId,
      propertyGroupId: groupId,
      name: p.name,
      propertyType: p.property_type,
      isRequired: p.is_required,
      description: p.description,
      createdAt: now,
      updatedAt: now,
    })),
  });
}

/** Deletes group `id`'s row, locked in `tx`; its properties and event schemas go with it (cascade). */
export async function deleteSchemaPropertyGroupRow(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: string,
): Promise<void> {
  await tx.schemaPropertyGroup.delete({ where: { id, projectId } });
}

/**
 * Inserts the event schema attaching group `propertyGroupId` to event definition
 * `eventDefinitionId`, both of the project, created and updated at `now`. Returns its id (UUID).
 * @throws Prisma's P2002 (`isUniqueViolation`) when they are attached already.
 */
export async function insertEventSchema(
  tx: Prisma.TransactionClient,
  projectId: number,
  eventDefinitionId: string,
  propertyGroupId: string,
  now: Date,
): Promise<string> {
  const created = await tx.eventSchema.create({
    data: { projectId, eventDefinitionId, propertyGroupId, createdAt: now, updatedAt: now },
    select: { id: true },
  });
  return created.id;
}

/** Deletes event schema `id`'s row, locked in `tx` (the event and the group stay). */
export async function deleteEventSchemaRow(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: string,
): Promise<void> {
  await tx.eventSchema.delete({ where: { id, projectId } });
}
