/**
 * GraphQL query results kept per process (issue 29 goal 1), so that a repeated read (a frontend
 * refreshing the same page) is answered without parsing, validating, executing or serialising it:
 * the bytes yoga answered, served again while everything they were read from is unchanged.
 *
 * Kept by the request's bytes as yoga reads them (method, URL, `Accept`, `Content-Type`, body) and
 * the stored form of its key, so an answer is only ever served to the key it was made for, never to
 * another caller. Each kept answer carries what it depends on, checked before it is served:
 * - the access generation (core/auth/actor-cache.ts): any change to keys, users, memberships or
 *   projects' own fields, announced by the change feed, voids every answer;
 * - the revision of each project it shows, as authorised (`ServiceContext.reads`, told by
 *   core/auth/access.ts): every committed write to a project's data moves it (migration
 *   `project_revision`), announced by the change feed, this process's own before COMMIT returns;
 * - the minute, as REST's ETags (a flag's `status` turns STALE with time alone: rest/conditional.ts).
 * Only what those cover may be kept. A result is not kept when the request was not one query
 * executed whole without errors (mutations, subscriptions, incremental delivery, any error), when
 * a statement it sent names a table, view or function that no revision or access announcement
 * covers (`uncoveredNames`: persons, events, organizations, ...; read from the catalog), when it
 * read such data from an in-process cache (`ReadRecorder.volatile`: the evaluation subjects), or
 * when the access generation or the minute moved while it ran. Nothing is served or kept while the
 * change feed is not live.
 *
 * A kept answer still authenticates its key (from the actor cache) and counts against the key's
 * rate limit; a key that would be refused goes to yoga, which answers the refusal.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { hash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { getOperationAST } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Actor } from "../core/auth/actor.js";
import { authenticate, type Credential } from "../core/auth/authenticate.js";
import type { DataAccess, ReadRecorder } from "../core/context.js";
import { type RateLimits, throwIfThrottled } from "../core/rate-limit.js";
import { ResponseCache } from "../core/response-cache.js";
import { Prisma } from "../generated/prisma/client.js";

/** The time bucket of a kept answer, as REST's ETags (rest/conditional.ts `ETAG_TIME_BUCKET_MS`). */
const MINUTE_MS = 60_000;

/** A kept answer: yoga's status, headers and body, and what it was read from. */
export interface KeptResult {
  body: Buffer;
  status: number;
  headers: ReadonlyArray<readonly [string, string]>;
  /** The access generation it was read at. */
  generation: number;
  /** The minute it was read in (ms since the epoch / 60,000, floored). */
  minute: number;
  /** Each project it shows, with the revision it was authorised at. */
  projects: ReadonlyArray<readonly [number, bigint]>;
}

/** What yoga reads of a request: its key is made of these. */
export interface ResultRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body's bytes (empty for a GET). */
  body: Buffer | undefined;
}

/** One execution's reads, recorded while yoga runs it (`GraphQLResultCache.record`). */
export class ResultRecording implements ReadRecorder {
  readonly projects = new Map<number, bigint>();
  /** Whether the answer may not be kept (see the module comment). */
  private isVolatile = false;
  /** Whether one query operation was executed (set by the yoga plugin, `useResultRecording`). */
  private executedQuery = false;

  constructor(
    readonly generation: number,
    readonly minute: number,
    private readonly uncovered: RegExp | null,
    private readonly revisions: DataAccess["revisions"],
  ) {}

  project(id: number, revision: bigint): void {
    // Noted, so that the revision is known when the answer is checked (the project may have been read, not announced).
    this.revisions.note(id, revision);
    const seen = this.projects.get(id);
    // Two reads of one project at two revisions: kept under the older, which the next check refuses.
    if (seen === undefined || revision < seen) this.projects.set(id, revision);
  }

  volatile(): void {
    this.isVolatile = true;
  }

  /** Told each statement's text (`SqlStats.observe`): one that names an uncovered relation voids the answer. */
  readonly statement = (sql: string): void => {
    if (this.uncovered === null || this.uncovered.test(sql)) this.isVolatile = true;
  };

  /** One operation began: only a query may be kept, and only once per request. */
  executing(operation: string): void {
    if (operation !== "query" || this.executedQuery) this.isVolatile = true;
    this.executedQuery = true;
  }

  /** Whether the recorded execution may be kept: one query, nothing volatile. */
  get keepable(): boolean {
    return this.executedQuery && !this.isVolatile;
  }
}

/**
 * The relations and functions of the database that a statement may read and no announcement
 * covers, as one case-insensitive pattern of whole words. Covered: a table with the project
 * revision's trigger (`<table>_revision`, migration `project_revision`) or with change-feed access
 * triggers on insert, update and delete (migration `change_feed_access_names`: users,
 * memberships, projects). Every other table, every view and every function that is not immutable
 * is uncovered (a view or function may read anything).
 */
export async function uncoveredNames(data: Pick<DataAccess, "reader">): Promise<RegExp> {
  // tgtype bits (PostgreSQL's pg_trigger.h): 4 INSERT, 8 DELETE, 16 UPDATE.
  const rows = await data.reader.rows<{ name: string }>(Prisma.sql`
    SELECT c.relname AS name FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
      AND NOT EXISTS (
        SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = c.relname || '_revision')
      AND COALESCE((
        SELECT bit_or(t.tgtype::int) & 28 FROM pg_trigger t
        WHERE t.tgrelid = c.oid AND t.tgname LIKE '%change_feed_access%'), 0) <> 28
    UNION
    SELECT p.proname FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace AND p.provolatile <> 'i'`);
  const names = rows.map((row) => row.name.replace(/[^a-z0-9_]/gi, "")).filter((name) => name.length > 0);
  return names.length === 0 ? /(?!)/ : new RegExp(`\\b(?:${names.join("|")})\\b`, "i");
}

/** Kept GraphQL results of one process (see the module comment). */
export class GraphQLResultCache {
  private readonly kept: ResponseCache<KeptResult>;
  /** The uncovered names, read from the catalog at the first request (none kept until then). */
  private uncovered: RegExp | null = null;
  private uncoveredRead: Promise<void> | null = null;
  /**
   * Runs a function in the async context the cache was made in (the app's, outside any request):
   * the catalog read, made at the first request (the database may be migrated after the server
   * starts), is then no statement of that request, in its SQL accounting or under its trace.
   */
  private readonly outsideRequests = AsyncLocalStorage.snapshot();

  constructor(
    private readonly data: DataAccess,
    private readonly rateLimits: RateLimits,
    maxBytes: number,
    private readonly now: () => Date,
  ) {
    this.kept = new ResponseCache<KeptResult>(maxBytes);
  }

  /** The key of `request` made with `credential`: a digest of what yoga reads, and the key's stored form. */
  keyOf(request: ResultRequest, credential: Credential): string {
    const { headers } = request;
    const digest = hash("sha256", request.body ?? "", "base64url");
    return [
      request.method,
      request.url,
      headers.accept ?? "",
      headers["content-type"] ?? "",
      this.data.actors.storedFormOf(credential.key),
      digest,
    ].join("\n");
  }

  /**
   * The answer kept for `key`, still valid, with its key authenticated and counted against the key's
   * rate limit; undefined when there is none, it is void (then forgotten), or the key would be
   * refused (yoga answers that).
   */
  async find(key: string, credential: Credential): Promise<KeptResult | undefined> {
    const kept = this.kept.get(key);
    if (!kept) return undefined;
    if (!this.valid(kept)) {
      this.kept.delete(key);
      return undefined;
    }
    let actor: Actor;
    try {
      actor = await authenticate(this.data, credential);
      throwIfThrottled(this.rateLimits.waitForKey(actor.apiKey.id));
    } catch {
      return undefined;
    }
    // Authenticating may have read the key again, and announcements may have come meanwhile.
    return this.valid(kept) ? kept : undefined;
  }

  /** Begins recording one execution's reads, to be passed to `keep` when yoga has answered. */
  record(): ResultRecording {
    this.uncoveredRead ??= this.outsideRequests(() => uncoveredNames(this.data)).then(
      (pattern) => {
        this.uncovered = pattern;
      },
      () => {
        // Read again at a later request; until then nothing is kept.
        this.uncoveredRead = null;
      },
    );
    return new ResultRecording(
      this.data.actors.generation,
      this.minute(),
      this.uncovered,
      this.data.revisions,
    );
  }

  /** Keeps yoga's answer under `key` when `recording` says it may be and nothing moved since it began. */
  keep(
    key: string,
    recording: ResultRecording,
    answer: { status: number; headers: ReadonlyArray<readonly [string, string]>; body: Buffer },
  ): void {
    if (!recording.keepable || answer.status !== 200) return;
    const kept: KeptResult = {
      ...answer,
      generation: recording.generation,
      minute: recording.minute,
      projects: [...recording.projects],
    };
    if (this.valid(kept)) this.kept.set(key, kept);
  }

  /** Whether nothing `kept` was read from has changed: the feed live, the same access, minute and revisions. */
  private valid(kept: KeptResult): boolean {
    if (!this.data.changes.live) return false;
    if (kept.generation !== this.data.actors.generation || kept.minute !== this.minute()) return false;
    for (const [id, revision] of kept.projects) if (this.data.revisions.peek(id) !== revision) return false;
    return true;
  }

  private minute(): number {
    return Math.floor(this.now().getTime() / MINUTE_MS);
  }
}

/**
 * The yoga plugin that tells a request's recording (`GraphQLContext.reads`) what ran: the kind of
 * the operation executed, and a result that cannot be kept (errors, or incremental delivery).
 * Subscriptions are not executed (`onSubscribe`), so a recording that saw one keeps nothing.
 */
export function useResultRecording(): Plugin {
  return {
    onExecute: ({ args }) => {
      const reads = (args.contextValue as { reads?: ResultRecording }).reads;
      if (!reads) return;
      reads.executing(getOperationAST(args.document, args.operationName)?.operation ?? "mutation");
      return {
        onExecuteDone: ({ result }) => {
          if (Symbol.asyncIterator in result || (result.errors?.length ?? 0) > 0) reads.volatile();
        },
      };
    },
  };
}
