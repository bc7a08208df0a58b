/**
 * Inputs of the event-schema operations, in PostHog's field names (the REST contract; GraphQL maps
 * its camelCase inputs onto these): schema property groups (create, PATCH, PUT, with their nested
 * `properties`) and event schemas (the link of an event definition to a group). Read-only fields
 * in a body (`id`, `created_at`, `events`, `created_by`, a property's `id`) and unknown fields are
 * ignored, as DRF does; string fields are trimmed, as DRF's `CharField` does.
 * Source: `posthog/api/schema_property_group.py` (SchemaPropertyGroupSerializer,
 * SchemaPropertyGroupPropertySerializer), `posthog/api/event_schema.py` (EventSchemaSerializer),
 * `posthog/models/schema.py`; posthog-behavior.md §6.4.
 */
import { z } from "zod";
import { DomainError } from "../core/errors.js";
import { checkStorableString } from "../core/json-input.js";
import { drf, isUuid, pythonType } from "../core/validation.js";

/**
 * The types a schema property can declare: the names PostHog's code generators map
 * (`posthog/api/event_definition_generators/*.py` `map_property_type`), the same names capture
 * infers for property definitions.
 */
export const PROPERTY_TYPES = ["String", "Numeric", "Boolean", "DateTime", "Array", "Object"] as const;
/** One of `PROPERTY_TYPES`. */
export type PropertyType = (typeof PROPERTY_TYPES)[number];

/** Longest group or property name (`CharField(max_length=400)`). */
export const SCHEMA_NAME_MAX_LENGTH = 400;

/** A property name PostHog accepts: a letter or `_`, then letters, digits and `_` (`PROPERTY_NAME_REGEX`). */
const PROPERTY_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** PostHog's message for a property name that is not an identifier (`validate_name`). */
export const PROPERTY_NAME_MESSAGE =
  "Property name must start with a letter or underscore and contain only letters, numbers, and underscores";

/** A required, trimmed, non-blank name of at most 400 characters (DRF's `CharField`). */
const name = () => z.string().trim().min(1).max(SCHEMA_NAME_MAX_LENGTH);

/**
 * DRF's null and surrogate character validators, which run before a serializer's `validate_<field>`:
 * a property name holding one is refused for that, not for not being an identifier.
 */
function storable(value: string, ctx: z.core.$RefinementCtx<string>): void {
  try {
    checkStorableString(value, null);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    ctx.addIssue({ code: "custom", message: error.message, params: { code: error.code } });
  }
}

/** One property of a group as a body gives it. */
export interface SchemaPropertyInput {
  name: string;
  property_type: PropertyType;
  is_required: boolean;
  description: string;
}

/**
 * One entry of `properties`: `name` (an identifier, see `PROPERTY_NAME`), `property_type` (one of
 * `PROPERTY_TYPES`), `is_required` (default false), `description` (default empty). An `id` is
 * ignored: PostHog's property serializer has it read-only, so every write recreates the properties.
 */
export const schemaPropertySchema = z
  .object({
    name: name().superRefine(storable).regex(PROPERTY_NAME, { message: PROPERTY_NAME_MESSAGE }),
    // A string first, so a missing or null type reads `required`/`null` as DRF's ChoiceField says.
    property_type: z.string().pipe(z.enum(PROPERTY_TYPES)),
    is_required: drf.boolean().optional(),
    description: z.string().optional(),
  })
  .transform(
    (p): SchemaPropertyInput => ({
      name: p.name,
      property_type: p.property_type,
      is_required: p.is_required ?? false,
      description: p.description ?? "",
    }),
  );

/** A validated group body: every field optional (PATCH; absent keeps). */
export interface SchemaPropertyGroupUpdate {
  name?: string;
  description?: string;
  /** When present, the group's whole new property list. */
  properties?: SchemaPropertyInput[];
}

/** A validated create or PUT body: `name` required. */
export type SchemaPropertyGroupCreate = SchemaPropertyGroupUpdate & { name: string };

const groupFields = {
  description: z.string().optional(),
  properties: z.array(schemaPropertySchema).optional(),
};

/** `POST schema_property_groups/`: `name` (required, unique in the project), `description`, `properties`. */
export const createSchemaPropertyGroupSchema = z.object({
  name: name(),
  ...groupFields,
}) as z.ZodType<SchemaPropertyGroupCreate>;

/** `PUT schema_property_groups/:id/`: as create (DRF's full update requires `name`). */
export const replaceSchemaPropertyGroupSchema = createSchemaPropertyGroupSchema;

/** `PATCH schema_property_groups/:id/`: any of `name`, `description`, `properties` (which replaces the list). */
export const updateSchemaPropertyGroupSchema = z.object({
  name: name().optional(),
  ...groupFields,
}) as z.ZodType<SchemaPropertyGroupUpdate>;

/**
 * A `PrimaryKeyRelatedField` over a UUID key, as DRF answers it: missing `required`, null `null`,
 * a string that is no UUID Django's `“<value>” is not a valid UUID.`, any other type
 * `Incorrect type. Expected pk value, received <type>.`; a UUID comes out lower-case. Whether it
 * names an object of the project is the service's check (`does_not_exist`).
 */
function uuidPrimaryKey(description: string) {
  return z
    .unknown()
    .meta({ type: "string", format: "uuid", description })
    .transform((value, ctx): string => {
      const fail = (message: string, code: string) => {
        ctx.addIssue({ code: "custom", message, params: { code } });
        return z.NEVER;
      };
      if (value === undefined) return fail("This field is required.", "required");
      if (value === null) return fail("This field may not be null.", "null");
      if (typeof value !== "string") {
        return fail(`Incorrect type. Expected pk value, received ${pythonType(value)}.`, "incorrect_type");
      }
      if (!isUuid(value)) return fail(`“${value}” is not a valid UUID.`, "invalid_input");
      return value.toLowerCase();
    });
}

/** A validated event-schema body. */
export interface EventSchemaCreate {
  /** The event definition's UUID. */
  event_definition: string;
  /** The schema property group's UUID. */
  property_group_id: string;
}

/** `POST event_schemas/`: `event_definition` and `property_group_id`, each a UUID of the project's. */
export const createEventSchemaSchema = z.object({
  event_definition: uuidPrimaryKey("The event definition's UUID."),
  property_group_id: uuidPrimaryKey("The schema property group's UUID."),
}) as z.ZodType<EventSchemaCreate>;

/** The event-schema list's filter: `event_definition`, an event definition's UUID (absent: all). */
export const eventSchemaListFiltersSchema = z.object({
  event_definition: z
    .string()
    .refine((value) => value === "" || isUuid(value), {
      error: (issue) => `“${String(issue.input)}” is not a valid UUID.`,
    })
    .transform((value) => (value === "" ? undefined : value.toLowerCase()))
    .optional(),
});
