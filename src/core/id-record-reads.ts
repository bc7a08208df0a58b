/**
 * The reads every domain whose project records are named by integer id offers both doors (webhooks,
 * scheduled changes): a page, one record and a batch in the asked order, each after
 * `authorizeProject` with the domain's read scope, and the same one-record lookup without the check
 * (`find`) for the domain's writes, which check their own scope first. The UUID-named twin is
 * uuid-record-reads.ts.
 */
import { authorizeProject } from "./auth/access.js";
import type { Scope } from "./auth/scopes.js";
import type { ServiceContext } from "./context.js";
import { NotFoundError } from "./errors.js";
import { inIdOrder } from "./validation.js";

/** The database client the reads run on (the context's Prisma client). */
type Db = ServiceContext["db"];

/** A page of records: the rows asked for, and how many match in all. */
export interface RecordPage<R> {
  count: number;
  results: R[];
}

/** The read model's statements the reads run, each filtering by the project. */
export interface IdRecordQueries<R, Q extends unknown[]> {
  /** Record `id` of the project, or null. */
  findOne(db: Db, projectId: number, id: number): Promise<R | null>;
  /** The project's records among `ids`, in any order. */
  selectMany(db: Db, projectId: number, ids: readonly number[]): Promise<R[]>;
  /** One page of the project's records for `query` (e.g. `[filters, page]` or `[page]`). */
  selectPage(db: Db, projectId: number, ...query: Q): Promise<RecordPage<R>>;
}

/** The reads of one kind of integer-named project record (see the module comment). */
export interface IdRecordReads<R, Q extends unknown[]> {
  /** Record `id` of the project, unchecked (for a write that checked its scope). @throws NotFoundError */
  find(ctx: ServiceContext, projectId: number, id: number): Promise<R>;
  /** One page of the project's records for `query`: `{count, results}`. @throws as `authorizeProject` */
  list(ctx: ServiceContext, projectId: number, ...query: Q): Promise<RecordPage<R>>;
  /** Record `id` of the project. @throws NotFoundError for none; as `authorizeProject` */
  get(ctx: ServiceContext, projectId: number, id: number): Promise<R>;
  /**
   * Records of the project by id, in the order asked, null where none (GraphQL's node loads): one
   * statement after the check. @throws as `authorizeProject`
   */
  getMany(ctx: ServiceContext, projectId: number, ids: readonly number[]): Promise<(R | null)[]>;
}

/** The reads of records that `queries` read, the checked ones with `scope` (e.g. `webhook:read`). */
export function idRecordReads<R extends { id: number }, Q extends unknown[]>(
  scope: Scope,
  queries: IdRecordQueries<R, Q>,
): IdRecordReads<R, Q> {
  async function find(ctx: ServiceContext, projectId: number, id: number): Promise<R> {
    const found = await queries.findOne(ctx.db, projectId, id);
    if (!found) throw new NotFoundError();
    return found;
  }
  return {
    find,
    async list(ctx, projectId, ...query) {
      const project = await authorizeProject(ctx, projectId, scope);
      return queries.selectPage(ctx.db, project.id, ...query);
    },
    async get(ctx, projectId, id) {
      await authorizeProject(ctx, projectId, scope);
      return find(ctx, projectId, id);
    },
    async getMany(ctx, projectId, ids) {
      await authorizeProject(ctx, projectId, scope);
      return inIdOrder(ids, await queries.selectMany(ctx.db, projectId, ids));
    },
  };
}
