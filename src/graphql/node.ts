/**
 * Relay's Global Object Identification (relay.dev/graphql/objectidentification.htm), so that clients
 * (Relay, urql's graphcache, Apollo) can refetch any object by its id: the `Node` interface,
 * `Query.node(id:)` and `Query.nodes(ids:)`. Built on plugin-relay's node support: each domain makes
 * its types nodes with `implementNode`, giving the local id (src/graphql/ids.ts) and a batch loader
 * that reads through its service, so a node read is authorised exactly as the typed fields are.
 *
 * Guarantees:
 * - Never the object without the right: every id answers the object, or null with the GraphQL error
 *   the typed field would give (`not_found`, `permission_denied`; `extensions.code` is PostHog's).
 * - A malformed id, or one of a type that is not a node: null with a `not_found` error, never a 500.
 * - Batched: `nodes` loads the ids of one type with one loader call (plugin-relay groups them and
 *   caches them for the request), and loaders read each batch with one service call (for a
 *   project-owned type, one per project): a constant number of SQL statements, not one per id.
 */
import type { ObjectRef } from "@pothos/core";
import { encodeGlobalID, resolveNodes } from "@pothos/plugin-relay";
import type { GraphQLResolveInfo, GraphQLSchema } from "graphql";
import type { ServiceContext } from "../core/context.js";
import { DomainError, NotFoundError } from "../core/errors.js";
import { builder } from "./builder.js";
import type { GraphQLContext } from "./context.js";
import { decodeGlobalId, parseProjectOwnedLocalId } from "./ids.js";
import { requiresScopes } from "./scopes.js";

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

/** What a node loader answers for each local id it was given, in order: the object or why not. */
export type NodeResult<T> = T | DomainError;

/** How a type becomes a node: its local id, and how a batch of local ids is loaded. */
export interface NodeOptions<T> {
  /** The object's local id (see src/graphql/ids.ts); encoded into its global `id`. */
  localId(value: T): string;
  /**
   * Loads objects by local id, answering one result per id, in order: the object, or the DomainError
   * the typed field would answer. A DomainError thrown (e.g. a missing scope) answers every id with it.
   */
  load(localIds: readonly string[], ctx: GraphQLContext): Promise<readonly NodeResult<T>[]>;
}

const NodeInterface = builder.nodeInterfaceRef();

/** The object types that implement `Node`, by name, with their local ids; any other type in an id is "not found". */
const nodeTypes = new Map<string, (value: unknown) => string>();

/** Makes the object type `ref` a node: it implements `Node`, its `id` is global and `node(id:)` loads it. */
export function implementNode<T extends object>(ref: ObjectRef<BuilderTypes, T>, options: NodeOptions<T>) {
  // The schema hands each type's `id` resolver only objects of that type (`withSynchronousNodeIds`).
  nodeTypes.set(ref.name, options.localId as (value: unknown) => string);
  builder.nodeRef<T, string, ObjectRef<BuilderTypes, T>>(ref, {
    id: { resolve: (value) => options.localId(value) },
    // An Error among the results is not a T, but graphql-js answers it as that item's error
    // (null plus the error at its path), which is what a node read promises.
    loadMany: (localIds, ctx) => loadAll(localIds, ctx, options.load) as Promise<readonly T[]>,
  });
}

/**
 * `schema` with the global `id` of every node type resolved synchronously. plugin-relay resolves it
 * through an async wrapper (an id resolver may return a promise there; ours never do), which made a
 * page of 100 flags 100 promises for the compiled execution to wait on. The id is encoded as
 * plugin-relay encodes it (`encodeGlobalID`, no custom encoder is configured), so ids are unchanged.
 * Called once by the composition root on the built schema.
 */
export function withSynchronousNodeIds(schema: GraphQLSchema): GraphQLSchema {
  for (const [typename, localId] of nodeTypes) {
    const type = schema.getType(typename);
    // Read by shape: a test runner may hold a second copy of `graphql` (see server.ts `originalOf`).
    const field = type && "getInterfaces" in type ? type.getFields()["id"] : undefined;
    if (!field) throw new Error(`Node type ${typename} has no id field`);
    field.resolve = (value: unknown) => encodeGlobalID(typename, localId(value));
  }
  return schema;
}

/** Runs `load`, answering every id with a DomainError it throws (a batch-wide refusal). */
async function loadAll<T>(
  localIds: readonly string[],
  ctx: GraphQLContext,
  load: NodeOptions<T>["load"],
): Promise<readonly NodeResult<T>[]> {
  try {
    return await load(localIds, ctx);
  } catch (error) {
    if (error instanceof DomainError) return localIds.map(() => error);
    throw error;
  }
}

/**
 * Loads the `parse`-able ids with one call of `load` and answers the others with `notFound()`:
 * the building block of node loaders. `load` answers one result per key, in order (null: not found).
 */
export async function loadParsed<K, T>(
  localIds: readonly string[],
  parse: (localId: string) => K | null,
  load: (keys: K[]) => Promise<readonly (NodeResult<T> | null)[]>,
  notFound: () => DomainError = () => new NotFoundError(),
): Promise<NodeResult<T>[]> {
  const keys = localIds.map(parse);
  const valid = keys.filter((key): key is K => key !== null);
  const loaded = valid.length > 0 ? await load(valid) : [];
  let next = 0;
  return keys.map((key) => (key === null ? notFound() : (loaded[next++] ?? notFound())));
}

/**
 * The loader of a type a project owns (local id `<projectId>:<key>`): groups the ids by project and
 * loads each group with one `load` call through the service, which checks the project and the scope
 * first. Every id of a project the caller may not use answers that refusal; a malformed id answers
 * `not_found`.
 */
export function projectOwnedLoader<K, T>(
  parseKey: (key: string) => K | null,
  load: (
    ctx: GraphQLContext,
    serviceContext: ServiceContext,
    projectId: number,
    keys: K[],
  ) => Promise<readonly (T | null)[]>,
): NodeOptions<T>["load"] {
  return async (localIds, ctx) => {
    const serviceContext = await ctx.serviceContext();
    const results: NodeResult<T>[] = localIds.map(() => new NotFoundError());
    const byProject = new Map<number, { localIds: string[]; indexes: number[] }>();
    localIds.forEach((localId, index) => {
      const owned = parseProjectOwnedLocalId(localId);
      if (owned === null) return;
      const group = byProject.get(owned.projectId) ?? { localIds: [], indexes: [] };
      group.localIds.push(owned.key);
      group.indexes.push(index);
      byProject.set(owned.projectId, group);
    });
    await Promise.all(
      [...byProject].map(async ([projectId, group]) => {
        const loaded = await loadAll(group.localIds, ctx, (keys) =>
          loadParsed(keys, parseKey, (parsed) => load(ctx, serviceContext, projectId, parsed)),
        );
        group.indexes.forEach((index, i) => {
          results[index] = loaded[i] ?? new NotFoundError();
        });
      }),
    );
    return results;
  };
}

/**
 * The nodes of `ids`, in order: each the object, or a DomainError for graphql-js to answer at its
 * place. Authenticates first, so a request without a valid key gets the same error as any field.
 */
async function loadNodes(
  ids: readonly string[],
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
): Promise<unknown[]> {
  await ctx.serviceContext();
  const decoded = ids.map((id) => {
    const global = decodeGlobalId(id);
    return global !== null && nodeTypes.has(global.typename)
      ? { typename: global.typename, id: global.localId }
      : null;
  });
  const loaded = await resolveNodes(builder, ctx, info, decoded);
  return decoded.map((global, index) => (global === null ? new NotFoundError() : loaded[index]));
}

builder.queryFields((t) => ({
  node: t.field({
    type: NodeInterface,
    nullable: true,
    description:
      "Any object by its global `id` (Relay's refetch), with the scope and project access its own field " +
      "needs. Null with a `not_found` error for a malformed or unknown id, `permission_denied` where the key " +
      "may not read it.",
    // Any valid key: each object then needs the scopes its type declares (`extensions.scopes`).
    extensions: requiresScopes(),
    args: { id: t.arg.id({ required: true, description: "The object's global `id`." }) },
    resolve: async (_root, args, ctx, info) => (await loadNodes([args.id], ctx, info))[0],
  }),
  nodes: t.field({
    type: [NodeInterface],
    nullable: { list: true, items: true },
    description:
      "Objects by global `id`, in the order asked, each as `node(id:)` answers it (null with its own error " +
      "where it cannot be read). Ids of one type and project are read together: a constant number of SQL " +
      "statements, however many ids. Null only without a valid key.",
    extensions: requiresScopes(),
    args: { ids: t.arg.idList({ required: true, description: "Global ids, any types mixed." }) },
    resolve: (_root, args, ctx, info) => loadNodes(args.ids, ctx, info),
  }),
}));
