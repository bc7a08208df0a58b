/**
 * Resolves a request's personal API key into an `Actor`, once per request (posthog/auth.py,
 * posthog-behavior.md §1.4). Candidates, first found wins: `Authorization: Bearer <key>`, then a
 * `personal_api_key` field of the body (JSON or form), then a `personal_api_key` query parameter.
 */
import { Prisma } from "../../generated/prisma/client.js";
import type { DataAccess } from "../context.js";
import { AuthenticationError } from "../errors.js";
import { FormBody } from "../form-body.js";
import type { ProjectRecord } from "../records.js";
import type { Actor, ActorKey, ActorUser } from "./actor.js";
import type { CachedActor } from "./actor-cache.js";

/** Where a credential was found; PostHog names it in the 401 message. */
export type CredentialSource = "Authorization header" | "body" | "query string";

/** A raw key taken from a request. */
export interface Credential {
  key: string;
  source: CredentialSource;
}

/** How many projects of each organization the key lookup reads along; past that, projects are read when used. */
const PRELOADED_PROJECTS = 50;

const BEARER = /^Bearer\s+(\S.+)$/;
const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/**
 * Finds the personal API key of a request, or null when there is none.
 * A Bearer token starting `pha_` (OAuth) is not a personal key and is skipped, as PostHog does.
 */
export function findCredential(request: {
  authorization?: string | undefined;
  body?: unknown;
  query?: URLSearchParams;
}): Credential | null {
  const header = request.authorization?.match(BEARER)?.[1]?.trim();
  if (header && !header.startsWith("pha_")) return { key: header, source: "Authorization header" };
  const body = request.body;
  const fromBody =
    body instanceof FormBody
      ? body.get("personal_api_key")
      : body && typeof body === "object" && !Array.isArray(body)
        ? (body as Record<string, unknown>)["personal_api_key"]
        : undefined;
  if (typeof fromBody === "string" && fromBody) return { key: fromBody, source: "body" };
  const fromQuery = request.query?.get("personal_api_key");
  if (fromQuery) return { key: fromQuery, source: "query string" };
  return null;
}

/**
 * One row of the key lookup: the key, its user (`userId`, so that the key's `id` keeps its name), one
 * membership and one project of it (all null without one).
 */
type KeyRow = ActorKey &
  Omit<ActorUser, "id"> & {
    lastUsedAt: Date | null;
    userId: number;
    isActive: boolean;
    organizationId: string | null;
    projectId: number | null;
    projectOrganizationId: string;
    projectName: string;
    apiToken: string;
    timezone: string;
    /** As text: drivers decode `bigint` differently. */
    revision: string;
    projectCreatedAt: Date;
    projectUpdatedAt: Date;
  };

/**
 * The key lookup: one statement, one row per (membership, project read along), or one row with null
 * membership for a user of no organization. Projects read along: `projectId` alone when given (a
 * REST path names it), else the first `PRELOADED_PROJECTS` of each organization by id.
 */
function keyLookup(secureValue: string, projectId: number | null): Prisma.Sql {
  const which =
    projectId === null
      ? Prisma.sql`ORDER BY p.id LIMIT ${PRELOADED_PROJECTS}`
      : Prisma.sql`AND p.id = ${projectId}`;
  return Prisma.sql`SELECT k.id, k.label, k.mask_value AS "maskValue", k.scopes,
      k.scoped_teams AS "scopedTeams", k.scoped_organizations AS "scopedOrganizations",
      k.last_used_at AS "lastUsedAt", u.id AS "userId", u.uuid, u.distinct_id AS "distinctId",
      u.first_name AS "firstName", u.last_name AS "lastName", u.email,
      u.is_email_verified AS "isEmailVerified", u.hedgehog_config AS "hedgehogConfig",
      u.role_at_organization AS "roleAtOrganization", u.current_project_id AS "currentProjectId",
      u.is_active AS "isActive", m.organization_id::text AS "organizationId", p.id AS "projectId",
      p.organization_id::text AS "projectOrganizationId", p.name AS "projectName",
      p.api_token AS "apiToken", p.timezone, p.revision::text AS revision,
      p.created_at AS "projectCreatedAt", p.updated_at AS "projectUpdatedAt"
    FROM personal_api_keys k
    JOIN users u ON u.id = k.user_id
    LEFT JOIN organization_memberships m ON m.user_id = u.id
    LEFT JOIN LATERAL (SELECT * FROM projects p WHERE p.organization_id = m.organization_id ${which}) p ON TRUE
    WHERE k.secure_value = ${secureValue}
    ORDER BY m.organization_id, p.id`;
}

function projectOf(row: KeyRow): ProjectRecord {
  return {
    id: row.projectId!,
    organizationId: row.projectOrganizationId,
    name: row.projectName,
    apiToken: row.apiToken,
    timezone: row.timezone,
    revision: BigInt(row.revision),
    createdAt: row.projectCreatedAt,
    updatedAt: row.projectUpdatedAt,
  };
}

/** The actor of one lookup's rows (`rows[0]` is active). */
function actorOf(rows: KeyRow[]): Actor {
  const row = rows[0]!;
  return {
    user: {
      id: row.userId,
      uuid: row.uuid,
      distinctId: row.distinctId,
      firstName: row.firstName,
      lastName: row.lastName,
      email: row.email,
      isEmailVerified: row.isEmailVerified,
      hedgehogConfig: row.hedgehogConfig,
      roleAtOrganization: row.roleAtOrganization,
      currentProjectId: row.currentProjectId,
    },
    apiKey: {
      id: row.id,
      label: row.label,
      maskValue: row.maskValue,
      scopes: row.scopes,
      scopedTeams: row.scopedTeams,
      scopedOrganizations: row.scopedOrganizations,
    },
    organizationIds: [...new Set(rows.flatMap((r) => (r.organizationId === null ? [] : [r.organizationId])))],
    projects: rows.filter((r) => r.projectId !== null).map(projectOf),
  };
}

/**
 * Looks the credential up by its hash and returns the actor, with the projects `projectId` names
 * (when the request names one, as REST paths do) or else its first projects read along (`Actor.projects`).
 * A key seen before costs no statement and no promise (`DataAccess.actors`, kept correct by the
 * change feed), so that answers given from memory (sdk/known-answers.ts) authenticate by this same
 * function; otherwise one hand-written statement on the driver (`DataAccess.reader`), the hottest of
 * the service. Updates `last_used_at` at most once an hour.
 * @throws AuthenticationError `not_authenticated` without a credential; `authentication_failed`
 *   when no active user's key matches.
 */
export function authenticate(
  data: DataAccess,
  credential: Credential | null,
  projectId: number | null = null,
): Actor | Promise<Actor> {
  if (!credential) throw new AuthenticationError();
  const secureValue = data.actors.storedFormOf(credential.key);
  const found = data.actors.find(secureValue, projectId);
  if (found && !usedMarkDue(found, Date.now())) return found.actor;
  return lookUpAndMark(data, credential, secureValue, projectId, found);
}

/** `authenticate` when the key is not held or its hourly `last_used_at` mark is due. @throws as it. */
async function lookUpAndMark(
  data: DataAccess,
  credential: Credential,
  secureValue: string,
  projectId: number | null,
  held: CachedActor | undefined,
): Promise<Actor> {
  let found = held;
  if (!found) {
    const generation = data.actors.generation;
    const rows = await data.reader.rows<KeyRow>(keyLookup(secureValue, projectId));
    if (!rows[0]?.isActive) {
      throw new AuthenticationError(
        `Personal API key found in request ${credential.source} is invalid.`,
        "authentication_failed",
      );
    }
    found = { actor: actorOf(rows), lastUsedAtMs: rows[0].lastUsedAt?.getTime() ?? null };
    data.actors.keep(generation, secureValue, projectId, found, credential.key);
  }
  const now = Date.now();
  if (usedMarkDue(found, now)) {
    // updateMany: a key deleted since it was read updates nothing (the request was authenticated
    // by the key as read), where `update` would throw Prisma's not-found error and answer 500.
    await data.prisma.personalApiKey.updateMany({
      where: { id: found.actor.apiKey.id },
      data: { lastUsedAt: new Date(now) },
    });
    data.actors.markUsed(secureValue, projectId, now);
  }
  return found.actor;
}

/** Whether the key's `last_used_at` is to be updated now (PostHog updates it at most hourly). */
function usedMarkDue(found: CachedActor, now: number): boolean {
  return found.lastUsedAtMs === null || now - found.lastUsedAtMs > LAST_USED_RESOLUTION_MS;
}
