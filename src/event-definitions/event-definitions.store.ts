/**
 * How event definitions are kept: every write of `event_definitions` and its tag links, and every
 * read a write decides from (a name's clash, the row locked for an update or a delete, the owner's
 * membership). The service says what happens (event-definitions.service.ts); this module says how it
 * is stored, with what event and property definitions keep alike in definitions-base.store.ts. Reads
 * that answer callers are the read model's (event-definitions.queries.ts).
 *
 * Invariant: every statement filters by `project_id` (the owner's membership, by the project's
 * organization); a write takes the transaction it belongs to (`tx`), never the client.
 */
import type { Prisma } from "../generated/prisma/client.js";
import {
  type DefinitionChange,
  type DefinitionRows,
  type DefinitionTable,
  definitionRows,
} from "./definitions-base.store.js";
import { type EventDefinitionRecord, selectEventDefinitions } from "./event-definitions.queries.js";
import type { VerificationState } from "./rules/verification.js";

/** The event-definition tables, for the shared writes. */
const EVENT_DEFINITIONS: DefinitionTable = {
  table: "event_definitions",
  tagLinks: "event_definition_tags",
  linkColumn: "event_definition_id",
};

/** A new event definition's fields, as decided (defaults applied, verification stamped, owner checked). */
export interface NewEventDefinition extends VerificationState {
  name: string;
  description: string;
  ownerId: number | null;
  defaultColumns: string[];
  /** When it was created through the API (`updated_at`; `created_at` stays null until captured). */
  updatedAt: Date;
  updatedById: number;
}

/** What an update writes over an event definition's row; an absent (undefined) field keeps its value. */
export interface EventDefinitionChange extends DefinitionChange {
  /** The owner's user id (checked), null for none. */
  ownerId?: number | null | undefined;
  defaultColumns?: string[] | undefined;
}

/**
 * Whether user `userId` is a member of organization `organizationId` (the project's): an event
 * definition's owner must be. One statement.
 */
export async function isOrganizationMember(
  db: Prisma.TransactionClient,
  organizationId: string,
  userId: number,
): Promise<boolean> {
  const member = await db.organizationMembership.findFirst({
    where: { organizationId, userId },
    select: { userId: true },
  });
  return member !== null;
}

/** Whether the project has an event definition named `name` (the table's unique key). One statement. */
export async function isEventNameTaken(
  db: Prisma.TransactionClient,
  projectId: number,
  name: string,
): Promise<boolean> {
  const holder = await db.eventDefinition.findFirst({ where: { projectId, name }, select: { id: true } });
  return holder !== null;
}

/**
 * The shared writes of `event_definitions` (definitions-base.store.ts): `lock` (the row locked and
 * read again, PostHog's `select_for_update`), `replaceTags`, `deleteRow` (its tag links and event
 * schemas go with it).
 */
export const eventDefinitionRows: DefinitionRows<EventDefinitionRecord> = definitionRows(
  EVENT_DEFINITIONS,
  selectEventDefinitions,
);

/**
 * Inserts an event definition of the project with `definition`'s fields and no `created_at` or
 * `last_seen_at` (capture sets them). Returns its id (UUID).
 * @throws Prisma's P2002 (`isUniqueViolation`) when the project has the name already.
 */
export async function insertEventDefinition(
  tx: Prisma.TransactionClient,
  projectId: number,
  definition: NewEventDefinition,
): Promise<string> {
  const created = await tx.eventDefinition.create({
    data: {
      projectId,
      name: definition.name,
      createdAt: null,
      lastSeenAt: null,
      description: definition.description,
      ownerId: definition.ownerId,
      verified: definition.verified,
      verifiedAt: definition.verifiedAt,
      verifiedById: definition.verifiedById,
      hidden: definition.hidden,
      updatedAt: definition.updatedAt,
      updatedById: definition.updatedById,
      defaultColumns: definition.defaultColumns,
    },
    select: { id: true },
  });
  return created.id;
}

/** Writes `change` over event definition `id`'s row, locked in `tx`. One statement. */
export async function writeEventDefinitionRow(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: string,
  change: EventDefinitionChange,
): Promise<void> {
  await tx.eventDefinition.update({
    where: { id, projectId },
    data: {
      description: change.description,
      ownerId: change.ownerId,
      verified: change.verified,
      verifiedAt: change.verifiedAt,
      verifiedById: change.verifiedById,
      hidden: change.hidden,
      defaultColumns: change.defaultColumns,
      updatedAt: change.updatedAt,
      updatedById: change.updatedById,
    },
  });
}
