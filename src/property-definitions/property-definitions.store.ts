/**
 * How property definitions are kept: every write of `property_definitions` and its tag links, and
 * the read a write decides from (the row locked for an update or a delete). Capture inserts the rows
 * (src/ingestion); the API only changes and deletes them. The service says what happens
 * (property-definitions.service.ts); this module says how it is stored, with what event and property
 * definitions keep alike in event-definitions/definitions-base.store.ts. Reads that answer callers
 * are the read model's (property-definitions.queries.ts).
 *
 * Invariant: every statement filters by `project_id`; a write takes the transaction it belongs to
 * (`tx`), never the client.
 */
import {
  type DefinitionChange,
  type DefinitionRows,
  type DefinitionTable,
  definitionRows,
} from "../event-definitions/definitions-base.store.js";
import type { Prisma } from "../generated/prisma/client.js";
import { type PropertyDefinitionRecord, selectPropertyDefinitions } from "./property-definitions.queries.js";
import type { PropertyType } from "./property-definitions.schemas.js";

/** The property-definition tables, for the shared writes. */
const PROPERTY_DEFINITIONS: DefinitionTable = {
  table: "property_definitions",
  tagLinks: "property_definition_tags",
  linkColumn: "property_definition_id",
};

/** What an update writes over a property definition's row; an absent (undefined) field keeps its value. */
export interface PropertyDefinitionChange extends DefinitionChange {
  /** The type of its values (null: unknown) with `is_numerical`, which follows it (rules/property-type.ts). */
  type?: { propertyType: PropertyType | null; isNumerical: boolean } | undefined;
}

/**
 * The shared writes of `property_definitions` (event-definitions/definitions-base.store.ts): `lock`
 * (the row locked and read again, PostHog's `select_for_update`), `replaceTags`, `deleteRow` (its tag
 * links go with it; the events it was seen on, `event_properties`, stay).
 */
export const propertyDefinitionRows: DefinitionRows<PropertyDefinitionRecord> = definitionRows(
  PROPERTY_DEFINITIONS,
  selectPropertyDefinitions,
);

/** Writes `change` over property definition `id`'s row, locked in `tx`. One statement. */
export async function writePropertyDefinitionRow(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: string,
  change: PropertyDefinitionChange,
): Promise<void> {
  await tx.propertyDefinition.update({
    where: { id, projectId },
    data: {
      description: change.description,
      ...(change.type === undefined
        ? {}
        : { propertyType: change.type.propertyType, isNumerical: change.type.isNumerical }),
      verified: change.verified,
      verifiedAt: change.verifiedAt,
      verifiedById: change.verifiedById,
      hidden: change.hidden,
      updatedAt: change.updatedAt,
      updatedById: change.updatedById,
    },
  });
}
