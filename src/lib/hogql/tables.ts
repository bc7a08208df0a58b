/**
 * The HogQL tables a query may read, as views over our PostgreSQL tables (PostHog's
 * `posthog/hogql/database/schema/events.py`, `persons.py`, `person_distinct_ids.py`;
 * query-and-experiments.md 1b). Each view is printed as a subquery that already holds the project
 * guard (`project_id = <project>`, a bound parameter), so that every table reference, in any join,
 * subquery or CTE, reads the project's rows only, whatever the join type around it.
 *
 * Each view's columns carry HogQL's names, so a field prints as `<alias>."<name>"`.
 */
import { Prisma } from "../../generated/prisma/client.js";
import type { HogQLType } from "./types.js";

/** A column of a HogQL table. */
export interface TableColumn {
  type: HogQLType;
  nullable: boolean;
  /** Left out of `SELECT *` (PostHog's hidden and virtual fields). */
  hidden?: boolean;
}

/** A HogQL table: its columns (in `SELECT *` order) and its guarded source. */
export interface HogQLTable {
  name: string;
  columns: ReadonlyMap<string, TableColumn>;
  /** The guarded subquery (without alias) reading the project's rows. */
  source(projectId: number): Prisma.Sql;
  /** True when `person.*` fields reach the current person through the distinct id (events). */
  hasPersonJoin?: boolean;
}

const EVENTS: HogQLTable = {
  name: "events",
  columns: new Map<string, TableColumn>([
    ["uuid", { type: "UUID", nullable: false }],
    ["event", { type: "String", nullable: false }],
    ["properties", { type: "JSON", nullable: false }],
    ["timestamp", { type: "DateTime", nullable: false }],
    ["distinct_id", { type: "String", nullable: false }],
    ["elements_chain", { type: "String", nullable: false }],
    ["created_at", { type: "DateTime", nullable: false }],
    ["person_id", { type: "UUID", nullable: true }],
    ["$session_id", { type: "String", nullable: false, hidden: true }],
  ]),
  source: (projectId) => Prisma.sql`(SELECT uuid, event, properties, timestamp, distinct_id, elements_chain,
    created_at, person_id, COALESCE(properties ->> '$session_id', '') AS "$session_id"
    FROM events WHERE project_id = ${projectId}::int)`,
  hasPersonJoin: true,
};

const PERSONS: HogQLTable = {
  name: "persons",
  columns: new Map<string, TableColumn>([
    ["id", { type: "UUID", nullable: false }],
    ["created_at", { type: "DateTime", nullable: false }],
    ["properties", { type: "JSON", nullable: false }],
    ["is_identified", { type: "Bool", nullable: false }],
  ]),
  source: (projectId) => Prisma.sql`(SELECT uuid AS id, created_at, properties, is_identified
    FROM persons WHERE project_id = ${projectId}::int)`,
};

const PERSON_DISTINCT_IDS: HogQLTable = {
  name: "person_distinct_ids",
  columns: new Map<string, TableColumn>([
    ["distinct_id", { type: "String", nullable: false }],
    ["person_id", { type: "UUID", nullable: false }],
  ]),
  source: (projectId) => Prisma.sql`(SELECT d.distinct_id, p.uuid AS person_id
    FROM person_distinct_ids d JOIN persons p ON p.project_id = d.project_id AND p.id = d.person_id
    WHERE d.project_id = ${projectId}::int AND p.project_id = ${projectId}::int)`,
};

/** The tables by HogQL name. */
export const HOGQL_TABLES: ReadonlyMap<string, HogQLTable> = new Map(
  [EVENTS, PERSONS, PERSON_DISTINCT_IDS].map((table) => [table.name, table]),
);

/** The fields of `events.person` (the current person of the event's distinct id). */
export const PERSON_FIELDS: ReadonlyMap<string, TableColumn> = PERSONS.columns;

/**
 * The guarded source of the lazy `person` join of an events row: the current person of each of the
 * project's distinct ids, with the person's uuid as `id` and its internal id as `pk` (what
 * cohort membership in `{filters}` reads).
 */
export function personJoinSource(projectId: number): Prisma.Sql {
  return Prisma.sql`(SELECT d.distinct_id, p.uuid AS id, p.id AS pk, p.created_at, p.properties, p.is_identified
    FROM person_distinct_ids d JOIN persons p ON p.project_id = d.project_id AND p.id = d.person_id
    WHERE d.project_id = ${projectId}::int AND p.project_id = ${projectId}::int)`;
}
