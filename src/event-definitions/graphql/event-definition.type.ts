/**
 * The `EventDefinition` object type (a node): records as the event-definition service reads them
 * (event-definitions.queries.ts). Field names are camelCase versions of REST's enterprise fields.
 */
import { isUuid } from "../../core/validation.js";
import { builder } from "../../graphql/builder.js";
import { projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { UserRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { EventDefinitionRecord } from "../event-definitions.queries.js";
import { parseUuidObjectId } from "./refs.js";

/** The `EventDefinition` object type. */
export const EventDefinitionRef = builder.objectRef<EventDefinitionRecord>("EventDefinition").implement({
  description:
    "An event name of a project's catalogue (PostHog's EventDefinition with its enterprise fields): filled by " +
    "capture, described, owned, tagged, verified or hidden through the API.",
  extensions: requiresScopes("event_definition:read"),
  fields: (t) => ({
    uuid: t.exposeString("id", { description: "PostHog's UUID of the definition (REST's `:id`)." }),
    name: t.exposeString("name", { description: "The event name, e.g. `$pageview`." }),
    description: t.exposeString("description", { description: "Its description; may be empty." }),
    owner: t.field({
      type: UserRef,
      nullable: true,
      description: "Who owns the definition; null for none.",
      resolve: (definition) => definition.owner,
    }),
    tags: t.exposeStringList("tags", { description: "Its tags, lower-case and sorted." }),
    createdAt: t.expose("createdAt", {
      type: "DateTime",
      nullable: true,
      description:
        "When capture first saw the event; null for a definition created through the API until then.",
    }),
    lastSeenAt: t.expose("lastSeenAt", {
      type: "DateTime",
      nullable: true,
      description: "When capture last saw the event (to the hour); null until captured.",
    }),
    updatedAt: t.expose("updatedAt", {
      type: "DateTime",
      nullable: true,
      description: "When it was last changed through the API.",
    }),
    updatedBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who last changed it through the API.",
      resolve: (definition) => definition.updatedBy,
    }),
    verified: t.exposeBoolean("verified", { description: "Whether the team verified the event." }),
    verifiedAt: t.expose("verifiedAt", {
      type: "DateTime",
      nullable: true,
      description: "When it was verified; null when unverified.",
    }),
    verifiedBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who verified it; null when unverified.",
      resolve: (definition) => definition.verifiedBy,
    }),
    hidden: t.exposeBoolean("hidden", {
      description: "Whether the event is hidden from lists (never when verified).",
    }),
    defaultColumns: t.exposeStringList("defaultColumns", {
      description: "Columns the events table shows for this event.",
    }),
    queryUsage30Day: t.int({
      description:
        "Views of the event in insights over 30 days (REST `:id/metrics`); 0 when none were recorded. " +
        "Scope `event_definition:read`.",
      resolve: (definition) => definition.queryUsage30Day ?? 0,
    }),
  }),
});

implementNode(EventDefinitionRef, {
  localId: (definition) => projectOwnedLocalId(definition.projectId, definition.id),
  // Scope `event_definition:read` and the project check, as `Project.eventDefinition`.
  load: projectOwnedLoader(
    (key) => (isUuid(key) ? key.toLowerCase() : null),
    (ctx, serviceContext, projectId, ids) =>
      ctx.services.eventDefinitions.getMany(serviceContext, projectId, ids),
  ),
});

/** The UUID in an event-definition id input: the UUID itself or the definition's global id; null otherwise. */
export function parseEventDefinitionId(raw: string): string | null {
  return parseUuidObjectId(raw, "EventDefinition");
}
