/**
 * The `PropertyDefinition` object type (a node): records as the property-definition service reads
 * them (property-definitions.queries.ts, users and tags in the same statement). Field names are
 * camelCase versions of REST's enterprise fields, plus the kind and group type REST filters by.
 */
import { isUuid } from "../../core/validation.js";
import { parseUuidObjectId } from "../../event-definitions/graphql/refs.js";
import { builder } from "../../graphql/builder.js";
import { projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { UserRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { PropertyDefinitionRecord } from "../property-definitions.queries.js";
import { kindOf, type PropertyType } from "../property-definitions.schemas.js";
import { PropertyDefinitionKindEnum, PropertyValueTypeEnum } from "./enums.js";

/** The `PropertyDefinition` object type. */
export const PropertyDefinitionRef = builder
  .objectRef<PropertyDefinitionRecord>("PropertyDefinition")
  .implement({
    description:
      "A property name of a project's catalogue, per kind of owner (PostHog's PropertyDefinition with its " +
      "enterprise fields): filled by capture with an inferred type, described, tagged, typed, verified or hidden " +
      "through the API.",
    extensions: requiresScopes("property_definition:read"),
    fields: (t) => ({
      uuid: t.exposeString("id", { description: "PostHog's UUID of the definition (REST's `:id`)." }),
      name: t.exposeString("name", { description: "The property name, e.g. `$browser`." }),
      kind: t.field({
        type: PropertyDefinitionKindEnum,
        description: "Whose property it is: events', persons', a group type's or sessions'.",
        resolve: (definition) => kindOf(definition.type),
      }),
      groupTypeIndex: t.int({
        nullable: true,
        description: "The group type (0–4) of a group property; null for other kinds.",
        resolve: (definition) => (definition.groupTypeIndex >= 0 ? definition.groupTypeIndex : null),
      }),
      description: t.exposeString("description", { description: "Its description; may be empty." }),
      tags: t.exposeStringList("tags", { description: "Its tags, lower-case and sorted." }),
      isNumerical: t.exposeBoolean("isNumerical", {
        description: "Whether its values can be aggregated as numbers (true when `propertyType` is NUMERIC).",
      }),
      propertyType: t.field({
        type: PropertyValueTypeEnum,
        nullable: true,
        description:
          "The type of its values, inferred by capture from the first value seen or set through the API.",
        resolve: (definition) => definition.propertyType as PropertyType | null,
      }),
      isSeenOnFilteredEvents: t.exposeBoolean("isSeenOnFilteredEvents", {
        nullable: true,
        description:
          "Whether it was seen on the list's `eventNames` filter; null when the list was given none, and " +
          "outside lists.",
      }),
      verified: t.exposeBoolean("verified", { description: "Whether the team verified the property." }),
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
        description: "Whether the property is hidden from lists (never when verified).",
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
    }),
  });

implementNode(PropertyDefinitionRef, {
  localId: (definition) => projectOwnedLocalId(definition.projectId, definition.id),
  // Scope `property_definition:read` and the project check, as `Project.propertyDefinition`.
  load: projectOwnedLoader(
    (key) => (isUuid(key) ? key.toLowerCase() : null),
    (ctx, serviceContext, projectId, ids) =>
      ctx.services.propertyDefinitions.getMany(serviceContext, projectId, ids),
  ),
});

/** The UUID in a property-definition id input: the UUID itself or the definition's global id; null otherwise. */
export function parsePropertyDefinitionId(raw: string): string | null {
  return parseUuidObjectId(raw, "PropertyDefinition");
}
