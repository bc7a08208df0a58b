/**
 * The context every service call carries, whichever door (REST or GraphQL) it came through:
 * the database, the authenticated actor, the configured limits and per-request caches.
 */
import type { Limits } from "../config.js";
import type { ChangeFeed } from "../db/change-feed.js";
import type { Database } from "../db/database.js";
import type { SqlReader } from "../db/sql-reader.js";
import type { RunSqlTransaction, SqlStatements } from "../db/sql-transaction.js";
import type { PrismaClient } from "../generated/prisma/client.js";
import type { Actor, ActorUser } from "./auth/actor.js";
import { ActorCache } from "./auth/actor-cache.js";
import { OpenStreams } from "./auth/open-streams.js";
import { ProjectTokenCache } from "./auth/project-token.js";
import type { Scope } from "./auth/scopes.js";
import { LiveChanges } from "./live-changes.js";
import { ProjectRevisions } from "./project-revisions.js";
import type { ProjectRecord } from "./records.js";
import type { SharedReads } from "./shared-reads.js";

/**
 * A project the actor was authorised to use during this request: its whole row, as the request read
 * it (with the key, or on its own), including `revision`, from which the REST door derives ETags.
 */
export type ProjectAccess = ProjectRecord;

/** What a domain service needs to act for a caller. Built once per request. */
export interface ServiceContext {
  readonly db: PrismaClient;
  /** Hot hand-written reads straight on the driver (db/sql-reader.ts); never inside `db`'s transactions. */
  readonly reader: SqlReader;
  readonly actor: Actor;
  readonly limits: Limits;
  /**
   * Projects already read in this request, by id: those read with the key, then any other the
   * request asks for (one lookup per project per request). Reading is not authorising: see `authorizeProject`.
   */
  readonly projects: Map<number, ProjectAccess>;
  /** Committed changes by project, for the services' subscriptions (live-changes.ts). */
  readonly live: LiveChanges;
  /** The process's open streams, re-checked when access changes (auth/open-streams.ts). */
  readonly streams: OpenStreams;
  /**
   * How the door authenticates this context's caller again, for a stream that outlives its request
   * (auth/access.ts `authorizeProjectStream`). Absent where nothing can be re-checked (jobs).
   */
  readonly renewal?: ContextRenewal;
  /**
   * While a GraphQL subscription resolves one live event: the reads every subscriber of that event
   * shares (shared-reads.ts). Absent elsewhere.
   */
  readonly shared?: SharedReads;
  /**
   * Told what this request's answer depends on, when its door may keep the answer (a GraphQL
   * query's result: graphql/result-cache.ts). Absent elsewhere.
   */
  readonly reads?: ReadRecorder;
}

/**
 * What an answer kept in memory depends on, told by the reads that make it: the projects whose data
 * it shows, at which revision, and whether it read anything no revision covers.
 */
export interface ReadRecorder {
  /** The answer shows data of project `id` as at `revision` (or newer); authorised with it. */
  project(id: number, revision: bigint): void;
  /**
   * The answer read what no project revision or access change announces (persons, events, an
   * in-process cache of them): it must not be kept.
   */
  volatile(): void;
}

/** How a door authenticates a stream's caller again (`ServiceContext.renewal`). */
export interface ContextRenewal {
  /**
   * Equal for renewals that authenticate alike (the same door, key and project token), so that one
   * renewal answers for all of them. Holds no secret.
   */
  readonly id: string;
  /**
   * A new context for the same caller, authenticated afresh as the door did when the stream began.
   * @throws as the door's authentication (AuthenticationError for a deleted key, an inactive user,
   *   a project token that no longer names the stream's project).
   */
  renew(): Promise<ServiceContext>;
}

/**
 * The database as services reach it: Prisma, the driver for hot reads (db/database.ts `Database`),
 * and the per-process caches kept correct by its change feed. One per open database (`dataAccessOf`).
 */
export interface DataAccess {
  readonly prisma: PrismaClient;
  readonly reader: SqlReader;
  /** Hand-written write transactions on the driver, beside Prisma (db/sql-transaction.ts): SDK-path writes. */
  readonly transaction: RunSqlTransaction;
  /** Single hand-written statements, each committed on its own (db/sql-transaction.ts): capture's steady state. */
  readonly autocommit: SqlStatements;
  /** Committed changes announced by the database (db/change-feed.ts), for a domain's own caches. */
  readonly changes: ChangeFeed;
  /** Authenticated actors per key (auth/actor-cache.ts). */
  readonly actors: ActorCache;
  /** The newest known revision per project (project-revisions.ts). */
  readonly revisions: ProjectRevisions;
  /** Public project tokens → project ids, for every door that names a project by token (auth/project-token.ts). */
  readonly tokens: ProjectTokenCache;
  /** Committed changes by project, for subscriptions and streams (live-changes.ts). */
  readonly live: LiveChanges;
  /** The open streams, re-checked when access changes (auth/open-streams.ts). */
  readonly streams: OpenStreams;
}

const dataAccessByDatabase = new WeakMap<Database, DataAccess>();

/**
 * The `DataAccess` of an open database: the same object (and so the same caches) for every caller,
 * the services and each door alike.
 */
export function dataAccessOf(database: Database): DataAccess {
  let data = dataAccessByDatabase.get(database);
  if (!data) {
    const revisions = new ProjectRevisions(database.changes, database.reader);
    data = {
      prisma: database.prisma,
      reader: database.reader,
      transaction: database.transaction,
      autocommit: database.autocommit,
      changes: database.changes,
      actors: new ActorCache(database.changes, revisions),
      revisions,
      tokens: new ProjectTokenCache(database.prisma, database.changes),
      live: new LiveChanges(database.changes),
      streams: new OpenStreams(database.changes),
    };
    dataAccessByDatabase.set(database, data);
  }
  return data;
}

/**
 * Builds a service context for an authenticated actor; `shared`, the reads of the live event it
 * resolves (GraphQL subscriptions), if any; `renewal`, how its door authenticates the caller again.
 */
export function createServiceContext(
  data: DataAccess,
  actor: Actor,
  limits: Limits,
  options: {
    shared?: SharedReads | undefined;
    renewal?: ContextRenewal;
    reads?: ReadRecorder | undefined;
  } = {},
): ServiceContext {
  const { shared, renewal, reads } = options;
  return {
    db: data.prisma,
    reader: data.reader,
    actor,
    limits,
    projects: new Map(actor.projects.map((project) => [project.id, project])),
    live: data.live,
    streams: data.streams,
    ...(shared ? { shared } : {}),
    ...(renewal ? { renewal } : {}),
    ...(reads ? { reads } : {}),
  };
}

/**
 * A context for work the service does on a user's behalf outside a request (a scheduled change's
 * run, an approved change request's apply): `user` on `project` with `scopes` only, limited to that
 * project, as a member of its organization (the work was authorised when it was asked for). `key`
 * names the work in place of a personal API key (`system:<kind>`).
 */
export function actingContext(
  data: DataAccess,
  options: {
    project: ProjectRecord;
    user: ActorUser;
    scopes: Scope[];
    key: { id: string; label: string };
    limits: Limits;
  },
): ServiceContext {
  const { project, user, scopes, key, limits } = options;
  return createServiceContext(
    data,
    {
      user,
      apiKey: { ...key, maskValue: "", scopes, scopedTeams: [project.id], scopedOrganizations: [] },
      organizationIds: [project.organizationId],
      projects: [project],
    },
    limits,
  );
}
