/**
 * Conditional GETs on project paths (RFC 9110 §8.8.3, §13.1.2). A management GET whose path names a
 * project answers a weak `ETag` derived from:
 * - the project's `revision`, which database triggers bump in the same transaction as every write to
 *   the project's data (prisma/migrations/*_project_revision), read with the key (known to the
 *   process once seen, kept by the change feed: core/project-revisions.ts);
 * - the absolute request URL (path, query, and the scheme and host that `next`/`previous` links use);
 * - what varies the body by caller: the key's scopes (`can_edit`, `user_access_level`) and the user;
 * - the current minute (`ETAG_TIME_BUCKET_MS`), because a flag's `status` turns STALE with time alone
 *   (30 days without a call, §2.8): an answer is at most that late at noticing it.
 * A request whose `If-None-Match` matches is answered 304 with no body as soon as the project passes
 * authorization, before the read's main query: it costs at most the key lookup, which reads the
 * project the path names along, and nothing once the key is known (core/auth/authenticate.ts).
 * The invariant this rests on: such a GET's body is a function of the project's rows (or rows whose
 * changes bump every project, as users' shown fields do), the URL, the caller and the clock.
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import fresh from "fresh";
import type { ServiceContext } from "../core/context.js";
import { parseIntegerId } from "../core/validation.js";
import type { CachedAnswer, ResponseCache } from "./response-cache.js";

/** Width of the time slot an ETag is valid for (ms): how late a time-derived field may be noticed. */
export const ETAG_TIME_BUCKET_MS = 60_000;

/**
 * Thrown (through the service) when the process kept the 200 answer of the request's ETag
 * (./response-cache.ts): the answer is that one, without the read's main query.
 */
export class AnsweredFromCache extends Error {
  constructor(
    readonly etag: string,
    readonly answer: CachedAnswer,
  ) {
    super("answered from cache");
    this.name = "AnsweredFromCache";
  }
}

/** Thrown (through the service) when the request's `If-None-Match` matches: the answer is a 304. */
export class NotModified extends Error {
  constructor(readonly etag: string) {
    super("not modified");
    this.name = "NotModified";
  }
}

/**
 * The weak ETag of a project-path GET: `W/"<revision>-<22 base64url chars of SHA-256>"` over the
 * absolute URL, the sorted scopes, the user id and the time slot of `now`.
 */
export function projectEntityTag(input: {
  revision: bigint;
  url: URL;
  scopes: readonly string[];
  userId: number;
  now: Date;
}): string {
  const slot = Math.floor(input.now.getTime() / ETAG_TIME_BUCKET_MS);
  const digest = createHash("sha256")
    .update(JSON.stringify([input.url.href, [...input.scopes].sort(), input.userId, slot]))
    .digest("base64url")
    .slice(0, 22);
  return `W/"${input.revision}-${digest}"`;
}

/** A project-path GET in progress: the hook to put in its service context and the tag once known. */
export interface ConditionalRead {
  /**
   * For `ServiceContext.onProjectAuthorized`.
   * @throws NotModified when `If-None-Match` matches; AnsweredFromCache when `cache` keeps the answer.
   */
  onProjectAuthorized: NonNullable<ServiceContext["onProjectAuthorized"]>;
  /** The ETag of the path's project once it passed authorization, else undefined. */
  etag(): string | undefined;
}

/**
 * Prepares the conditional handling of one GET on a path whose `:project_id` is `rawProjectId`.
 * Only the path's own project sets the tag. `If-None-Match: *` never short-cuts (whether the
 * resource exists is known only after the main query). The tag list is compared weakly, as
 * RFC 9110 §13.1.2 requires, by the `fresh` package; a request's `Cache-Control: no-cache` is not
 * passed to it: that directive asks caches to revalidate with the origin, which is what this is
 * (and `fetch` adds it to every request that sets `If-None-Match` itself). With a `cache`, a 200
 * answer kept under the tag is answered instead of the read.
 */
export function conditionalRead(options: {
  headers: IncomingHttpHeaders;
  rawProjectId: string;
  url: URL;
  actor: ServiceContext["actor"];
  now: Date;
  cache?: ResponseCache | undefined;
}): ConditionalRead {
  const projectId = parseIntegerId(options.rawProjectId);
  const ifNoneMatch = options.headers["if-none-match"];
  const canShortCut = ifNoneMatch !== undefined && ifNoneMatch.trim() !== "*";
  let tag: string | undefined;
  return {
    onProjectAuthorized(project) {
      if (project.id !== projectId) return;
      tag = projectEntityTag({
        revision: project.revision,
        url: options.url,
        scopes: options.actor.apiKey.scopes,
        userId: options.actor.user.id,
        now: options.now,
      });
      if (canShortCut && fresh({ "if-none-match": ifNoneMatch }, { etag: tag })) throw new NotModified(tag);
      const kept = options.cache?.get(tag);
      if (kept) throw new AnsweredFromCache(tag, kept);
    },
    etag: () => tag,
  };
}
