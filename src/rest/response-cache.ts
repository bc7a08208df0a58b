/**
 * The 200 answers of conditional project-path GETs (conditional.ts), kept per process by their ETag,
 * so that a repeated read (a dashboard refreshing a list, a client paging back) is answered without
 * its main query or serialisation.
 *
 * Correct by construction, on the invariant 304 answers already rest on: such a GET's body is a
 * function of what its ETag is derived from (the project's revision, which every committed write to
 * the project's data moves; the absolute URL; the caller's scopes and user; the minute). Equal tags,
 * equal bodies: serving a kept body for a tag is what a 304 tells a client to do with its own copy.
 * A route whose body depends on anything else says `conditional: false` and gets no tag, so it is
 * never kept. The revision a request sees comes with its key (core/project-revisions.ts, kept by the
 * change feed), never older than this process's own last write.
 *
 * Bounded by the bytes of the bodies kept (`Limits.responseCacheBytes`; 0 turns it off), least
 * recently used out first.
 */

/**
 * A kept answer: the serialised body as UTF-8 bytes (encoded once, not on each answer: a list of 100
 * flags is some 100 KB) and the headers the route added (besides ETag and caching).
 */
export interface CachedAnswer {
  body: Buffer;
  headers: Readonly<Record<string, string>>;
}

/** Answers by ETag, least recently used out first past `maxBytes` of bodies. */
export class ResponseCache {
  private readonly answers = new Map<string, CachedAnswer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The answer kept for `etag`, if any (it becomes the most recently used). */
  get(etag: string): CachedAnswer | undefined {
    const answer = this.answers.get(etag);
    if (answer) {
      this.answers.delete(etag);
      this.answers.set(etag, answer);
    }
    return answer;
  }

  /** Keeps `answer` under `etag`, unless its body alone passes the bound. */
  set(etag: string, answer: CachedAnswer): void {
    const size = answer.body.length;
    if (size > this.maxBytes) return;
    const previous = this.answers.get(etag);
    if (previous) {
      this.answers.delete(etag);
      this.bytes -= previous.body.length;
    }
    this.answers.set(etag, answer);
    this.bytes += size;
    for (const [oldest, kept] of this.answers) {
      if (this.bytes <= this.maxBytes) break;
      this.answers.delete(oldest);
      this.bytes -= kept.body.length;
    }
  }
}
