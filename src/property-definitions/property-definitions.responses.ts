/**
 * The property definition as the REST door answers it (PostHog's EnterprisePropertyDefinitionSerializer,
 * `products/enterprise/backend/api/ee_property_definition.py`), written once as zod schemas: the
 * serialiser returns their types, fastify writes bodies with them, OpenAPI names them.
 */
import { z } from "zod";
import {
  serializeUpdateStamp,
  serializeVerification,
  updateStampFields,
  verificationFields,
} from "../event-definitions/definitions-base.responses.js";
import { paginatedListSchema } from "../rest/pagination.js";
import type { PropertyDefinitionRecord } from "./property-definitions.queries.js";

/** A property definition in PostHog's enterprise response shape. */
export const propertyDefinitionSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    tags: z.array(z.string()),
    is_numerical: z.boolean().describe("Whether the property can be aggregated as a number."),
    ...updateStampFields,
    is_seen_on_filtered_events: z
      .boolean()
      .nullable()
      .describe("Whether the property was seen on the list's `event_names`; null when none were given."),
    property_type: z
      .string()
      .nullable()
      .describe("`DateTime`, `String`, `Numeric`, `Boolean` or `Duration`; null when unknown."),
    ...verificationFields,
  })
  .meta({ id: "EnterprisePropertyDefinition" });

/** A property definition in PostHog's response shape (the output of `propertyDefinitionSchema`). */
export type PropertyDefinitionResponse = z.output<typeof propertyDefinitionSchema>;

/** A DRF offset page of property definitions. */
export const propertyDefinitionPageSchema = paginatedListSchema(
  propertyDefinitionSchema,
  "PaginatedEnterprisePropertyDefinitionList",
);

/** `GET seen_together/`'s answer: each event name asked, and whether the property was seen on it. */
export const seenTogetherSchema = z
  .record(z.string(), z.boolean())
  .meta({ id: "PropertyDefinitionSeenTogether" });

/** A property definition in PostHog's response shape (schema: `propertyDefinitionSchema`). */
export function serializePropertyDefinition(
  definition: PropertyDefinitionRecord,
): PropertyDefinitionResponse {
  return {
    id: definition.id,
    name: definition.name,
    description: definition.description,
    tags: definition.tags,
    is_numerical: definition.isNumerical,
    ...serializeUpdateStamp(definition),
    is_seen_on_filtered_events: definition.isSeenOnFilteredEvents,
    property_type: definition.propertyType,
    ...serializeVerification(definition),
  };
}
