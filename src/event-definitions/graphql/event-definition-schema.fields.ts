/**
 * `EventDefinition`'s schema fields: `schemaPropertyGroups` (the groups attached to it) and
 * `schemaProperties` (their properties merged, as the code generators read them). One per-request
 * loader serves both for every definition of a response: the definitions asked for in one tick cost
 * one SQL statement per project, however many a page shows.
 */
import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import { builder } from "../../graphql/builder.js";
import type { GraphQLContext } from "../../graphql/context.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { EventDefinitionRecord } from "../event-definitions.queries.js";
import type { SchemaProperty, SchemaPropertyGroupRecord } from "../event-schemas.queries.js";
import { mergeSchemaProperties } from "../rules/schema-properties.js";
import { SchemaPropertyTypeEnum } from "./enums.js";
import { EventDefinitionRef } from "./event-definition.type.js";
import { SchemaPropertyGroupRef } from "./schema-property-group.type.js";

/** An event definition by its project and UUID. */
interface DefinitionKey {
  projectId: number;
  id: string;
}

/** The request's loader of event definitions' groups, batched per project. */
const groupsLoader = createContextCache(
  (ctx: GraphQLContext) =>
    new DataLoader<DefinitionKey, SchemaPropertyGroupRecord[], string>(
      async (keys) => {
        const serviceContext = await ctx.serviceContext();
        const byProject = new Map<number, string[]>();
        for (const key of keys)
          byProject.set(key.projectId, [...(byProject.get(key.projectId) ?? []), key.id]);
        const found = new Map<string, SchemaPropertyGroupRecord[]>();
        await Promise.all(
          [...byProject].map(async ([projectId, ids]) => {
            const lists = await ctx.services.eventSchemas.groupsOfEventDefinitions(
              serviceContext,
              projectId,
              ids,
            );
            for (const [i, id] of ids.entries()) found.set(`${projectId}:${id}`, lists[i] ?? []);
          }),
        );
        return keys.map((key) => found.get(`${key.projectId}:${key.id}`) ?? []);
      },
      { cacheKeyFn: (key) => `${key.projectId}:${key.id}` },
    ),
);

/** The groups attached to `definition`, through the request's loader. */
const groupsOf = (definition: EventDefinitionRecord, ctx: GraphQLContext) =>
  groupsLoader(ctx).load({ projectId: definition.projectId, id: definition.id });

/** The `SchemaPropertyDeclaration` object type: one merged property of an event's schema. */
const SchemaPropertyDeclarationRef = builder
  .objectRef<SchemaProperty>("SchemaPropertyDeclaration")
  .implement({
    description:
      "One property an event's schema declares, merged over its property groups as the code generators read it: " +
      "one per name, required only when every group declaring it requires it.",
    fields: (t) => ({
      name: t.exposeString("name", { description: "The property name." }),
      propertyType: t.field({
        type: SchemaPropertyTypeEnum,
        description: "Its type (the first group's, by group name, when groups disagree).",
        resolve: (property) => property.propertyType,
      }),
      isRequired: t.exposeBoolean("isRequired", {
        description: "Whether events must carry it: every group declaring it requires it.",
      }),
    }),
  });

builder.objectFields(EventDefinitionRef, (t) => ({
  schemaPropertyGroups: t.field({
    type: [SchemaPropertyGroupRef],
    description:
      "The schema property groups attached to the event (REST's `event_schemas/?event_definition=`), by name. " +
      "Batched: one SQL statement per project for every definition of a response. Scope `event_definition:read`.",
    extensions: requiresScopes("event_definition:read"),
    resolve: (definition, _args, ctx) => groupsOf(definition, ctx),
  }),
  schemaProperties: t.field({
    type: [SchemaPropertyDeclarationRef],
    description:
      "The properties the event's schema declares: its groups' properties, one per name, by name (what the " +
      "code generators read). Shares `schemaPropertyGroups`' loader. Scope `event_definition:read`.",
    extensions: requiresScopes("event_definition:read"),
    resolve: async (definition, _args, ctx) =>
      mergeSchemaProperties(
        (await groupsOf(definition, ctx)).flatMap((group) =>
          group.properties.map((p) => ({
            name: p.name,
            propertyType: p.propertyType,
            isRequired: p.isRequired,
          })),
        ),
      ),
  }),
}));
