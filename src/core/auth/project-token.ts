/**
 * The public project token (`phc_…`) SDKs send with events and flag requests: which project it
 * names. One indexed lookup (`projects.api_token` is unique), as PostHog's
 * `Team.objects.get_team_from_token` (posthog/models/team/team.py), remembered per process by
 * `ProjectTokenCache`: capture runs it on every request, where it was one of the request's few
 * statements (issue 7's capture bench).
 */
import type { PrismaClient } from "../../generated/prisma/client.js";

/** How many tokens a process remembers before it starts over. */
const MAX_CACHED_TOKENS = 10_000;

/**
 * Token → project id, correct by construction: a project's token never changes (nothing updates
 * `api_token`), so an entry can only go stale by its project being deleted, and the caller finds
 * that out when a write for the id fails (every project-owned row's foreign key refuses it) and
 * calls `confirm`. Only the id is kept, never fields that change (name, revision...). Bounded: past
 * `maxEntries` tokens it starts over.
 */
export class ProjectTokenCache {
  private readonly ids = new Map<string, number>();

  constructor(
    private readonly db: PrismaClient,
    private readonly maxEntries = MAX_CACHED_TOKENS,
  ) {}

  /** The id of the project whose public token is `token`, or null when none is. */
  async projectIdOf(token: string): Promise<number | null> {
    const cached = this.ids.get(token);
    if (cached !== undefined) return cached;
    const project = await this.db.project.findUnique({ where: { apiToken: token }, select: { id: true } });
    if (!project) return null;
    if (this.ids.size >= this.maxEntries) this.ids.clear();
    this.ids.set(token, project.id);
    return project.id;
  }

  /** The id `projectIdOf` would give without a statement, or undefined when the token is not held. */
  peek(token: string): number | undefined {
    return this.ids.get(token);
  }

  /**
   * After a request for `token`'s cached project failed: whether the project still exists (one
   * lookup); a deleted project's token is forgotten.
   */
  async confirm(token: string): Promise<boolean> {
    this.ids.delete(token);
    return (await this.projectIdOf(token)) !== null;
  }
}
