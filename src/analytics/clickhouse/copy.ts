/**
 * Moves an existing PostgreSQL event history into ClickHouse (issue 30 §7, `signalbox
 * copy-to-clickhouse`): every project's events, persons, distinct ids, groups and static cohort
 * members, read a keyset page at a time (never the whole table in memory) and inserted as capture
 * mirrors them (./events.ts, ./persons.ts), each row at PostgreSQL's version. Safe to run again, or
 * after a stop half-way: a row copied twice is one row on read (the tables are ReplacingMergeTrees
 * keyed by what identifies the row, and reads take `FINAL` or the latest version). PostgreSQL's
 * tables are left as they are; run it with capture stopped (or before capture writes to
 * ClickHouse), so that nothing captured meanwhile is missed.
 */

import { v5 as uuidv5 } from "uuid";
import type { SqlReader } from "../../db/sql-reader.js";
import { Prisma } from "../../generated/prisma/client.js";
import { clickHouseDateTime } from "../../lib/hogql/clickhouse/params.js";
import type { ClickHouseClient } from "./client.js";

/** Rows read and inserted per statement. */
export const COPY_PAGE_ROWS = 10_000;

/** The namespace of `person_static_cohort.id`: one id per (project, cohort, person), so a copy run twice keeps one row. */
const STATIC_COHORT_NAMESPACE = "6f1a3c2e-9b7d-4e1f-8a60-5d2c9e4b7f10";

/** How many rows of each table a copy inserted. */
export interface CopyReport {
  events: number;
  persons: number;
  distinctIds: number;
  groups: number;
  staticCohortMembers: number;
}

/** PostgreSQL's text of a timestamptz column as ClickHouse's DateTime64(6) reads it: UTC, to the microsecond. */
const microseconds = (column: Prisma.Sql) =>
  Prisma.sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')`;

/** One table's copy: its keyset query from the last key read (null: from the start), its rows as ClickHouse's. */
interface TableCopy<Row, Key> {
  table: string;
  page(after: Key | null, limit: number): Prisma.Sql;
  keyOf(row: Row): Key;
  toClickHouse(row: Row, now: string): Record<string, unknown>;
}

const EVENTS: TableCopy<
  {
    project_id: number;
    uuid: string;
    event: string;
    distinct_id: string;
    person_id: string | null;
    properties: unknown;
    /** ClickHouse's DateTime64(6) text, to the microsecond PostgreSQL keeps. */
    timestamp: string;
    created_at: string;
    elements_chain: string;
  },
  [number, string]
> = {
  table: "events",
  page: (after, limit) => Prisma.sql`
    SELECT project_id, uuid::text AS uuid, event, distinct_id, person_id::text AS person_id, properties,
           ${microseconds(Prisma.raw("timestamp"))} AS timestamp, ${microseconds(Prisma.raw("created_at"))} AS created_at,
           elements_chain
    FROM events
    ${after ? Prisma.sql`WHERE (project_id, uuid) > (${after[0]}, ${after[1]}::uuid)` : Prisma.empty}
    ORDER BY project_id, uuid LIMIT ${limit}`,
  keyOf: (row) => [row.project_id, row.uuid],
  toClickHouse: (row, now) => ({
    uuid: row.uuid,
    event: row.event,
    properties: JSON.stringify(row.properties),
    timestamp: row.timestamp,
    team_id: row.project_id,
    distinct_id: row.distinct_id,
    elements_chain: row.elements_chain,
    created_at: row.created_at,
    person_id: row.person_id,
    _timestamp: now,
  }),
};

const PERSONS: TableCopy<
  {
    project_id: number;
    id: string;
    uuid: string;
    created_at: Date;
    properties: unknown;
    is_identified: boolean;
    version: string;
  },
  [number, string]
> = {
  table: "person",
  page: (after, limit) => Prisma.sql`
    SELECT project_id, id::text AS id, uuid::text AS uuid, created_at, properties, is_identified, version::text AS version
    FROM persons
    ${after ? Prisma.sql`WHERE (project_id, id) > (${after[0]}, ${after[1]}::bigint)` : Prisma.empty}
    ORDER BY project_id, id LIMIT ${limit}`,
  keyOf: (row) => [row.project_id, row.id],
  toClickHouse: (row, now) => ({
    id: row.uuid,
    created_at: clickHouseDateTime(row.created_at),
    team_id: row.project_id,
    properties: JSON.stringify(row.properties),
    is_identified: row.is_identified ? 1 : 0,
    is_deleted: 0,
    version: row.version,
    _timestamp: now,
  }),
};

const DISTINCT_IDS: TableCopy<
  { project_id: number; distinct_id: string; person_uuid: string; version: string },
  [number, string]
> = {
  table: "person_distinct_id2",
  page: (after, limit) => Prisma.sql`
    SELECT d.project_id, d.distinct_id, p.uuid::text AS person_uuid, d.version::text AS version
    FROM person_distinct_ids d JOIN persons p ON p.project_id = d.project_id AND p.id = d.person_id
    ${after ? Prisma.sql`WHERE (d.project_id, d.distinct_id) > (${after[0]}, ${after[1]})` : Prisma.empty}
    ORDER BY d.project_id, d.distinct_id LIMIT ${limit}`,
  keyOf: (row) => [row.project_id, row.distinct_id],
  toClickHouse: (row, now) => ({
    team_id: row.project_id,
    distinct_id: row.distinct_id,
    person_id: row.person_uuid,
    is_deleted: 0,
    version: row.version,
    _timestamp: now,
  }),
};

const GROUPS: TableCopy<
  {
    project_id: number;
    group_type_index: number;
    group_key: string;
    group_properties: unknown;
    created_at: Date;
    version: string;
  },
  [number, number, string]
> = {
  table: "groups",
  page: (after, limit) => Prisma.sql`
    SELECT project_id, group_type_index, group_key, group_properties, created_at, version::text AS version
    FROM groups
    ${after ? Prisma.sql`WHERE (project_id, group_type_index, group_key) > (${after[0]}, ${after[1]}, ${after[2]})` : Prisma.empty}
    ORDER BY project_id, group_type_index, group_key LIMIT ${limit}`,
  keyOf: (row) => [row.project_id, row.group_type_index, row.group_key],
  toClickHouse: (row, now) => ({
    group_type_index: row.group_type_index,
    group_key: row.group_key,
    created_at: clickHouseDateTime(row.created_at),
    team_id: row.project_id,
    group_properties: JSON.stringify(row.group_properties),
    version: row.version,
    _timestamp: now,
  }),
};

const STATIC_COHORT_MEMBERS: TableCopy<
  { project_id: number; cohort_id: number; person_id: string; person_uuid: string },
  [number, number, string]
> = {
  table: "person_static_cohort",
  page: (after, limit) => Prisma.sql`
    SELECT m.project_id, m.cohort_id, m.person_id::text AS person_id, p.uuid::text AS person_uuid
    FROM cohort_people m
    JOIN cohorts c ON c.id = m.cohort_id AND c.is_static
    JOIN persons p ON p.project_id = m.project_id AND p.id = m.person_id
    ${after ? Prisma.sql`WHERE (m.project_id, m.cohort_id, m.person_id) > (${after[0]}, ${after[1]}, ${after[2]}::bigint)` : Prisma.empty}
    ORDER BY m.project_id, m.cohort_id, m.person_id LIMIT ${limit}`,
  keyOf: (row) => [row.project_id, row.cohort_id, row.person_id],
  toClickHouse: (row, now) => ({
    id: uuidv5(`${row.project_id}:${row.cohort_id}:${row.person_uuid}`, STATIC_COHORT_NAMESPACE),
    person_id: row.person_uuid,
    cohort_id: row.cohort_id,
    team_id: row.project_id,
    _timestamp: now,
  }),
};

/** Copies one table a page at a time; returns the rows inserted. */
async function copyTable<Row, Key>(
  reader: SqlReader,
  client: ClickHouseClient,
  copy: TableCopy<Row, Key>,
  pageRows: number,
  now: string,
  onPage: (table: string, rows: number) => void,
): Promise<number> {
  let after: Key | null = null;
  let copied = 0;
  for (;;) {
    const rows: Row[] = await reader.rows<Row>(copy.page(after, pageRows));
    if (rows.length === 0) return copied;
    await client.insert({
      table: copy.table,
      values: rows.map((row) => copy.toClickHouse(row, now)),
      format: "JSONEachRow",
      clickhouse_settings: { date_time_input_format: "best_effort" },
    });
    copied += rows.length;
    onPage(copy.table, copied);
    after = copy.keyOf(rows[rows.length - 1]!);
  }
}

/**
 * Copies every project's event history from PostgreSQL (`reader`) into ClickHouse (`client`, its
 * tables migrated), persons first, then distinct ids, groups, static cohort members and events;
 * `onPage` is told each table's running count. Returns the rows inserted per table.
 * @throws the client's ClickHouseError or PostgreSQL's error: what was copied stays (a rerun copies
 *   it again, harmlessly).
 */
export async function copyToClickHouse(
  reader: SqlReader,
  client: ClickHouseClient,
  options: { pageRows?: number; now?: Date; onPage?: (table: string, rows: number) => void } = {},
): Promise<CopyReport> {
  const pageRows = options.pageRows ?? COPY_PAGE_ROWS;
  const now = clickHouseDateTime(options.now ?? new Date());
  const onPage = options.onPage ?? (() => {});
  const persons = await copyTable(reader, client, PERSONS, pageRows, now, onPage);
  const distinctIds = await copyTable(reader, client, DISTINCT_IDS, pageRows, now, onPage);
  const groups = await copyTable(reader, client, GROUPS, pageRows, now, onPage);
  const staticCohortMembers = await copyTable(reader, client, STATIC_COHORT_MEMBERS, pageRows, now, onPage);
  const events = await copyTable(reader, client, EVENTS, pageRows, now, onPage);
  return { events, persons, distinctIds, groups, staticCohortMembers };
}
