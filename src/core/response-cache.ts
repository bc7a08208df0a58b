/**
 * Answers kept per process under a key that names everything their body depends on, so that a
 * repeated read is answered without its queries or serialisation. Two doors keep answers:
 * - REST: the 200 answers of conditional project-path GETs (rest/conditional.ts), by their ETag.
 *   Such a GET's body is a function of what its ETag is derived from (the project's revision, which
 *   every committed write to the project's data moves; the absolute URL; the caller's scopes and
 *   user; the minute). Equal tags, equal bodies: serving a kept body for a tag is what a 304 tells
 *   a client to do with its own copy. A route whose body depends on anything else says
 *   `conditional: false` and gets no tag, so it is never kept. The revision a request sees comes
 *   with its key (core/project-revisions.ts, kept by the change feed), never older than this
 *   process's own last write.
 * - GraphQL: query results (graphql/result-cache.ts), by document, variables and key, each checked
 *   against what it was read from before it is served.
 *
 * Bounded by the bytes of the bodies kept (`Limits.responseCacheBytes`, `graphqlResultCacheBytes`;
 * 0 turns a door's off), least recently used out first.
 */

/**
 * A kept answer: the serialised body as UTF-8 bytes (encoded once, not on each answer: a list of 100
 * flags is some 100 KB) and the headers the route added (besides ETag and caching).
 */
export interface CachedAnswer {
  body: Buffer;
  headers: Readonly<Record<string, string>>;
}

/** Answers by key, least recently used out first past `maxBytes` of bodies. */
export class ResponseCache<A extends { body: Buffer } = CachedAnswer> {
  private readonly answers = new Map<string, A>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The answer kept for `key`, if any (it becomes the most recently used). */
  get(key: string): A | undefined {
    const answer = this.answers.get(key);
    if (answer) {
      this.answers.delete(key);
      this.answers.set(key, answer);
    }
    return answer;
  }

  /** Forgets the answer kept for `key`, if any. */
  delete(key: string): void {
    const previous = this.answers.get(key);
    if (!previous) return;
    this.answers.delete(key);
    this.bytes -= previous.body.length;
  }

  /** Keeps `answer` under `key`, unless its body alone passes the bound. */
  set(key: string, answer: A): void {
    const size = answer.body.length;
    if (size > this.maxBytes) return;
    const previous = this.answers.get(key);
    if (previous) {
      this.answers.delete(key);
      this.bytes -= previous.body.length;
    }
    this.answers.set(key, answer);
    this.bytes += size;
    for (const [oldest, kept] of this.answers) {
      if (this.bytes <= this.maxBytes) break;
      this.answers.delete(oldest);
      this.bytes -= kept.body.length;
    }
  }
}
