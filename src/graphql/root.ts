/**
 * The root types, `Query` and `Mutation`, and the shared types every domain uses (typed errors,
 * activity pages). Domains add their root fields beside their own types; the composition root
 * (src/composition.ts) imports this module and every domain's GraphQL types, then builds the schema.
 *
 * Conventions (see also src/graphql/builder.ts):
 * - Every object type with an identity is a Relay node (src/graphql/node.ts): its `id` is a global id,
 *   and PostHog's own id (the one REST paths and SDKs use) is `databaseId` (or `uuid`). Object-id
 *   inputs take either (src/graphql/ids.ts).
 * - Reads answer null plus a GraphQL error (`extensions.code` = PostHog's code) for expected
 *   failures; mutations answer typed results (`<Mutation>Result` unions of success and errors).
 */
import "./activity-log.graphql.js";
import "./errors.graphql.js";
import "./subscriptions.js";
import { builder } from "./builder.js";

builder.queryType({
  description:
    "Reads. Every field needs a personal API key (`Authorization: Bearer <key>`) with the scope it names; " +
    "only introspection works without one.",
});

builder.mutationType({
  description: "Writes, each with the same rules, scopes and messages as its REST counterpart.",
});
