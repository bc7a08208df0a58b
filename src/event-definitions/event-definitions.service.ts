/**
 * The event-definition service: every event-definition operation of both front doors (issue 9 part
 * 1). It checks scopes and project access, validates input by PostHog's rules, writes the change,
 * the tag links and the activity entry in one transaction, and returns records. It knows nothing of
 * HTTP or GraphQL. How definitions are stored is event-definitions.store.ts; how they are read,
 * event-definitions.queries.ts; what they share with property definitions (the locked update and
 * the delete), definitions-base.ts.
 * Source of the rules: `posthog/api/event_definition.py` EventDefinitionViewSet,
 * `ee/api/ee_event_definition.py` EnterpriseEventDefinitionSerializer (this service always has
 * PostHog's enterprise field set); posthog-behavior.md §6.
 *
 * Capture (src/ingestion) fills the same table with the names it sees; definitions created here have
 * no `created_at` or `last_seen_at` until an event of that name is captured. A deleted definition
 * comes back when capture next sees its name (within the hour capture's catalogue cache spans).
 */
import { recordActivity } from "../core/activity-log.js";
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import type { OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { normalizeTags } from "../core/tags.js";
import { uuidRecordReads } from "../core/uuid-record-reads.js";
import { parseInput } from "../core/validation.js";
import type { QueryClient } from "../db/sql-reader.js";
import { drfDateTimeOrNull } from "../rest/date-time.js";
import { type GeneratedCode, generateCode } from "./codegen/index.js";
import { type CodeLanguage, compareCodePoints, type SchemaProperty } from "./codegen/model.js";
import { changeDefinition, type DefinitionKeeping, deleteLocked } from "./definitions-base.js";
import { isUniqueViolation } from "./definitions-base.store.js";
import {
  type EventDefinitionRecord,
  eventDefinitionListWhere,
  selectCodegenEventNames,
  selectEventDefinitionByName,
  selectEventDefinitionPage,
  selectEventDefinitions,
} from "./event-definitions.queries.js";
import {
  createEventDefinitionSchema,
  type EventDefinitionUpdate,
  eventDefinitionListFiltersSchema,
  STALE_EVENT_DAYS,
  updateEventDefinitionSchema,
} from "./event-definitions.schemas.js";
import {
  eventDefinitionRows,
  insertEventDefinition,
  isEventNameTaken,
  isOrganizationMember,
  writeEventDefinitionRow,
} from "./event-definitions.store.js";
import { nextVerification, UNVERIFIED } from "./rules/verification.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** `GET :id/metrics`: PostHog's `{query_usage_30_day}`. */
export interface EventDefinitionMetrics {
  /** Views of the event in insights over 30 days (PostHog counts app-metrics `viewed`). */
  queryUsage30Day: number;
}

/**
 * Per event name, the properties the project's event schemas declare for it (names without a schema
 * are absent): how the service reads event schemas, injected by the composition root.
 */
export type SchemaPropertiesByEvent = (
  db: QueryClient,
  projectId: number,
) => Promise<Map<string, SchemaProperty[]>>;

/** What the event-definition service reads from outside its own tables. */
export interface EventDefinitionServiceReaders {
  /** The event schemas' properties per event name (for typed capture code). */
  schemaPropertiesByEvent: SchemaPropertiesByEvent;
}

/**
 * The fields the activity log compares, under PostHog's names: the writable fields and the stamps
 * the rules set (PostHog diffs the validated data, which holds them).
 */
function snapshot(definition: EventDefinitionRecord): Record<string, unknown> {
  return {
    description: definition.description,
    owner: definition.ownerId,
    tags: definition.tags,
    verified: definition.verified,
    verified_by: definition.verifiedById,
    verified_at: drfDateTimeOrNull(definition.verifiedAt),
    hidden: definition.hidden,
    default_columns: definition.defaultColumns,
  };
}

/** Creates the event-definition service; `readers` gives it the event schemas. */
export function createEventDefinitionService(deps: ServiceDeps, readers: EventDefinitionServiceReaders) {
  const reads = uuidRecordReads("event_definition:read", selectEventDefinitions);
  const { read } = reads;

  /** How event definitions are kept and logged, for the shared update and delete (definitions-base.ts). */
  const keeping: DefinitionKeeping<EventDefinitionRecord> = {
    scope: "EventDefinition",
    read,
    ...eventDefinitionRows,
    snapshot,
    name: (definition) => definition.name,
  };

  /**
   * `owner`'s user id, checked: a user of the project's organization (PostHog accepts any user id;
   * limiting it to the organization keeps other organizations' users out of the answer).
   * @throws ValidationError attr `owner`, DRF's `does_not_exist`, for any other id.
   */
  async function checkedOwner(
    ctx: ServiceContext,
    organizationId: string,
    owner: number | null | undefined,
  ): Promise<number | null | undefined> {
    if (owner === undefined || owner === null) return owner;
    if (!(await isOrganizationMember(ctx.db, organizationId, owner))) {
      throw new ValidationError(`Invalid pk "${owner}" - object does not exist.`, {
        attr: "owner",
        code: "does_not_exist",
      });
    }
    return owner;
  }

  /** PostHog's duplicate-name error. */
  function duplicateName(name: string): ValidationError {
    return new ValidationError(`Event definition with name '${name}' already exists`, { attr: "name" });
  }

  return {
    /**
     * One page of the project's definitions with the total count; `query` holds the list filters
     * under PostHog's names (`eventDefinitionListFiltersSchema`). Scope `event_definition:read`.
     * @throws ValidationError attr `event_type` for an unknown event type; NotFoundError, PermissionDeniedError.
     */
    async list(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, unknown>,
      page: OffsetPage,
    ): Promise<{ count: number; results: EventDefinitionRecord[] }> {
      const project = await authorizeProject(ctx, projectId, "event_definition:read");
      const filters = parseInput(eventDefinitionListFiltersSchema, query, ctx.limits);
      const staleBefore = new Date(deps.now().getTime() - STALE_EVENT_DAYS * DAY_MS);
      return selectEventDefinitionPage(
        ctx.db,
        eventDefinitionListWhere(project.id, filters, staleBefore),
        filters.ordering,
        page,
      );
    },

    /** One definition by UUID, and a batch in the asked order (node loads). Scope `event_definition:read`. */
    get: reads.get,
    getMany: reads.getMany,

    /**
     * The definition named exactly `name` (PostHog's `by_name`). Scope `event_definition:read`.
     * @throws ValidationError attr `name` `Query parameter 'name' is required` when empty;
     *   NotFoundError `Event definition with name '<name>' not found`.
     */
    async getByName(
      ctx: ServiceContext,
      projectId: number,
      name: string | null | undefined,
    ): Promise<EventDefinitionRecord> {
      await authorizeProject(ctx, projectId, "event_definition:read");
      if (!name) throw new ValidationError("Query parameter 'name' is required", { attr: "name" });
      const definition = await selectEventDefinitionByName(ctx.db, projectId, name);
      if (!definition) throw new NotFoundError(`Event definition with name '${name}' not found`);
      return definition;
    },

    /**
     * Creates a definition (§6.2): `name` unique in the project; no `created_at`/`last_seen_at`
     * until captured; `verified` stamps the user and time and unhides; `hidden` unverifies. Writes
     * activity `created`. Scope `event_definition:write`.
     * @throws ValidationError attr `name` `Event definition with name '<n>' already exists`; the
     *   hidden-and-verified rule; a bad `owner`; field errors.
     */
    async create(ctx: ServiceContext, projectId: number, body: unknown): Promise<EventDefinitionRecord> {
      const project = await authorizeProject(ctx, projectId, "event_definition:write");
      const input = parseInput(createEventDefinitionSchema, body, ctx.limits);
      const userId = ctx.actor.user.id;
      const verification = nextVerification(UNVERIFIED, input, userId, deps.now());
      const owner = await checkedOwner(ctx, project.organizationId, input.owner);
      if (await isEventNameTaken(ctx.db, project.id, input.name)) throw duplicateName(input.name);
      try {
        return await ctx.db.$transaction(async (tx) => {
          const id = await insertEventDefinition(tx, project.id, {
            name: input.name,
            description: input.description ?? "",
            ownerId: owner ?? null,
            ...verification,
            updatedAt: deps.now(),
            updatedById: userId,
            defaultColumns: input.default_columns ?? [],
          });
          await eventDefinitionRows.replaceTags(tx, project.id, id, normalizeTags(input.tags ?? []));
          await recordActivity(tx, {
            projectId: project.id,
            userId,
            scope: "EventDefinition",
            itemId: id,
            activity: "created",
            name: input.name,
            changes: null,
          });
          return read(tx, project.id, id);
        });
      } catch (error) {
        // Capture or another request created the name between the check and the insert.
        if (isUniqueViolation(error)) throw duplicateName(input.name);
        throw error;
      }
    },

    /**
     * Changes a definition (PATCH; PUT alike): absent fields keep their value; `name` is read-only;
     * the verification rules of §6.2 (rules/verification.ts); `updated_at`/`updated_by` stamped.
     * Writes activity `changed` with the field changes. Scope `event_definition:write`.
     * @throws NotFoundError; ValidationError for the hidden-and-verified rule, a bad `owner`, field errors.
     */
    async update(
      ctx: ServiceContext,
      projectId: number,
      id: string,
      body: unknown,
    ): Promise<EventDefinitionRecord> {
      const project = await authorizeProject(ctx, projectId, "event_definition:write");
      const input: EventDefinitionUpdate = parseInput(updateEventDefinitionSchema, body, ctx.limits);
      const first = await read(ctx.db, project.id, id);
      const userId = ctx.actor.user.id;
      // PostHog's refusals come before any write; the decision is made again under the row lock.
      nextVerification(first, input, userId, deps.now());
      const owner = await checkedOwner(ctx, project.organizationId, input.owner);
      return changeDefinition(ctx, keeping, project.id, first.id, input.tags, async (tx, current) => {
        await writeEventDefinitionRow(tx, project.id, current.id, {
          description: input.description,
          ownerId: owner,
          ...nextVerification(current, input, userId, deps.now()),
          defaultColumns: input.default_columns,
          updatedAt: deps.now(),
          updatedById: userId,
        });
      });
    },

    /**
     * Deletes a definition for good (its tag links and event schemas with it) and writes activity
     * `deleted`; returns the definition as it was. Scope `event_definition:write`. @throws NotFoundError.
     */
    async destroy(ctx: ServiceContext, projectId: number, id: string): Promise<EventDefinitionRecord> {
      const project = await authorizeProject(ctx, projectId, "event_definition:write");
      return deleteLocked(ctx, keeping, project.id, id);
    },

    /**
     * Typed capture code in `language` for the project (§6.4, `GET event_definitions/<language>/`):
     * its events not starting with `$` plus `$pageview`, `$pageleave` and `$screen`, by name (code
     * points), each with its event schemas' properties (no schema: a loose event), stamped with the
     * time; the answer carries the event count, the schema hash and the generator version. Scope
     * `event_definition:read`. Reads only; writes nothing (PostHog reports a telemetry event, we do not).
     */
    async code(ctx: ServiceContext, projectId: number, language: CodeLanguage): Promise<GeneratedCode> {
      const project = await authorizeProject(ctx, projectId, "event_definition:read");
      const [names, schemas] = await Promise.all([
        selectCodegenEventNames(ctx.db, project.id),
        readers.schemaPropertiesByEvent(ctx.db, project.id),
      ]);
      const events = names
        .sort(compareCodePoints)
        .map((name) => ({ name, properties: schemas.get(name) ?? null }));
      return generateCode(language, events, deps.now());
    },

    /**
     * `GET :id/metrics` (§6.5): PostHog sums the `viewed` app-metrics of `event:<name>` over 30 days;
     * this service records no insight views, so it answers the stored `query_usage_30_day` (0 when
     * none). Scope `event_definition:read` (decision 2). @throws NotFoundError.
     */
    async metrics(ctx: ServiceContext, projectId: number, id: string): Promise<EventDefinitionMetrics> {
      await authorizeProject(ctx, projectId, "event_definition:read");
      const definition = await read(ctx.db, projectId, id);
      return { queryUsage30Day: definition.queryUsage30Day ?? 0 };
    },
  };
}

/** The event-definition service's operations. */
export type EventDefinitionService = ReturnType<typeof createEventDefinitionService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createEventDefinitionService`. */
    eventDefinitions: EventDefinitionService;
  }
}

declare module "../core/activity-log.js" {
  interface ActivityScopes {
    /** Event definitions' entries (`posthog/api/event_definition.py` `log_activity(scope="EventDefinition")`). */
    EventDefinition: true;
  }
}

declare module "../core/row-lock.js" {
  interface LockableTables {
    /** Event definitions (`id` uuid). */
    event_definitions: string;
  }
}
