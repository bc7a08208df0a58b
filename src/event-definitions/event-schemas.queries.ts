/**
 * How schema property groups and event schemas are read: one statement per page or per batch of
 * records, a group's properties, its events and its creator built in the same statement; and the
 * shared reader the code generators use (`schemaPropertiesByEvent`).
 *
 * Invariant: every statement filters by `project_id`; values are bound parameters, never text.
 */
import type { OffsetPage } from "../core/paging.js";
import { type UserBasic, userBasicJson } from "../core/records.js";
import type { QueryClient } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";
import type { PropertyType } from "./event-schemas.schemas.js";

export type { PropertyType } from "./event-schemas.schemas.js";

/** One property of a schema property group, as both doors show it. */
export interface SchemaPropertyRecord {
  /** UUID (recreated by every write of the group's properties, as PostHog does). */
  id: string;
  name: string;
  propertyType: PropertyType;
  isRequired: boolean;
  description: string;
  createdAt: Date;
  updatedAt: Date;
}

/** An event definition a group is attached to (PostHog's `EventDefinitionBasicSerializer`). */
export interface SchemaEventRef {
  /** The event definition's UUID. */
  id: string;
  name: string;
}

/** A schema property group with its properties (by name), its events (by name, any case) and its creator. */
export interface SchemaPropertyGroupRecord {
  /** UUID. */
  id: string;
  projectId: number;
  name: string;
  description: string;
  createdAt: Date;
  updatedAt: Date;
  createdBy: UserBasic | null;
  properties: SchemaPropertyRecord[];
  events: SchemaEventRef[];
}

/** An event schema: the link of an event definition to a property group, with the group. */
export interface EventSchemaRecord {
  /** UUID. */
  id: string;
  projectId: number;
  eventDefinitionId: string;
  /** The event definition's name (for activity entries). */
  eventName: string;
  createdAt: Date;
  updatedAt: Date;
  propertyGroup: SchemaPropertyGroupRecord;
}

/** One property an event's schemas declare (posthog-behavior.md §6.4). */
export interface SchemaProperty {
  name: string;
  propertyType: PropertyType;
  isRequired: boolean;
}

/** The group columns as JSON (timestamps as text), for nesting in another row. */
const GROUP_JSON = Prisma.sql`json_build_object(
    'id', g.id, 'projectId', g.project_id, 'name', g.name, 'description', g.description,
    'createdAt', g.created_at, 'updatedAt', g.updated_at, 'createdBy', ${userBasicJson("u")},
    'properties', coalesce((SELECT json_agg(json_build_object(
        'id', p.id, 'name', p.name, 'propertyType', p.property_type, 'isRequired', p.is_required,
        'description', p.description, 'createdAt', p.created_at, 'updatedAt', p.updated_at)
      ORDER BY p.name) FROM schema_property_group_properties p WHERE p.property_group_id = g.id), '[]'),
    'events', coalesce((SELECT json_agg(json_build_object('id', e.id, 'name', e.name)
      ORDER BY lower(e.name), e.name)
      FROM event_schemas s JOIN event_definitions e ON e.id = s.event_definition_id
      WHERE s.property_group_id = g.id), '[]'))`;

const GROUP_FROM = Prisma.sql`FROM schema_property_groups g LEFT JOIN users u ON u.id = g.created_by_id`;

/** The JSON of a group as the database gives it (timestamps as text). */
type GroupJson = Omit<SchemaPropertyGroupRecord, "createdAt" | "updatedAt" | "properties"> & {
  createdAt: string;
  updatedAt: string;
  properties: Array<
    Omit<SchemaPropertyRecord, "createdAt" | "updatedAt"> & { createdAt: string; updatedAt: string }
  >;
};

function toGroup(json: GroupJson): SchemaPropertyGroupRecord {
  return {
    ...json,
    createdAt: new Date(json.createdAt),
    updatedAt: new Date(json.updatedAt),
    properties: json.properties.map((p) => ({
      ...p,
      createdAt: new Date(p.createdAt),
      updatedAt: new Date(p.updatedAt),
    })),
  };
}

/** One page of the project's groups by name, with the total. */
export async function selectSchemaPropertyGroupPage(
  db: QueryClient,
  projectId: number,
  page: OffsetPage,
): Promise<{ count: number; results: SchemaPropertyGroupRecord[] }> {
  const rows = await db.$queryRaw<Array<{ g: GroupJson; total: bigint }>>`
    SELECT ${GROUP_JSON} AS g, count(*) OVER () AS total ${GROUP_FROM}
    WHERE g.project_id = ${projectId} ORDER BY g.name, g.id LIMIT ${page.limit} OFFSET ${page.offset}`;
  if (rows.length > 0) return { count: Number(rows[0]!.total), results: rows.map((row) => toGroup(row.g)) };
  if (page.offset === 0) return { count: 0, results: [] };
  const [counted] = await db.$queryRaw<Array<{ count: bigint }>>`
    SELECT count(*) AS count FROM schema_property_groups WHERE project_id = ${projectId}`;
  return { count: Number(counted!.count), results: [] };
}

/** Groups of a project by id (UUIDs), in no particular order. */
export async function selectSchemaPropertyGroups(
  db: QueryClient,
  projectId: number,
  ids: readonly string[],
): Promise<SchemaPropertyGroupRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db.$queryRaw<Array<{ g: GroupJson }>>`SELECT ${GROUP_JSON} AS g ${GROUP_FROM}
    WHERE g.project_id = ${projectId} AND g.id = ANY(${[...ids]}::uuid[])`;
  return rows.map((row) => toGroup(row.g));
}

/**
 * The groups attached to each of the project's event definitions `eventDefinitionIds` (UUIDs), by
 * group name, in one statement: an entry per id asked, empty for none.
 */
export async function selectGroupsOfEventDefinitions(
  db: QueryClient,
  projectId: number,
  eventDefinitionIds: readonly string[],
): Promise<Map<string, SchemaPropertyGroupRecord[]>> {
  const byEvent = new Map<string, SchemaPropertyGroupRecord[]>(eventDefinitionIds.map((id) => [id, []]));
  if (eventDefinitionIds.length === 0) return byEvent;
  const rows = await db.$queryRaw<Array<{ eventDefinitionId: string; g: GroupJson }>>`
    SELECT es.event_definition_id::text AS "eventDefinitionId", ${GROUP_JSON} AS g
    FROM event_schemas es JOIN schema_property_groups g ON g.id = es.property_group_id
      LEFT JOIN users u ON u.id = g.created_by_id
    WHERE es.project_id = ${projectId} AND es.event_definition_id = ANY(${[...eventDefinitionIds]}::uuid[])
    ORDER BY g.name, g.id`;
  for (const row of rows) byEvent.get(row.eventDefinitionId)?.push(toGroup(row.g));
  return byEvent;
}

const EVENT_SCHEMA_COLUMNS = Prisma.sql`es.id::text AS id, es.project_id AS "projectId",
    es.event_definition_id::text AS "eventDefinitionId", ed.name AS "eventName",
    es.created_at AS "createdAt", es.updated_at AS "updatedAt", ${GROUP_JSON} AS "propertyGroup"`;

const EVENT_SCHEMA_FROM = Prisma.sql`FROM event_schemas es
    JOIN event_definitions ed ON ed.id = es.event_definition_id
    JOIN schema_property_groups g ON g.id = es.property_group_id
    LEFT JOIN users u ON u.id = g.created_by_id`;

type EventSchemaRow = Omit<EventSchemaRecord, "propertyGroup"> & { propertyGroup: GroupJson; total?: bigint };

function toEventSchema(row: EventSchemaRow): EventSchemaRecord {
  const { total: _total, ...record } = row;
  return { ...record, propertyGroup: toGroup(row.propertyGroup) };
}

/**
 * One page of the project's event schemas, newest first (PostHog's `-created_at`), of event
 * definition `eventDefinitionId` when given, with the total.
 */
export async function selectEventSchemaPage(
  db: QueryClient,
  projectId: number,
  eventDefinitionId: string | undefined,
  page: OffsetPage,
): Promise<{ count: number; results: EventSchemaRecord[] }> {
  const where =
    eventDefinitionId === undefined
      ? Prisma.sql`es.project_id = ${projectId}`
      : Prisma.sql`es.project_id = ${projectId} AND es.event_definition_id = ${eventDefinitionId}::uuid`;
  const rows = await db.$queryRaw<EventSchemaRow[]>`SELECT ${EVENT_SCHEMA_COLUMNS}, count(*) OVER () AS total
    ${EVENT_SCHEMA_FROM} WHERE ${where} ORDER BY es.created_at DESC, es.id DESC
    LIMIT ${page.limit} OFFSET ${page.offset}`;
  if (rows.length > 0) return { count: Number(rows[0]!.total), results: rows.map(toEventSchema) };
  if (page.offset === 0) return { count: 0, results: [] };
  const [counted] = await db.$queryRaw<Array<{ count: bigint }>>`
    SELECT count(*) AS count FROM event_schemas es WHERE ${where}`;
  return { count: Number(counted!.count), results: [] };
}

/** Event schemas of a project by id (UUIDs), in no particular order. */
export async function selectEventSchemas(
  db: QueryClient,
  projectId: number,
  ids: readonly string[],
): Promise<EventSchemaRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db.$queryRaw<EventSchemaRow[]>`SELECT ${EVENT_SCHEMA_COLUMNS} ${EVENT_SCHEMA_FROM}
    WHERE es.project_id = ${projectId} AND es.id = ANY(${[...ids]}::uuid[])`;
  return rows.map(toEventSchema);
}

/**
 * Per event name, the properties its schema property groups declare, for the code generators
 * (posthog-behavior.md §6.4), in one statement: PostHog's `fetch_event_definitions_and_schemas`
 * (`posthog/api/event_definition_generators/base.py`), which extends each event's list with every
 * group's properties. Every declaration is kept, duplicates across groups included: the schema hash
 * counts them as declared, and each generator merges them itself (typescript.py unites the types of a
 * name and makes it optional when any group does; codegen/model.ts `mergeProperties` here; GraphQL's
 * `EventDefinition.schemaProperties` shows the merge of rules/schema-properties.ts). Order: groups by
 * name, each group's properties by name. Only events with at least one declared property have an
 * entry, `$`-prefixed ones too (which events a file lists is the generators' rule).
 */
export async function schemaPropertiesByEvent(
  db: QueryClient,
  projectId: number,
): Promise<Map<string, SchemaProperty[]>> {
  const rows = await db.$queryRaw<
    Array<{ event: string; name: string; propertyType: PropertyType; isRequired: boolean }>
  >`
    SELECT ed.name AS event, p.name, p.property_type AS "propertyType", p.is_required AS "isRequired"
    FROM event_schemas es
      JOIN event_definitions ed ON ed.id = es.event_definition_id
      JOIN schema_property_groups g ON g.id = es.property_group_id
      JOIN schema_property_group_properties p ON p.property_group_id = g.id
    WHERE es.project_id = ${projectId}
    ORDER BY ed.name, g.name, g.id, p.name`;
  const byEvent = new Map<string, SchemaProperty[]>();
  for (const { event, name, propertyType, isRequired } of rows) {
    const list = byEvent.get(event);
    if (list) list.push({ name, propertyType, isRequired });
    else byEvent.set(event, [{ name, propertyType, isRequired }]);
  }
  return byEvent;
}
