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
 * The door decides before the route's handler runs (as Unleash's client-feature-toggle controller
 * does): it authorizes the path's project with the route's scope, derives the tag from the
 * revision, and answers 304 with no body when `If-None-Match` matches, or the 200 answer it kept
 * for the tag (./response-cache.ts). It costs at most the key lookup, which reads the project the
 * path names along, and nothing once the key is known (core/auth/authenticate.ts).
 * The invariant this rests on: such a GET's body is a function of the project's rows (or rows whose
 * changes bump every project, as users' shown fields do), the URL, the caller and the clock.
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import fresh from "fresh";
import type { Actor } from "../core/auth/actor.js";
import type { ProjectAccess } from "../core/context.js";
import type { CachedAnswer, ResponseCache } from "../core/response-cache.js";

/** `Cache-Control` of every tagged answer (200 or 304): the client keeps it but asks again each time. */
export const CONDITIONAL_CACHE_CONTROL = "private, no-cache";

/** Width of the time slot an ETag is valid for (ms): how late a time-derived field may be noticed. */
export const ETAG_TIME_BUCKET_MS = 60_000;

/**
 * The weak ETag of a GET on a path whose project (`project`, authorized with the route's scope by
 * the door) is the path's own: `W/"<revision>-<22 base64url chars of SHA-256>"` over the absolute
 * URL, the actor's sorted scopes, its user id and the time slot of `now`.
 */
export function projectEntityTag(input: {
  project: ProjectAccess;
  url: URL;
  actor: Actor;
  now: Date;
}): string {
  const slot = Math.floor(input.now.getTime() / ETAG_TIME_BUCKET_MS);
  const scopes = [...input.actor.apiKey.scopes].sort();
  const digest = createHash("sha256")
    .update(JSON.stringify([input.url.href, scopes, input.actor.user.id, slot]))
    .digest("base64url")
    .slice(0, 22);
  return `W/"${input.project.revision}-${digest}"`;
}

/** What the door answers a conditional GET before its handler runs, or undefined: run it. */
export type ConditionalAnswer = { kind: "not-modified" } | { kind: "kept"; answer: CachedAnswer };

/**
 * What the door answers a GET tagged `etag` without running its handler: 304 when `If-None-Match`
 * matches the tag, else the 200 answer `cache` keeps for it, else undefined. `If-None-Match: *`
 * never short-cuts (whether the resource exists is known only once the handler ran). The tag list
 * is compared weakly, as RFC 9110 §13.1.2 requires, by the `fresh` package; a request's
 * `Cache-Control: no-cache` is not passed to it: that directive asks caches to revalidate with the
 * origin, which is what this is (and `fetch` adds it to every request that sets `If-None-Match`
 * itself).
 */
export function answerBeforeRead(
  headers: IncomingHttpHeaders,
  etag: string,
  cache: ResponseCache | undefined,
): ConditionalAnswer | undefined {
  const ifNoneMatch = headers["if-none-match"];
  if (
    ifNoneMatch !== undefined &&
    ifNoneMatch.trim() !== "*" &&
    fresh({ "if-none-match": ifNoneMatch }, { etag })
  ) {
    return { kind: "not-modified" };
  }
  const kept = cache?.get(etag);
  return kept && { kind: "kept", answer: kept };
}
