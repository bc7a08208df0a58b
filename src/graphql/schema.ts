/**
 * The GraphQL schema: the root types, plus every domain's `*.graphql.ts`, imported for the types and
 * fields they register on the builder. codegen.ts prints it, sorted, to schema/schema.graphql, and
 * test/graphql/schema-drift.test.ts fails when that file is out of date.
 *
 * Conventions (see also src/graphql/builder.ts):
 * - Ids are PostHog's integers (projects, flags, users), the same ids REST paths and SDKs use; there
 *   is no Relay `Node` interface, which would replace them with opaque global ids and load objects
 *   outside the services' scope checks.
 * - Reads answer null plus a GraphQL error (`extensions.code` = PostHog's code) for expected
 *   failures; mutations answer typed results (`<Mutation>Result` unions of success and errors).
 */
import "../feature-flags/feature-flags.graphql.js";
import "../projects/projects.graphql.js";
import "../users/users.graphql.js";
import "./activity-log.graphql.js";
import "./errors.graphql.js";
import { builder } from "./builder.js";

builder.queryType({
  description:
    "Reads. Every field needs a personal API key (`Authorization: Bearer <key>`) with the scope it names; " +
    "only introspection works without one.",
});

builder.mutationType({
  description: "Writes, each with the same rules, scopes and messages as its REST counterpart.",
});

/** The executable schema. */
export const schema = builder.toSchema();
