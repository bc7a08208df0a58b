/**
 * The reads every domain whose project records are named by UUID offers both doors (event and
 * property definitions, schema property groups, event schemas): one record by id and a batch in the
 * asked order, each after `authorizeProject` with the domain's read scope, and the same lookup
 * without the check (`read`) for a write's transaction. A malformed id names no record (404), as
 * DRF's `get_object_or_404` answers for a UUID path that is not one.
 */
import type { QueryClient } from "../db/sql-reader.js";
import { authorizeProject } from "./auth/access.js";
import type { Scope } from "./auth/scopes.js";
import type { ServiceContext } from "./context.js";
import { NotFoundError } from "./errors.js";
import { inUuidOrder, isUuid } from "./validation.js";

/** The reads of one kind of UUID-named project record (see the module comment). */
export interface UuidRecordReads<R> {
  /** Record `id` of the project, unchecked (inside a write). @throws NotFoundError for a non-UUID id or none. */
  read(db: QueryClient, projectId: number, id: string): Promise<R>;
  /**
   * Record `id` of the project, after the read scope's check.
   * @throws NotFoundError for a non-UUID id or one of no record of this project; PermissionDeniedError.
   */
  get(ctx: ServiceContext, projectId: number, id: string): Promise<R>;
  /** Records of the project by UUID, in the order asked, null where none (GraphQL's node loads). */
  getMany(ctx: ServiceContext, projectId: number, ids: readonly string[]): Promise<(R | null)[]>;
}

/**
 * The reads of records that `select` finds by UUID (lower-case ids, in any order), checked with
 * `scope` (e.g. `event_definition:read`).
 */
export function uuidRecordReads<R extends { id: string }>(
  scope: Scope,
  select: (db: QueryClient, projectId: number, ids: readonly string[]) => Promise<R[]>,
): UuidRecordReads<R> {
  const wanted = (ids: readonly string[]) => ids.filter(isUuid).map((id) => id.toLowerCase());
  async function read(db: QueryClient, projectId: number, id: string): Promise<R> {
    if (!isUuid(id)) throw new NotFoundError();
    const [record] = await select(db, projectId, [id.toLowerCase()]);
    if (!record) throw new NotFoundError();
    return record;
  }
  return {
    read,
    async get(ctx, projectId, id) {
      await authorizeProject(ctx, projectId, scope);
      return read(ctx.db, projectId, id);
    },
    async getMany(ctx, projectId, ids) {
      await authorizeProject(ctx, projectId, scope);
      return inUuidOrder(ids, await select(ctx.db, projectId, wanted(ids)));
    },
  };
}
