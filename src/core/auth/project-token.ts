/**
 * The public project token (`phc_…`) SDKs send with events and flag requests: which project it
 * names. One indexed lookup (`projects.api_token` is unique), as PostHog's
 * `Team.objects.get_team_from_token` (posthog/models/team/team.py), remembered per process by
 * `ProjectTokenCache`: capture runs it on every request, where it was one of the request's few
 * statements (issue 7's capture bench). A string that cannot be a token names no project without
 * a statement (`isPossibleProjectToken`), so whatever a request puts where a token goes (a NUL,
 * which PostgreSQL refuses in text) is answered as an unknown token, never a database error.
 */
import type { ChangeFeed } from "../../db/change-feed.js";
import type { PrismaClient } from "../../generated/prisma/client.js";

/** How many tokens a process remembers before it starts over. */
const MAX_CACHED_TOKENS = 10_000;

/** The longest token capture takes (rust/capture/src/token.rs `validate_token`, `TooLong`). */
const MAX_TOKEN_LENGTH = 64;

/** Printable ASCII without spaces: what every issued token is made of. */
const TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;

/**
 * Whether `token` could be a project token, checked before any lookup as PostHog's capture checks
 * one (rust/capture/src/token.rs `validate_token`: not empty, at most 64 characters, ASCII, no NUL,
 * not a personal API key `phx_…`), and here also without spaces or control characters, which no
 * issued token holds (`phc_` + base62). Any other string names no project: an unknown token.
 */
function isPossibleProjectToken(token: string): boolean {
  return token.length <= MAX_TOKEN_LENGTH && TOKEN_CHARACTERS.test(token) && !token.startsWith("phx_");
}

/**
 * Token → project id, one per process (`DataAccess.tokens`), correct by construction on the
 * database's change feed (db/change-feed.ts), as the actor cache is: a project whose own fields
 * change (its token rotated) or that is deleted is announced as an `access` change naming it, and
 * its tokens are forgotten, this process's own writes before their COMMIT returns, other processes'
 * within the network's latency; so an old token is refused from then on, on every path that names
 * a project by token. A lookup that raced such an announcement is not kept (`generation`), and
 * nothing is served or kept while the feed is not live. Only the id is kept, never fields that
 * change (name, revision...). Bounded: past `maxEntries` tokens it starts over.
 */
export class ProjectTokenCache {
  private readonly ids = new Map<string, number>();
  /** Moves with every announcement that forgets tokens: a lookup begun before it is not kept. */
  private generation = 0;

  constructor(
    private readonly db: PrismaClient,
    private readonly feed: ChangeFeed,
    private readonly maxEntries = MAX_CACHED_TOKENS,
  ) {
    feed.subscribe((change) => {
      if (change.kind === "revision" || change.kind === "change" || change.kind === "subject") return;
      // A key or a user names no token.
      if (change.kind === "access" && (change.keyId !== undefined || change.userId !== undefined)) return;
      this.generation++;
      if (change.kind === "access" && change.projectId !== undefined) this.forgetProject(change.projectId);
      else this.ids.clear();
    });
  }

  /**
   * The id of the project whose public token is `token`, or null when none is (or none could be):
   * at once (no promise, no statement) when the token is held, else read.
   */
  projectIdOf(token: string): number | null | Promise<number | null> {
    if (!isPossibleProjectToken(token)) return null;
    return this.peek(token) ?? this.read(token);
  }

  /** The id `projectIdOf` would give without a statement, or undefined when the token is not held. */
  peek(token: string): number | undefined {
    return this.feed.live ? this.ids.get(token) : undefined;
  }

  /** `projectIdOf` for a token not held: one lookup, kept when no change intervened. */
  private async read(token: string): Promise<number | null> {
    const generation = this.generation;
    const project = await this.db.project.findUnique({ where: { apiToken: token }, select: { id: true } });
    if (!project) return null;
    if (generation === this.generation && this.feed.live) {
      if (this.ids.size >= this.maxEntries) this.ids.clear();
      this.ids.set(token, project.id);
    }
    return project.id;
  }

  /**
   * After a request for `token`'s cached project failed: whether the project still exists (one
   * lookup); a deleted project's token is forgotten. For a deletion that committed while the request
   * ran, before its announcement could reach the cache.
   */
  async confirm(token: string): Promise<boolean> {
    this.ids.delete(token);
    return (await this.projectIdOf(token)) !== null;
  }

  /** Forgets the tokens of `projectId`: one pass over the held tokens (at most `maxEntries`). */
  private forgetProject(projectId: number): void {
    for (const [token, id] of this.ids) if (id === projectId) this.ids.delete(token);
  }
}
