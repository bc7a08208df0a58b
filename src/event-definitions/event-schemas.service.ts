/**
 * The event-schema service: schema property groups (typed property lists) and event schemas (which
 * groups an event definition carries), for both front doors (issue 9 item 4). It checks scopes and
 * project access, validates input by PostHog's rules, writes the change and its activity entry in
 * one transaction, and returns records. It knows nothing of HTTP or GraphQL.
 * Source of the rules: `posthog/api/schema_property_group.py`, `posthog/api/event_schema.py`,
 * `posthog/models/schema.py`. Scopes: `event_definition:read`/`:write`, PostHog's `scope_object` of
 * these viewsets in its newest code (older code had them session-only, `INTERNAL`). PostHog writes
 * no activity entries for them; this service does (scopes `SchemaPropertyGroup`, `EventSchema`), as
 * every write here does.
 *
 * Deleting a group deletes its event schemas with it (PostHog's `on_delete=CASCADE`); deleting an
 * event definition deletes its event schemas, not the groups. How groups and event schemas are
 * stored is event-schemas.store.ts; how they are read, event-schemas.queries.ts; a delete under the
 * row's lock is the definitions' shared one (definitions-base.ts `deleteLocked`).
 */
import { changesBetween, recordActivity } from "../core/activity-log.js";
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { ValidationError } from "../core/errors.js";
import type { OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { uuidRecordReads } from "../core/uuid-record-reads.js";
import { isUuid, parseInput } from "../core/validation.js";
import { deleteLocked, type LockedDelete } from "./definitions-base.js";
import { isUniqueViolation } from "./definitions-base.store.js";
import {
  type EventSchemaRecord,
  type SchemaPropertyGroupRecord,
  selectEventSchemaPage,
  selectEventSchemas,
  selectGroupsOfEventDefinitions,
  selectSchemaPropertyGroupPage,
  selectSchemaPropertyGroups,
} from "./event-schemas.queries.js";
import {
  createEventSchemaSchema,
  createSchemaPropertyGroupSchema,
  eventSchemaListFiltersSchema,
  replaceSchemaPropertyGroupSchema,
  type SchemaPropertyGroupUpdate,
  type SchemaPropertyInput,
  updateSchemaPropertyGroupSchema,
} from "./event-schemas.schemas.js";
import {
  deleteEventSchemaRow,
  deleteSchemaPropertyGroupRow,
  findEventDefinitionRef,
  findSchemaPropertyGroupRef,
  insertEventSchema,
  insertSchemaPropertyGroup,
  isEventSchemaAttached,
  isGroupNameTaken,
  lockEventSchema,
  lockSchemaPropertyGroup,
  replaceGroupProperties,
  writeSchemaPropertyGroupRow,
} from "./event-schemas.store.js";

/** The fields the activity log compares, under PostHog's names. */
function snapshot(group: SchemaPropertyGroupRecord): Record<string, unknown> {
  return {
    name: group.name,
    description: group.description,
    properties: group.properties.map((p) => ({
      name: p.name,
      property_type: p.propertyType,
      is_required: p.isRequired,
      description: p.description,
    })),
  };
}

/**
 * The first property name `properties` gives twice, or null: PostHog's unique
 * `(property_group_id, name)` constraint refuses the write.
 */
function duplicatePropertyName(properties: readonly SchemaPropertyInput[]): string | null {
  const seen = new Set<string>();
  for (const { name } of properties) {
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return null;
}

/** PostHog's error for a property named twice in one group (its update path's message, used for create too). */
function duplicateProperty(name: string): ValidationError {
  return new ValidationError(`A property named '${name}' already exists in this group`, {
    attr: "properties",
  });
}

/**
 * A `PrimaryKeyRelatedField`'s `does_not_exist` for `attr` (an object of another project is not
 * visible: PostHog filters the field's queryset by team).
 */
function doesNotExist(attr: string, pk: string): ValidationError {
  return new ValidationError(`Invalid pk "${pk}" - object does not exist.`, { attr, code: "does_not_exist" });
}

/** How a group is deleted under its row's lock: its activity entry named by the group. */
const GROUP_DELETE: LockedDelete<SchemaPropertyGroupRecord> = {
  scope: "SchemaPropertyGroup",
  lock: lockSchemaPropertyGroup,
  deleteRow: deleteSchemaPropertyGroupRow,
  name: (group) => group.name,
};

/** How an event schema is deleted under its row's lock: its entry named `<event> → <group>` (PostHog's `EventSchema.__str__`). */
const EVENT_SCHEMA_DELETE: LockedDelete<EventSchemaRecord> = {
  scope: "EventSchema",
  lock: lockEventSchema,
  deleteRow: deleteEventSchemaRow,
  name: (eventSchema) => `${eventSchema.eventName} → ${eventSchema.propertyGroup.name}`,
};

/** Creates the event-schema service. */
export function createEventSchemaService(deps: ServiceDeps) {
  /** Group `id` of the project. @throws NotFoundError when `id` is not a UUID or names none. */
  const groups = uuidRecordReads("event_definition:read", selectSchemaPropertyGroups);
  const readGroup = groups.read;

  const eventSchemas = uuidRecordReads("event_definition:read", selectEventSchemas);
  const readEventSchema = eventSchemas.read;

  /** `update` for PATCH (`partial`) and PUT. */
  async function change(
    ctx: ServiceContext,
    projectId: number,
    id: string,
    body: unknown,
    partial: boolean,
  ): Promise<SchemaPropertyGroupRecord> {
    const project = await authorizeProject(ctx, projectId, "event_definition:write");
    // DRF's `update` finds the object (404) before it validates the body.
    const first = await readGroup(ctx.db, project.id, id);
    const input: SchemaPropertyGroupUpdate = parseInput(
      partial ? updateSchemaPropertyGroupSchema : replaceSchemaPropertyGroupSchema,
      body,
      ctx.limits,
    );
    const duplicate = input.properties ? duplicatePropertyName(input.properties) : null;
    if (duplicate !== null) throw duplicateProperty(duplicate);
    const nameTaken = () =>
      new ValidationError("A property group with this name already exists", { attr: "name" });
    if (input.name !== undefined && input.name !== first.name) {
      if (await isGroupNameTaken(ctx.db, project.id, input.name)) throw nameTaken();
    }
    const now = deps.now();
    try {
      return await ctx.db.$transaction(async (tx) => {
        const current = await lockSchemaPropertyGroup(tx, project.id, first.id);
        await writeSchemaPropertyGroupRow(
          tx,
          project.id,
          current.id,
          { name: input.name, description: input.description },
          now,
        );
        if (input.properties !== undefined) {
          await replaceGroupProperties(tx, project.id, current.id, input.properties, now);
        }
        const updated = await readGroup(tx, project.id, current.id);
        await recordActivity(tx, {
          projectId: project.id,
          userId: ctx.actor.user.id,
          scope: "SchemaPropertyGroup",
          itemId: current.id,
          activity: "changed",
          name: updated.name,
          changes: changesBetween("SchemaPropertyGroup", snapshot(current), snapshot(updated)),
        });
        return updated;
      });
    } catch (error) {
      // Another request took the name between the check and the write.
      if (isUniqueViolation(error)) throw nameTaken();
      throw error;
    }
  }

  return {
    /**
     * One page of the project's property groups by name, with the total. Scope `event_definition:read`.
     * @throws NotFoundError, PermissionDeniedError.
     */
    async listGroups(
      ctx: ServiceContext,
      projectId: number,
      page: OffsetPage,
    ): Promise<{ count: number; results: SchemaPropertyGroupRecord[] }> {
      const project = await authorizeProject(ctx, projectId, "event_definition:read");
      return selectSchemaPropertyGroupPage(ctx.db, project.id, page);
    },

    /** One group by UUID, and a batch in the asked order (node loads). Scope `event_definition:read`. */
    getGroup: groups.get,
    getGroups: groups.getMany,

    /**
     * The groups attached to each of event definitions `eventDefinitionIds` of the project, by group
     * name, in the order asked (empty for none or an id of no definition), in one statement (the
     * GraphQL door's loader batches a page of definitions into one call). Scope `event_definition:read`.
     */
    async groupsOfEventDefinitions(
      ctx: ServiceContext,
      projectId: number,
      eventDefinitionIds: readonly string[],
    ): Promise<SchemaPropertyGroupRecord[][]> {
      await authorizeProject(ctx, projectId, "event_definition:read");
      const ids = [...new Set(eventDefinitionIds.filter(isUuid).map((id) => id.toLowerCase()))];
      const byEvent = await selectGroupsOfEventDefinitions(ctx.db, projectId, ids);
      return eventDefinitionIds.map((id) => byEvent.get(id.toLowerCase()) ?? []);
    },

    /**
     * Creates a group with its properties (`POST schema_property_groups/`), `created_by` the caller.
     * Writes activity `created`. Scope `event_definition:write`.
     * @throws ValidationError attr `name` `A property group with this name already exists for this
     *   team` (PostHog's create message); attr `properties` for a property named twice; field errors.
     */
    async createGroup(
      ctx: ServiceContext,
      projectId: number,
      body: unknown,
    ): Promise<SchemaPropertyGroupRecord> {
      const project = await authorizeProject(ctx, projectId, "event_definition:write");
      const input = parseInput(createSchemaPropertyGroupSchema, body, ctx.limits);
      const properties = input.properties ?? [];
      const duplicate = duplicatePropertyName(properties);
      if (duplicate !== null) throw duplicateProperty(duplicate);
      const nameTaken = () =>
        new ValidationError("A property group with this name already exists for this team", { attr: "name" });
      if (await isGroupNameTaken(ctx.db, project.id, input.name)) throw nameTaken();
      const now = deps.now();
      try {
        return await ctx.db.$transaction(async (tx) => {
          const id = await insertSchemaPropertyGroup(
            tx,
            project.id,
            { name: input.name, description: input.description ?? "", createdById: ctx.actor.user.id },
            now,
          );
          await replaceGroupProperties(tx, project.id, id, properties, now);
          await recordActivity(tx, {
            projectId: project.id,
            userId: ctx.actor.user.id,
            scope: "SchemaPropertyGroup",
            itemId: id,
            activity: "created",
            name: input.name,
            changes: null,
          });
          return readGroup(tx, project.id, id);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw nameTaken();
        throw error;
      }
    },

    /**
     * Changes a group (`PATCH schema_property_groups/:id/`): absent fields keep their value;
     * `properties`, when given, replaces the whole list in the same transaction (PostHog's property
     * ids are read-only, so every property is recreated). Writes activity `changed`. Scope
     * `event_definition:write`.
     * @throws NotFoundError; ValidationError attr `name` `A property group with this name already
     *   exists`, attr `properties` for a name given twice, field errors.
     */
    update(ctx: ServiceContext, projectId: number, id: string, body: unknown) {
      return change(ctx, projectId, id, body, true);
    },

    /** As `update`, for `PUT` (DRF's full update: `name` required). */
    replace(ctx: ServiceContext, projectId: number, id: string, body: unknown) {
      return change(ctx, projectId, id, body, false);
    },

    /**
     * Deletes a group, its properties and its event schemas (the events keep their other groups),
     * and writes activity `deleted`; returns the group as it was. Scope `event_definition:write`.
     * @throws NotFoundError.
     */
    async destroyGroup(
      ctx: ServiceContext,
      projectId: number,
      id: string,
    ): Promise<SchemaPropertyGroupRecord> {
      const project = await authorizeProject(ctx, projectId, "event_definition:write");
      return deleteLocked(ctx, GROUP_DELETE, project.id, id);
    },

    /**
     * One page of the project's event schemas, newest first; `query.event_definition` (a UUID)
     * keeps one event's. Scope `event_definition:read`.
     * @throws ValidationError attr `event_definition` for a value that is not a UUID.
     */
    async listEventSchemas(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, unknown>,
      page: OffsetPage,
    ): Promise<{ count: number; results: EventSchemaRecord[] }> {
      const project = await authorizeProject(ctx, projectId, "event_definition:read");
      const filters = parseInput(eventSchemaListFiltersSchema, query, ctx.limits);
      return selectEventSchemaPage(ctx.db, project.id, filters.event_definition, page);
    },

    /** Event schemas by UUID, in the order asked, null where none (node loads). Scope `event_definition:read`. */
    getEventSchemas: eventSchemas.getMany,

    /**
     * Attaches group `property_group_id` to event definition `event_definition`
     * (`POST event_schemas/`), both of the project. Writes activity `created`. Scope `event_definition:write`.
     * @throws ValidationError `does_not_exist` (attr `event_definition` or `property_group_id`) for
     *   an id of no object of the project; `unique` (no attr) `The fields event_definition,
     *   property_group_id must make a unique set.` when attached already (DRF's validator of the
     *   model's unique constraint); field errors.
     */
    async createEventSchema(
      ctx: ServiceContext,
      projectId: number,
      body: unknown,
    ): Promise<EventSchemaRecord> {
      const project = await authorizeProject(ctx, projectId, "event_definition:write");
      const input = parseInput(createEventSchemaSchema, body, ctx.limits);
      const definition = await findEventDefinitionRef(ctx.db, project.id, input.event_definition);
      if (!definition) throw doesNotExist("event_definition", input.event_definition);
      const group = await findSchemaPropertyGroupRef(ctx.db, project.id, input.property_group_id);
      if (!group) throw doesNotExist("property_group_id", input.property_group_id);
      const alreadyAttached = () =>
        new ValidationError("The fields event_definition, property_group_id must make a unique set.", {
          code: "unique",
        });
      if (await isEventSchemaAttached(ctx.db, project.id, definition.id, group.id)) throw alreadyAttached();
      const now = deps.now();
      try {
        return await ctx.db.$transaction(async (tx) => {
          const id = await insertEventSchema(tx, project.id, definition.id, group.id, now);
          await recordActivity(tx, {
            projectId: project.id,
            userId: ctx.actor.user.id,
            scope: "EventSchema",
            itemId: id,
            activity: "created",
            // PostHog's `EventSchema.__str__`.
            name: `${definition.name} → ${group.name}`,
            changes: null,
          });
          return readEventSchema(tx, project.id, id);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw alreadyAttached();
        throw error;
      }
    },

    /**
     * Detaches a group from an event (`DELETE event_schemas/:id/`) and writes activity `deleted`;
     * returns the event schema as it was. Scope `event_definition:write`. @throws NotFoundError.
     */
    async destroyEventSchema(ctx: ServiceContext, projectId: number, id: string): Promise<EventSchemaRecord> {
      const project = await authorizeProject(ctx, projectId, "event_definition:write");
      return deleteLocked(ctx, EVENT_SCHEMA_DELETE, project.id, id);
    },
  };
}

/** The event-schema service's operations. */
export type EventSchemaService = ReturnType<typeof createEventSchemaService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createEventSchemaService`. */
    eventSchemas: EventSchemaService;
  }
}

declare module "../core/activity-log.js" {
  interface ActivityScopes {
    /** Schema property groups' entries (created, changed with field changes, deleted). */
    SchemaPropertyGroup: true;
    /** Event schemas' entries (created, deleted), named `<event> → <group>`. */
    EventSchema: true;
  }
}

declare module "../core/row-lock.js" {
  interface LockableTables {
    /** Schema property groups (`id` uuid). */
    schema_property_groups: string;
    /** Event schemas (`id` uuid). */
    event_schemas: string;
  }
}
