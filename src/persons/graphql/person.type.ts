/**
 * The `Person` object type: a person as the person service reads it (persons.queries.ts), with its
 * distinct ids read in the same statement, and the connection of its recent events. A node: its
 * global id names its project and uuid, and `node(id:)` reads it with the service's batch read
 * (one statement per project).
 */
import { DEFAULT_PAGE_SIZE } from "../../config.js";
import { builder } from "../../graphql/builder.js";
import { projectOwnedLocalId } from "../../graphql/ids.js";
import { forwardPageSize, keysetConnection } from "../../graphql/keyset-connection.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { PersonRecord } from "../persons.queries.js";
import { eventCursor } from "../persons.service.js";
import { identifiedFirst, personDisplayName } from "../rules/display-name.js";
import { pythonUuid } from "../rules/person-lookup.js";
import { EventRef } from "./event.type.js";

/** The `Person` object type. */
export const PersonRef = builder.objectRef<PersonRecord>("Person").implement({
  description:
    "A person of a project (PostHog's Person): the profile one or more distinct ids share, with its properties.",
  extensions: requiresScopes("person:read"),
  fields: (t) => ({
    uuid: t.expose("uuid", {
      type: "UUID",
      description: "The person's public id (REST's `:id`, events' `person_id`).",
    }),
    name: t.string({
      description:
        "Display name (REST's `name`): the first set property of email, Email, $email, name, Name, username, " +
        "Username, UserName (as text), else an identified distinct id, else the first, else the integer id.",
      resolve: (person) => {
        const name = personDisplayName(person.id, person.properties, person.distinctIds);
        return typeof name === "string" ? name : JSON.stringify(name);
      },
    }),
    distinctIds: t.stringList({
      description:
        "Its distinct ids, identified ones first (at most 1000). Read with the person (no extra SQL).",
      resolve: (person) => identifiedFirst(person.distinctIds),
    }),
    properties: t.expose("properties", { type: "JSON", description: "Its properties (free-form JSON)." }),
    isIdentified: t.exposeBoolean("isIdentified", {
      description: "Whether an `$identify` (or alias, merge) tied it to a known id.",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was first seen." }),
    lastSeenAt: t.expose("lastSeenAt", {
      type: "DateTime",
      nullable: true,
      description: "When its latest event happened; null without events.",
    }),
    events: t.connection(
      {
        type: EventRef,
        nullable: true,
        description:
          `Its recent events, newest first: every event sent with one of its distinct ids. ${DEFAULT_PAGE_SIZE} per ` +
          "page unless `first` says otherwise (clamped to the configured page size); pages forward only " +
          "(`first`/`after`). Scope `person:read`. One SQL statement per page and person: meant for one " +
          "person, not for every person of a list.",
        extensions: requiresScopes("person:read"),
        resolve: async (person, args, ctx) => {
          const page = await ctx.services.persons.events(await ctx.serviceContext(), person, {
            size: forwardPageSize(args, ctx.limits.maxPageSize),
            cursor: args.after ?? null,
          });
          return keysetConnection(page.results, eventCursor, {
            hasNextPage: page.next !== null,
            hasPreviousPage: args.after != null,
          });
        },
      },
      { name: "PersonEventConnection", description: "A page of a person's events, newest first." },
      { name: "PersonEventEdge", description: "An event in a page of a person's events." },
    ),
  }),
});

implementNode(PersonRef, {
  localId: (person) => projectOwnedLocalId(person.projectId, person.uuid),
  // Scope `person:read` and the project check, as `Project.person`.
  load: projectOwnedLoader(
    (key) => {
      const uuid = pythonUuid(key);
      return uuid === null ? null : { uuid };
    },
    (ctx, serviceContext, projectId, lookups) =>
      ctx.services.persons.getMany(serviceContext, projectId, lookups),
  ),
});
