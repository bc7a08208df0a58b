/**
 * How endpoints and their versions are read: one statement per page or record, the endpoint's
 * current version, its creator and its version count in the same statement; a page's total beside
 * its rows.
 *
 * Invariant: every statement filters by `project_id`; values are bound parameters, never text.
 */
import { NotFoundError } from "../core/errors.js";
import type { OffsetPage } from "../core/paging.js";
import { type UserBasic, userBasicJson } from "../core/records.js";
import { isUuid } from "../core/validation.js";
import type { QueryClient } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";
import type { EndpointListFilters } from "./endpoints.schemas.js";
import type { MaterializationState } from "./materialization/materialization.store.js";

/** One version of an endpoint as both doors show it. */
export interface EndpointVersionRecord {
  /** UUID of the version row. */
  id: string;
  projectId: number;
  /** UUID of its endpoint. */
  endpointId: string;
  /** Its number, from 1. */
  version: number;
  /** The query node, as stored when the version was made (never changed). */
  query: Record<string, unknown>;
  description: string;
  /** Seconds a cached result stays fresh; null for the default. */
  cacheAgeSeconds: number | null;
  isMaterialized: boolean;
  syncFrequency: string | null;
  /** The refresh state while the version is materialized; null otherwise. */
  materialization: MaterializationState | null;
  /** Whether the version may be run. */
  isActive: boolean;
  createdAt: Date;
  createdBy: UserBasic | null;
}

/** An endpoint as both doors show it: its columns, its creator, its current version and how many it has. */
export interface EndpointRecord {
  /** UUID. */
  id: string;
  projectId: number;
  name: string;
  isActive: boolean;
  currentVersion: number;
  derivedFromInsight: string | null;
  createdAt: Date;
  updatedAt: Date;
  lastExecutedAt: Date | null;
  createdById: number | null;
  createdBy: UserBasic | null;
  /** The version numbered `currentVersion`. */
  current: EndpointVersionRecord;
  versionsCount: number;
}

/**
 * Which endpoint an operation acts on: its name (REST's `:name`) or its UUID (`{id}`, GraphQL's
 * mutations, which address objects by id).
 */
export type EndpointKey = string | { id: string };

/**
 * 404 for a version number an endpoint does not have. REST answers it with PostHog's own body
 * `{"error": "Version N not found"}` (§4.4, §4.8).
 */
export class VersionNotFoundError extends NotFoundError {
  constructor(version: number) {
    super(`Version ${version} not found`);
  }
}

const VERSION_COLUMNS = (v: string, u: string) => {
  const a = Prisma.raw(v);
  return Prisma.sql`${a}.id::text AS "vId", ${a}.project_id AS "vProjectId", ${a}.endpoint_id::text AS "vEndpointId",
    ${a}.version AS "vVersion", ${a}.query AS "vQuery", ${a}.description AS "vDescription",
    ${a}.cache_age_seconds AS "vCacheAgeSeconds", ${a}.is_materialized AS "vIsMaterialized",
    ${a}.sync_frequency AS "vSyncFrequency", ${a}.is_active AS "vIsActive", ${a}.created_at AS "vCreatedAt",
    ${userBasicJson(u)} AS "vCreatedBy",
    CASE WHEN vm.version_id IS NULL THEN NULL ELSE json_build_object('status', vm.status,
      'syncFrequency', vm.sync_frequency, 'lastRunAt', vm.last_run_at, 'latestError', vm.latest_error,
      'paused', vm.paused) END
      AS "vMaterialization"`;
};

/** The version's materialization state, joined as `vm` beside version `v`. */
const JOIN_MATERIALIZATION = Prisma.sql`LEFT JOIN endpoint_materializations vm ON vm.version_id = v.id`;

const SELECT_ENDPOINT = Prisma.sql`
  SELECT e.id::text AS id, e.project_id AS "projectId", e.name, e.is_active AS "isActive",
    e.current_version AS "currentVersion", e.derived_from_insight AS "derivedFromInsight",
    e.created_at AS "createdAt", e.updated_at AS "updatedAt", e.last_executed_at AS "lastExecutedAt",
    e.created_by_id AS "createdById", ${userBasicJson("u")} AS "createdBy",
    (SELECT count(*)::int FROM endpoint_versions c WHERE c.endpoint_id = e.id) AS "versionsCount",
    ${VERSION_COLUMNS("v", "vu")}
  FROM endpoints e
  JOIN endpoint_versions v ON v.endpoint_id = e.id AND v.version = e.current_version
  LEFT JOIN users u ON u.id = e.created_by_id
  LEFT JOIN users vu ON vu.id = v.created_by_id
  ${JOIN_MATERIALIZATION}`;

type VersionRow = {
  vId: string;
  vProjectId: number;
  vEndpointId: string;
  vVersion: number;
  vQuery: Record<string, unknown>;
  vDescription: string;
  vCacheAgeSeconds: number | null;
  vIsMaterialized: boolean;
  vSyncFrequency: string | null;
  vIsActive: boolean;
  vCreatedAt: Date;
  vCreatedBy: UserBasic | null;
  vMaterialization: (Omit<MaterializationState, "lastRunAt"> & { lastRunAt: string | null }) | null;
};

type EndpointRow = Omit<EndpointRecord, "current"> & VersionRow;

function toVersion(row: VersionRow): EndpointVersionRecord {
  return {
    id: row.vId,
    projectId: row.vProjectId,
    endpointId: row.vEndpointId,
    version: row.vVersion,
    query: row.vQuery,
    description: row.vDescription,
    cacheAgeSeconds: row.vCacheAgeSeconds,
    isMaterialized: row.vIsMaterialized,
    syncFrequency: row.vSyncFrequency,
    materialization: row.vMaterialization
      ? {
          ...row.vMaterialization,
          lastRunAt: row.vMaterialization.lastRunAt ? new Date(row.vMaterialization.lastRunAt) : null,
        }
      : null,
    isActive: row.vIsActive,
    createdAt: row.vCreatedAt,
    createdBy: row.vCreatedBy,
  };
}

function toEndpoint(row: EndpointRow): EndpointRecord {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    isActive: row.isActive,
    currentVersion: row.currentVersion,
    derivedFromInsight: row.derivedFromInsight,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    lastExecutedAt: row.lastExecutedAt,
    createdById: row.createdById,
    createdBy: row.createdBy,
    versionsCount: row.versionsCount,
    current: toVersion(row),
  };
}

/** The project's endpoint named `name`, or null. */
export async function selectEndpointByName(
  db: QueryClient,
  projectId: number,
  name: string,
): Promise<EndpointRecord | null> {
  const rows = await db.$queryRaw<EndpointRow[]>`${SELECT_ENDPOINT}
    WHERE e.project_id = ${projectId} AND e.name = ${name}`;
  return rows[0] ? toEndpoint(rows[0]) : null;
}

/** The project's endpoints with these UUIDs (in no order). */
export async function selectEndpoints(
  db: QueryClient,
  projectId: number,
  ids: readonly string[],
): Promise<EndpointRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db.$queryRaw<EndpointRow[]>`${SELECT_ENDPOINT}
    WHERE e.project_id = ${projectId} AND e.id = ANY(${[...ids]}::uuid[])`;
  return rows.map(toEndpoint);
}

/** The project's endpoint named or identified by `ref`. @throws NotFoundError. */
export async function readEndpoint(
  db: QueryClient,
  projectId: number,
  ref: EndpointKey,
): Promise<EndpointRecord> {
  const endpoint =
    typeof ref === "string"
      ? await selectEndpointByName(db, projectId, ref)
      : isUuid(ref.id)
        ? ((await selectEndpoints(db, projectId, [ref.id]))[0] ?? null)
        : null;
  if (!endpoint) throw new NotFoundError();
  return endpoint;
}

/** One page of the project's endpoints matching `filters`, newest first, with the total. */
export async function selectEndpointPage(
  db: QueryClient,
  projectId: number,
  filters: EndpointListFilters,
  page: OffsetPage,
): Promise<{ count: number; results: EndpointRecord[] }> {
  const and: Prisma.Sql[] = [Prisma.sql`e.project_id = ${projectId}`];
  if (filters.is_active !== undefined) and.push(Prisma.sql`e.is_active = ${filters.is_active}`);
  if (filters.created_by !== undefined) and.push(Prisma.sql`e.created_by_id = ${filters.created_by}`);
  const where = Prisma.join(and, " AND ");
  const rows = await db.$queryRaw<(EndpointRow & { total: number })[]>`
    SELECT page.*, count(*) OVER ()::int AS total FROM (${SELECT_ENDPOINT}
    WHERE ${where}) page
    ORDER BY page."createdAt" DESC, page.id DESC
    LIMIT ${page.limit} OFFSET ${page.offset}`;
  if (rows.length > 0) return { count: rows[0]!.total, results: rows.map(toEndpoint) };
  const [counted] = await db.$queryRaw<{ total: number }[]>`
    SELECT count(*)::int AS total FROM endpoints e WHERE ${where}`;
  return { count: counted?.total ?? 0, results: [] };
}

const SELECT_VERSION = Prisma.sql`SELECT ${VERSION_COLUMNS("v", "vu")}
  FROM endpoint_versions v LEFT JOIN users vu ON vu.id = v.created_by_id ${JOIN_MATERIALIZATION}`;

/** One page of an endpoint's versions, highest number first, with the total. */
export async function selectVersionPage(
  db: QueryClient,
  projectId: number,
  endpointId: string,
  page: OffsetPage,
): Promise<{ count: number; results: EndpointVersionRecord[] }> {
  const [rows, counted] = await Promise.all([
    db.$queryRaw<VersionRow[]>`${SELECT_VERSION}
      WHERE v.project_id = ${projectId} AND v.endpoint_id = ${endpointId}::uuid
      ORDER BY v.version DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
    db.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM endpoint_versions v
      WHERE v.project_id = ${projectId} AND v.endpoint_id = ${endpointId}::uuid`,
  ]);
  return { count: counted[0]?.total ?? 0, results: rows.map(toVersion) };
}

/** Version `version` of an endpoint, or null. */
export async function selectVersion(
  db: QueryClient,
  projectId: number,
  endpointId: string,
  version: number,
): Promise<EndpointVersionRecord | null> {
  const rows = await db.$queryRaw<VersionRow[]>`${SELECT_VERSION}
    WHERE v.project_id = ${projectId} AND v.endpoint_id = ${endpointId}::uuid AND v.version = ${version}`;
  return rows[0] ? toVersion(rows[0]) : null;
}

/** Version `number` of `endpoint`. @throws VersionNotFoundError. */
export async function readEndpointVersion(
  db: QueryClient,
  endpoint: EndpointRecord,
  number: number,
): Promise<EndpointVersionRecord> {
  const version = await selectVersion(db, endpoint.projectId, endpoint.id, number);
  if (!version) throw new VersionNotFoundError(number);
  return version;
}

/**
 * The latest execution at or after `since` of each of `names` in the project, by personal API key
 * (PostHog's `query_log` read, query-and-experiments.md 1e), names in order.
 */
export async function selectLastExecutionTimes(
  db: QueryClient,
  projectId: number,
  names: readonly string[],
  since: Date,
): Promise<Array<{ name: string; lastExecutedAt: Date }>> {
  if (names.length === 0) return [];
  return db.$queryRaw<Array<{ name: string; lastExecutedAt: Date }>>`
    SELECT x.endpoint_name AS name, max(x.executed_at) AS "lastExecutedAt"
    FROM endpoint_executions x
    WHERE x.project_id = ${projectId} AND x.endpoint_name = ANY(${[...names]}::text[])
      AND x.via_personal_api_key AND x.executed_at >= ${since.toISOString()}::timestamptz
    GROUP BY x.endpoint_name
    ORDER BY x.endpoint_name`;
}
