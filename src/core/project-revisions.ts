/**
 * The newest committed `projects.revision` of each project this process knows of, kept from the
 * database's change feed (db/change-feed.ts), so that a request can learn a project's revision (what
 * ETags, the flag definitions cache and conditional answers are keyed by) without a statement.
 *
 * Correct by construction: a revision only grows (migration `project_revision`), every commit that
 * moves it is announced with the new value, and values read from the database are merged by
 * maximum, so a read that raced a commit can never put an older value back. While the feed is not
 * `live` (its connection lost), nothing is known and every caller reads the database.
 */
import type { ChangeFeed } from "../db/change-feed.js";
import type { SqlReader } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";

/** Revisions per project, from the change feed and the reads that miss. */
export class ProjectRevisions {
  private readonly known = new Map<number, bigint>();

  constructor(
    private readonly feed: ChangeFeed,
    private readonly reader: SqlReader,
  ) {
    feed.subscribe((change) => {
      if (change.kind === "revision" || change.kind === "change")
        this.note(change.projectId, change.revision);
      // A deleted project announces `access`: forget it with everything else.
      else if (change.kind !== "subject") this.known.clear();
    });
  }

  /** The newest revision of `projectId` this process knows of, or undefined (then read it). */
  peek(projectId: number): bigint | undefined {
    return this.feed.live ? this.known.get(projectId) : undefined;
  }

  /**
   * Returns the newer of `revision` (just read from the database) and the one known, remembering it
   * while the feed is live.
   */
  note(projectId: number, revision: bigint): bigint {
    const known = this.known.get(projectId);
    if (known !== undefined && known >= revision) return known;
    if (this.feed.live) this.known.set(projectId, revision);
    return revision;
  }

  /** The project's revision now: known, or one statement. Null when no project has this id. */
  async current(projectId: number): Promise<bigint | null> {
    const known = this.peek(projectId);
    if (known !== undefined) return known;
    const rows = await this.reader.rows<{ revision: string }>(
      Prisma.sql`SELECT revision::text AS revision FROM projects WHERE id = ${projectId}`,
    );
    return rows[0] ? this.note(projectId, BigInt(rows[0].revision)) : null;
  }
}
