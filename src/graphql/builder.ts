/**
 * The one Pothos schema builder. It defines no object types: each domain's `graphql/` folder adds its
 * own, and the composition root (src/composition.ts) imports every domain's types and builds the
 * schema (`builder.toSchema()`, hayes/pothos "app layout"). What lives here is the
 * plumbing every domain shares: the plugins, the scalars and the nullability defaults.
 *
 * Plugin order matters: the errors plugin comes before dataloader so that its field builders
 * (`t.loadable`) honour `errors` options (plugin-errors README). No Prisma plugin: resolvers reach
 * data only through the services, whose reads are the same for both doors.
 */
import SchemaBuilder from "@pothos/core";
import DataloaderPlugin from "@pothos/plugin-dataloader";
import ErrorsPlugin from "@pothos/plugin-errors";
import RelayPlugin from "@pothos/plugin-relay";
import { DateTimeResolver, JSONResolver, UUIDResolver } from "graphql-scalars";
import type { GraphQLContext } from "./context.js";

/** What connection resolvers add to a page: its total (see graphql/offset-connection.ts). */
export interface ConnectionTotals {
  totalCount?: number;
}

/** Resolves a connection's `totalCount` field. */
export function connectionTotalCount(connection: ConnectionTotals): number {
  return connection.totalCount ?? 0;
}

/**
 * The builder of the Signalbox schema.
 *
 * Fields are non-null unless declared otherwise (`defaultFieldNullability: false`): the services
 * return complete records, so "non-null" is the truth for almost every field and clients get precise
 * types. A field is declared nullable on purpose where its value can be absent (a deleted creator,
 * a flag never called) or where it needs a scope of its own (`organization:read`, `user:read`,
 * `activity_log:read`): a missing scope then nulls that field alone, with an error beside it,
 * instead of wiping its parent. Root fields are nullable for the same reason.
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Connection: ConnectionTotals;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
    UUID: { Input: string; Output: string };
  };
}>({
  plugins: [ErrorsPlugin, RelayPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: "omit",
    cursorType: "String",
    // `Node`, `node(id:)` and `nodes(ids:)` are src/graphql/node.ts's: its own root fields answer a
    // malformed id per item with a GraphQL error, where the plugin's would fail the whole field.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodeTypeOptions: {
      description:
        "An object with a global `id`: `node(id:)` refetches it (Relay's Global Object Identification).",
    },
    idFieldOptions: {
      description:
        "The global id: opaque, stable, unique across types. Pass it to `node(id:)`, or where an input " +
        "takes this object's id. PostHog's own id is `databaseId` (or `uuid`).",
    },
    edgesFieldOptions: { nullable: false, description: "The items of this page, each with its cursor." },
    nodeFieldOptions: { nullable: false, description: "The item." },
    cursorFieldOptions: {
      description: "An opaque position: pass it as `after` or `before` to page from here.",
    },
    pageInfoFieldOptions: { description: "Where this page sits in the whole list." },
    pageInfoTypeOptions: { description: "Where a page sits in a list (Relay cursor connections)." },
    hasNextPageFieldOptions: { description: "Whether items follow this page." },
    hasPreviousPageFieldOptions: { description: "Whether items precede this page." },
    startCursorFieldOptions: { description: "The cursor of the page's first item; null for an empty page." },
    endCursorFieldOptions: { description: "The cursor of the page's last item; null for an empty page." },
    firstArgOptions: { description: "Return at most this many items from the start (or from `after`)." },
    afterArgOptions: { description: "Return items after this cursor." },
    lastArgOptions: { description: "Return at most this many items from the end (or from `before`)." },
    beforeArgOptions: { description: "Return items before this cursor." },
  },
});

builder.addScalarType("DateTime", DateTimeResolver, {
  description: "An instant in time, as an ISO-8601 string in UTC (e.g. `2025-11-03T09:12:45.123Z`).",
});
builder.addScalarType("JSON", JSONResolver, {
  description: "Any JSON value, passed through as stored (PostHog's snake_case shapes where noted).",
});
builder.addScalarType("UUID", UUIDResolver, { description: "A UUID string (RFC 9562)." });
