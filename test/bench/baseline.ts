/**
 * The bench's baseline: a bare `node:http` server that does what our REST door does for the list,
 * the single read and a PATCH of a flag, and for the list of persons — authenticate the personal API key, read the project and
 * check access, read the flags with their users and tags — with hand-written SQL over the same
 * driver (a `pg` Pool on the same database: on the embedded one, its one connection), then `JSON.stringify`s
 * the same response bytes (run.ts checks they are identical). No Prisma, no fastify, no GraphQL.
 *
 * For the capture figure, `POST /capture/batch` stores a batch's events with one hand-written
 * multi-row INSERT (no person state, no catalogue): what storing the rows alone costs.
 *
 * For the remote-flags figure, `POST /flags` (a `/flags` body: `{token, distinct_id}`) does the
 * least a remote evaluation reads, by hand: the project by token, then the person's properties by
 * distinct id (two statements), evaluates the project's flags (read once at start) with our engine
 * and writes PostHog's v2 answer with our shaping: what is left of ours is the door, the
 * definitions' revision check and the subject's fuller statement (cohorts, groups, hash keys).
 *
 * List shapes, so the bench can show what a cheaper query would give (authentication and the
 * project check are the same hand-written statements in each):
 * - `GET /rows/flags`: one statement, plain joins to the two users, tag names as arrays, the total
 *   with `count(*) OVER ()`; the driver decodes columns, JavaScript builds the objects.
 * - `GET /json/flags`: one statement where PostgreSQL builds each flag with its users and tags as
 *   one `json_build_object` document (`json_agg` over the page); JavaScript parses it and adds the
 *   derived fields.
 * - `GET /rows/persons`: one statement, each person with its distinct ids as an array and its
 *   latest event's time; JavaScript builds PostHog's actor shape (persons.rest.ts).
 * - `GET /prepared/flags[/:id]`: as `rows`, every statement a prepared (named) statement, as the
 *   app's are.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { hashApiKey } from "../../src/core/auth/api-keys.js";
import { type Scope, scopeSatisfied } from "../../src/core/auth/scopes.js";
import { flagsResponseBytes } from "../../src/feature-flags/delivery/flags-response.js";
import {
  type CompiledDefinitions,
  compileDefinitions,
  evaluateFlags,
} from "../../src/feature-flags/evaluation/engine/evaluate.js";
import type { FlagResult } from "../../src/feature-flags/evaluation/evaluation.service.js";
import { flagStatus, isSimpleFlag, simpleRolloutPercentage } from "../../src/feature-flags/rules/status.js";
import { effectiveFilters } from "../../src/feature-flags/rules/stored-filters.js";
import { personDisplayName } from "../../src/persons/rules/display-name.js";
import { drfDateTime } from "../../src/rest/date-time.js";

/** The driver the baseline runs on: positional-parameter SQL returning rows, and a transaction. */
export interface Sql {
  query<R>(text: string, params?: unknown[]): Promise<R[]>;
  transaction<T>(fn: (sql: Pick<Sql, "query">) => Promise<T>): Promise<T>;
}

/**
 * `Sql` over a `pg` Pool (same database as the app). `prepared`: each distinct text is a named
 * statement, parsed and planned once per connection, as the app's statements are
 * (src/db/statement-names.ts); otherwise every statement is parsed and planned each time.
 */
export function pgPoolSql(pool: pg.Pool, prepared = false): Sql {
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (name === undefined) {
      name = `baseline_${names.size}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    query: async <R>(text: string, params?: unknown[]) =>
      (await pool.query(prepared ? { name: nameOf(text), text, values: params } : { text, values: params }))
        .rows as R[],
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn({
          query: async <R>(t: string, p?: unknown[]) => (await client.query(t, p)).rows as R[],
        });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

/** A shown user, its keys in `USER_FIELDS` order (so it serialises as `serializeUserBasic` does). */
interface UserRow {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
  is_email_verified: boolean | null;
  hedgehog_config: unknown;
  role_at_organization: string | null;
}

interface FlagRow {
  id: number;
  name: string;
  key: string;
  filters: unknown;
  rollout_percentage: number | null;
  deleted: boolean;
  active: boolean;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
  rollback_conditions: unknown;
  performed_rollback: boolean | null;
  ensure_experience_continuity: boolean;
  usage_dashboard_id: number | null;
  has_enriched_analytics: boolean;
  is_remote_configuration: boolean;
  has_encrypted_payloads: boolean;
  evaluation_runtime: string;
  bucketing_identifier: string;
  last_called_at: Date | string | null;
  creation_context: string;
  create_in_folder: string | null;
  should_create_usage_dashboard: boolean;
  tags: string[];
  evaluation_tags: string[];
  created_by: UserRow | null;
  last_modified_by: UserRow | null;
}

interface Caller {
  userId: number;
  scopes: string[];
}

class HttpError extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

const FLAG_COLUMNS = `f.id, f.name, f.key, f.filters, f.rollout_percentage, f.deleted, f.active, f.version,
  f.created_at, f.updated_at, f.rollback_conditions, f.performed_rollback, f.ensure_experience_continuity,
  f.usage_dashboard_id, f.has_enriched_analytics, f.is_remote_configuration, f.has_encrypted_payloads,
  f.evaluation_runtime::text AS evaluation_runtime, f.bucketing_identifier::text AS bucketing_identifier,
  f.last_called_at, f.creation_context::text AS creation_context, f.create_in_folder,
  f.should_create_usage_dashboard`;

/** The user fields a flag record shows, in PostHog's `UserBasic` order (also the JSON key order). */
const USER_FIELDS = [
  "id",
  "uuid",
  "distinct_id",
  "first_name",
  "last_name",
  "email",
  "is_email_verified",
  "hedgehog_config",
  "role_at_organization",
] as const;

const USER_COLUMNS = (alias: string) => USER_FIELDS.map((c) => `${alias}.${c} AS ${alias}_${c}`).join(", ");

const TAGS = (table: string) =>
  `COALESCE((SELECT array_agg(t.name ORDER BY t.name) FROM ${table} l JOIN tags t ON t.id = l.tag_id
     WHERE l.feature_flag_id = f.id), '{}') `;

const ROWS_FROM = `SELECT ${FLAG_COLUMNS}, ${USER_COLUMNS("cu")}, ${USER_COLUMNS("mu")},
    ${TAGS("feature_flag_tags")} AS tags, ${TAGS("feature_flag_evaluation_tags")} AS evaluation_tags
  FROM feature_flags f
  LEFT JOIN users cu ON cu.id = f.created_by_id
  LEFT JOIN users mu ON mu.id = f.last_modified_by_id`;

const ROWS_PAGE = `${ROWS_FROM.replace("SELECT ", "SELECT count(*) OVER () AS total, ")}
  WHERE f.project_id = $1 AND NOT f.deleted ORDER BY f.created_at DESC, f.id DESC LIMIT $2 OFFSET $3`;

const ROWS_ONE = `${ROWS_FROM} WHERE f.id = $1 AND f.project_id = $2`;

const USER_JSON = (alias: string) =>
  `CASE WHEN ${alias}.id IS NULL THEN NULL ELSE json_build_object('id', ${alias}.id, 'uuid', ${alias}.uuid,
    'distinct_id', ${alias}.distinct_id, 'first_name', ${alias}.first_name, 'last_name', ${alias}.last_name,
    'email', ${alias}.email, 'is_email_verified', ${alias}.is_email_verified,
    'hedgehog_config', ${alias}.hedgehog_config, 'role_at_organization', ${alias}.role_at_organization) END`;

const JSON_PAGE = `SELECT (SELECT count(*) FROM feature_flags WHERE project_id = $1 AND NOT deleted) AS total,
  (SELECT COALESCE(json_agg(doc), '[]') FROM (
    SELECT json_build_object('id', f.id, 'name', f.name, 'key', f.key, 'filters', f.filters,
      'rollout_percentage', f.rollout_percentage, 'deleted', f.deleted, 'active', f.active, 'version', f.version,
      'created_at', f.created_at, 'updated_at', f.updated_at, 'rollback_conditions', f.rollback_conditions,
      'performed_rollback', f.performed_rollback, 'ensure_experience_continuity', f.ensure_experience_continuity,
      'usage_dashboard_id', f.usage_dashboard_id, 'has_enriched_analytics', f.has_enriched_analytics,
      'is_remote_configuration', f.is_remote_configuration, 'has_encrypted_payloads', f.has_encrypted_payloads,
      'evaluation_runtime', f.evaluation_runtime, 'bucketing_identifier', f.bucketing_identifier,
      'last_called_at', f.last_called_at, 'creation_context', f.creation_context,
      'create_in_folder', f.create_in_folder, 'should_create_usage_dashboard', f.should_create_usage_dashboard,
      'tags', ${TAGS("feature_flag_tags")}, 'evaluation_tags', ${TAGS("feature_flag_evaluation_tags")},
      'created_by', ${USER_JSON("cu")}, 'last_modified_by', ${USER_JSON("mu")}) AS doc
    FROM feature_flags f
    LEFT JOIN users cu ON cu.id = f.created_by_id
    LEFT JOIN users mu ON mu.id = f.last_modified_by_id
    WHERE f.project_id = $1 AND NOT f.deleted ORDER BY f.created_at DESC, f.id DESC LIMIT $2 OFFSET $3) page)::text AS page`;

function userFrom(row: Record<string, unknown>, alias: string): UserRow | null {
  if (row[`${alias}_id`] === null) return null;
  return Object.fromEntries(
    USER_FIELDS.map((field) => [field, row[`${alias}_${field}`]]),
  ) as unknown as UserRow;
}

function flagFromRow(row: Record<string, unknown>): FlagRow {
  return {
    ...(row as unknown as FlagRow),
    created_by: userFrom(row, "cu"),
    last_modified_by: userFrom(row, "mu"),
  };
}

/** A date-time as the REST door writes it (DRF's format: src/rest/date-time.ts). */
const iso = (value: Date | string) => drfDateTime(value instanceof Date ? value : new Date(value));

/** The flag record with PostHog's field order, as `serializeFlag` writes it. */
function flagJson(flag: FlagRow, caller: Caller, now: Date) {
  const filters = effectiveFilters(flag.filters, flag.rollout_percentage);
  const canEdit = scopeSatisfied(caller.scopes, "feature_flag:write");
  const createdAt = new Date(flag.created_at);
  const lastCalledAt = flag.last_called_at === null ? null : new Date(flag.last_called_at);
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters,
    deleted: flag.deleted,
    active: flag.active,
    created_by: flag.created_by,
    created_at: iso(createdAt),
    updated_at: iso(flag.updated_at),
    version: flag.version,
    last_modified_by: flag.last_modified_by,
    is_simple_flag: isSimpleFlag(filters),
    rollout_percentage: simpleRolloutPercentage(filters),
    ensure_experience_continuity: flag.ensure_experience_continuity,
    experiment_set: [],
    surveys: [],
    features: [],
    rollback_conditions: flag.rollback_conditions,
    performed_rollback: flag.performed_rollback,
    can_edit: canEdit,
    tags: flag.tags,
    evaluation_tags: flag.evaluation_tags,
    usage_dashboard: flag.usage_dashboard_id,
    analytics_dashboards: [],
    has_enriched_analytics: flag.has_enriched_analytics,
    user_access_level: canEdit ? "editor" : "viewer",
    creation_context: flag.creation_context,
    is_remote_configuration: flag.is_remote_configuration,
    has_encrypted_payloads: flag.has_encrypted_payloads,
    status: flagStatus({ ...flag, createdAt, lastCalledAt }, now).status,
    evaluation_runtime: flag.evaluation_runtime,
    bucketing_identifier: flag.bucketing_identifier,
    last_called_at: lastCalledAt === null ? null : iso(lastCalledAt),
    _create_in_folder: flag.create_in_folder,
    _should_create_usage_dashboard: flag.should_create_usage_dashboard,
  };
}

/** A page of persons, newest first, with distinct ids and the latest event's time. */
const PERSONS_PAGE = `
  SELECT p.id::text AS id, p.uuid::text AS uuid, p.properties, p.is_identified, p.created_at,
    ARRAY(SELECT d.distinct_id FROM person_distinct_ids d
          WHERE d.project_id = p.project_id AND d.person_id = p.id ORDER BY d.distinct_id LIMIT 1000) AS distinct_ids,
    (SELECT max(e.timestamp) FROM events e WHERE e.project_id = p.project_id AND e.person_id = p.uuid) AS last_seen_at
  FROM persons p
  WHERE p.project_id = $1 AND p.created_at < now() + interval '1 day'
  ORDER BY p.created_at DESC, p.uuid DESC LIMIT $2 OFFSET $3`;

interface PersonRow {
  id: string;
  uuid: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: Date;
  distinct_ids: string[];
  last_seen_at: Date | null;
}

/** A person in the list's shape (persons.rest.ts `serializeListedPerson`). */
function personJson(row: PersonRow) {
  return {
    type: "person",
    id: row.uuid,
    uuid: row.uuid,
    created_at: iso(row.created_at),
    last_seen_at: row.last_seen_at === null ? null : iso(row.last_seen_at),
    properties: row.properties,
    is_identified: row.is_identified,
    name: personDisplayName(BigInt(row.id), row.properties, row.distinct_ids),
    distinct_ids: row.distinct_ids,
    matched_recordings: [],
    value_at_data_point: null,
  };
}

/** Key lookup and project check: the same decisions as `authenticate` + `authorizeProject`. */
async function authorize(
  sql: Sql,
  authorization: string | undefined,
  projectId: number,
  scope: Scope,
): Promise<Caller> {
  const key = authorization?.match(/^Bearer\s+(\S+)$/)?.[1];
  if (!key) throw new HttpError(401);
  const [caller] = await sql.query<{
    user_id: number;
    scopes: string[];
    scoped_teams: number[];
    is_active: boolean;
    organization_ids: string[];
  }>(
    `SELECT k.user_id, k.scopes, k.scoped_teams, u.is_active,
       ARRAY(SELECT m.organization_id::text FROM organization_memberships m WHERE m.user_id = u.id) AS organization_ids
     FROM personal_api_keys k JOIN users u ON u.id = k.user_id WHERE k.secure_value = $1`,
    [hashApiKey(key)],
  );
  if (!caller?.is_active) throw new HttpError(401);
  const [project] = await sql.query<{ id: number; organization_id: string }>(
    "SELECT id, organization_id::text AS organization_id FROM projects WHERE id = $1",
    [projectId],
  );
  if (!project) throw new HttpError(404);
  if (caller.scoped_teams.length > 0 && !caller.scoped_teams.includes(project.id)) throw new HttpError(403);
  if (!scopeSatisfied(caller.scopes, scope) || !caller.organization_ids.includes(project.organization_id)) {
    throw new HttpError(403);
  }
  return { userId: caller.user_id, scopes: caller.scopes };
}

/** `sql` counting the statements it sends (BEGIN and COMMIT included), as `Server-Timing` reports ours. */
function counting(sql: Sql): { sql: Sql; statements: () => number } {
  let count = 0;
  const query =
    <R>(run: Pick<Sql, "query">) =>
    (text: string, params?: unknown[]) => {
      count += 1;
      return run.query<R>(text, params);
    };
  return {
    sql: {
      query: <R>(text: string, params?: unknown[]) => query<R>(sql)(text, params),
      transaction: (fn) => {
        count += 2;
        return sql.transaction((tx) => fn({ query: <R>(t: string, p?: unknown[]) => query<R>(tx)(t, p) }));
      },
    },
    statements: () => count,
  };
}

/** An event of the capture figure's batch, as the bench sends it. */
interface BatchEvent {
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: string;
}

/**
 * The capture figure's baseline: the batch's events (each given a UUIDv7) stored by one hand-written
 * multi-row `INSERT ... VALUES (...), (...)` with bound parameters, `ON CONFLICT DO NOTHING` as ours.
 */
async function insertEventsByHand(sql: Pick<Sql, "query">, projectId: number, events: BatchEvent[]) {
  const values: string[] = [];
  const params: unknown[] = [projectId];
  for (const event of events) {
    const at = params.length;
    values.push(`($1, $${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5})`);
    params.push(uuidv7(), event.event, event.distinct_id, JSON.stringify(event.properties), event.timestamp);
  }
  await sql.query(
    `INSERT INTO events (project_id, uuid, event, distinct_id, properties, timestamp) VALUES ${values.join(", ")}
     ON CONFLICT (project_id, uuid) DO NOTHING`,
    params,
  );
}

async function readBody(request: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
}

/**
 * Starts the baseline on 127.0.0.1 (a free port) for `projectId`. Routes: `GET /<shape>/flags?limit=`
 * (shapes in the module header), `GET /rows/flags/:id` (`/prepared/...` alike), `PATCH /rows/flags/:id`
 * (body `{name}`), `GET /rows/persons?limit=`, `POST /capture/batch` (body `{api_key, batch}`:
 * `insertEventsByHand`). `drivers.prepared` serves the `prepared` shape. Its `Server-Timing` counts
 * its statements.
 */
/** The bench project's flags compiled once (the baseline's one read of them, at its first /flags request). */
let compiledFlags: Promise<{ compiled: CompiledDefinitions; flags: FlagResult["flag"][] }> | null = null;

/** PostHog's v2 `/flags` answer (UTF-8 JSON) for one person, evaluated by our engine over flags read once. */
async function remoteFlags(
  sql: Pick<Sql, "query">,
  projectId: number,
  distinctId: string,
  properties: Record<string, unknown>,
  now: Date,
): Promise<Buffer> {
  compiledFlags ??= sql
    .query<{ id: number; key: string; active: boolean; filters: unknown; version: number }>(
      "SELECT id, key, active, filters, version FROM feature_flags WHERE project_id = $1 AND NOT deleted ORDER BY id",
      [projectId],
    )
    .then((rows) => {
      const flags = rows.map((row) => ({
        id: row.id,
        key: row.key,
        active: row.active,
        filters: typeof row.filters === "string" ? JSON.parse(row.filters) : row.filters,
        ensureExperienceContinuity: false,
        bucketingIdentifier: null,
        name: "",
        version: row.version,
        isRemoteConfiguration: false,
        hasEncryptedPayloads: false,
        evaluationRuntime: "all",
        evaluationTags: [],
      }));
      return { compiled: compileDefinitions({ flags, groupTypeMapping: {}, cohorts: new Map() }), flags };
    });
  const { compiled, flags } = await compiledFlags;
  const evaluations = evaluateFlags(
    compiled,
    {
      distinctId,
      deviceId: null,
      personProperties: { ...properties, distinct_id: distinctId },
      groups: {},
      groupProperties: {},
      staticCohortIds: new Set(),
      hashKeyOverrides: {},
    },
    { now },
  );
  return flagsResponseBytes("flags-v2", {
    results: flags.map((flag) => ({ flag, evaluation: evaluations.get(flag.key) ?? null })),
    errorsWhileComputingFlags: false,
    requestId: randomUUID(),
    evaluatedAt: now,
    config: null,
  });
}

export async function startBaseline(
  drivers: { plain: Sql; prepared: Sql },
  projectId: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    void handle(request, response);
  });
  const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://baseline");
    const [, shape, , id] = url.pathname.split("/");
    const { sql, statements } = counting(shape === "prepared" ? drivers.prepared : drivers.plain);
    try {
      const now = new Date();
      let body: unknown;
      if (request.method === "GET" && url.pathname === "/rows/persons") {
        await authorize(sql, request.headers.authorization, projectId, "person:read");
        const limit = Number(url.searchParams.get("limit") ?? 100);
        const rows = await sql.query<PersonRow>(PERSONS_PAGE, [projectId, limit, 0]);
        // The bench asks for more than it seeded: no `next`, and no `previous` from offset 0.
        body = { results: rows.map(personJson), next: null, previous: null };
      } else if (request.method === "GET" && id === undefined) {
        const caller = await authorize(sql, request.headers.authorization, projectId, "feature_flag:read");
        const limit = Number(url.searchParams.get("limit") ?? 100);
        if (shape === "json") {
          const [row] = await sql.query<{ total: string | number; page: string }>(JSON_PAGE, [
            projectId,
            limit,
            0,
          ]);
          const flags = JSON.parse(row!.page) as FlagRow[];
          body = {
            count: Number(row!.total),
            next: null,
            previous: null,
            results: flags.map((f) => flagJson(f, caller, now)),
          };
        } else {
          const rows = await sql.query<Record<string, unknown>>(ROWS_PAGE, [projectId, limit, 0]);
          body = {
            count: Number(rows[0]?.["total"] ?? 0),
            next: null,
            previous: null,
            results: rows.map((r) => flagJson(flagFromRow(r), caller, now)),
          };
        }
      } else if (request.method === "GET") {
        const caller = await authorize(sql, request.headers.authorization, projectId, "feature_flag:read");
        const [row] = await sql.query<Record<string, unknown>>(ROWS_ONE, [Number(id), projectId]);
        if (!row) throw new HttpError(404);
        body = flagJson(flagFromRow(row), caller, now);
      } else if (request.method === "POST" && shape === "flags") {
        const input = await readBody(request);
        const [project] = await sql.query<{ id: number }>("SELECT id FROM projects WHERE api_token = $1", [
          input["token"],
        ]);
        if (!project) throw new HttpError(401);
        const distinctId = String(input["distinct_id"]);
        const [person] = await sql.query<{ properties: Record<string, unknown> }>(
          `SELECT p.properties FROM person_distinct_ids d
           JOIN persons p ON p.project_id = d.project_id AND p.id = d.person_id
           WHERE d.project_id = $1 AND d.distinct_id = $2`,
          [project.id, distinctId],
        );
        body = await remoteFlags(sql, project.id, distinctId, person?.properties ?? {}, now);
      } else if (request.method === "POST" && shape === "capture") {
        const input = await readBody(request);
        await insertEventsByHand(sql, projectId, input["batch"] as BatchEvent[]);
        body = { status: "Ok" };
      } else if (request.method === "PATCH") {
        const caller = await authorize(sql, request.headers.authorization, projectId, "feature_flag:write");
        const input = await readBody(request);
        body = await sql.transaction(async (tx) => {
          const [before] = await tx.query<{ name: string; version: number }>(
            "SELECT name, version FROM feature_flags WHERE id = $1 AND project_id = $2 FOR UPDATE",
            [Number(id), projectId],
          );
          if (!before) throw new HttpError(404);
          await tx.query(
            `UPDATE feature_flags SET name = $1, version = version + 1, last_modified_by_id = $2, updated_at = now()
             WHERE id = $3`,
            [input["name"], caller.userId, Number(id)],
          );
          await tx.query(
            `INSERT INTO activity_logs (id, project_id, user_id, activity, scope, item_id, detail)
             VALUES (gen_random_uuid(), $1, $2, 'updated', 'FeatureFlag', $3, $4)`,
            [
              projectId,
              caller.userId,
              String(id),
              JSON.stringify({ changes: [{ field: "name", before: before.name, after: input["name"] }] }),
            ],
          );
          const [row] = await tx.query<Record<string, unknown>>(ROWS_ONE, [Number(id), projectId]);
          return flagJson(flagFromRow(row!), caller, now);
        });
      } else {
        throw new HttpError(405);
      }
      // The /flags answer is already UTF-8 JSON (as ours is written).
      const text = Buffer.isBuffer(body) ? body : JSON.stringify(body);
      response.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(text),
        "server-timing": `db;desc="${statements()} statements"`,
      });
      response.end(text);
    } catch (error) {
      // A client gone mid-request (autocannon stops its connections at the end of a run) is not a failure.
      if (request.destroyed) return;
      response.writeHead(error instanceof HttpError ? error.status : 500).end();
      if (!(error instanceof HttpError)) console.error(error);
    }
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("baseline has no port");
  return {
    port: address.port,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
