/**
 * The property-definition service: every property-definition operation of both front doors (issue 9
 * part 2). It checks scopes and project access, validates input by PostHog's rules, writes the
 * change, the tag links and the activity entry in one transaction, and returns records. It knows
 * nothing of HTTP or GraphQL.
 * Source of the rules: `posthog/api/property_definition.py` PropertyDefinitionViewSet (list filters,
 * `seen_together`, `destroy`), `products/enterprise/backend/api/ee_property_definition.py`
 * EnterprisePropertyDefinitionSerializer (this service always has PostHog's enterprise field set).
 * How definitions are stored is property-definitions.store.ts; how they are read,
 * property-definitions.queries.ts; the locked update and the delete are the definitions' shared base
 * (event-definitions/definitions-base.ts), as event definitions' are.
 *
 * Capture (src/ingestion) fills the table: names, kinds and inferred types; nothing creates a
 * definition here. A deleted definition comes back when capture next records its name (within the
 * hour capture's catalogue cache spans), with a newly inferred type and none of the API's fields.
 *
 * Not served (PostHog has them): the `$virt_*` virtual person and group properties PostHog appends
 * to the last page, and its search aliases (`PROPERTY_NAME_ALIASES`, "latest" matching non-initial
 * person properties): a search here matches names only.
 */
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import type { OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { uuidRecordReads } from "../core/uuid-record-reads.js";
import { parseInput } from "../core/validation.js";
import {
  changeDefinition,
  type DefinitionKeeping,
  deleteLocked,
} from "../event-definitions/definitions-base.js";
import { nextVerification } from "../event-definitions/rules/verification.js";
import { drfDateTimeOrNull } from "../rest/date-time.js";
import {
  type PropertyDefinitionRecord,
  selectEventsWithProperty,
  selectPropertyDefinitionPage,
  selectPropertyDefinitions,
} from "./property-definitions.queries.js";
import {
  kindOf,
  type PropertyDefinitionUpdate,
  propertyDefinitionListFiltersSchema,
  seenTogetherQuerySchema,
  updatePropertyDefinitionSchema,
} from "./property-definitions.schemas.js";
import { propertyDefinitionRows, writePropertyDefinitionRow } from "./property-definitions.store.js";
import { isNumericalType } from "./rules/property-type.js";

/** PostHog's message when a request both hides and verifies a property (`validate`). */
const HIDDEN_AND_VERIFIED = "A property cannot be both hidden and verified";

/**
 * The fields the activity log compares, under PostHog's names: the writable fields and what the
 * rules set with them (PostHog diffs the validated data, which holds them).
 */
function snapshot(definition: PropertyDefinitionRecord): Record<string, unknown> {
  return {
    description: definition.description,
    tags: definition.tags,
    property_type: definition.propertyType,
    is_numerical: definition.isNumerical,
    verified: definition.verified,
    verified_by: definition.verifiedById,
    verified_at: drfDateTimeOrNull(definition.verifiedAt),
    hidden: definition.hidden,
  };
}

/** Creates the property-definition service. */
export function createPropertyDefinitionService(deps: ServiceDeps) {
  const reads = uuidRecordReads("property_definition:read", selectPropertyDefinitions);
  const { read } = reads;

  /**
   * How property definitions are kept and logged, for the shared update and delete
   * (event-definitions/definitions-base.ts): their activity entries name the kind (`event`, `person`, ...).
   */
  const keeping: DefinitionKeeping<PropertyDefinitionRecord> = {
    scope: "PropertyDefinition",
    read,
    ...propertyDefinitionRows,
    snapshot,
    name: (definition) => definition.name,
    type: (definition) => kindOf(definition.type),
  };

  return {
    /**
     * One page of the project's definitions of one kind with the total count; `query` holds the
     * list filters under PostHog's names (`propertyDefinitionListFiltersSchema`). Bounded cost: one
     * statement for the page (two when it is past the end). Scope `property_definition:read`.
     * @throws ValidationError for a bad filter (see the schema); NotFoundError, PermissionDeniedError.
     */
    async list(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, unknown>,
      page: OffsetPage,
    ): Promise<{ count: number; results: PropertyDefinitionRecord[] }> {
      const project = await authorizeProject(ctx, projectId, "property_definition:read");
      const filters = parseInput(propertyDefinitionListFiltersSchema, query, ctx.limits);
      return selectPropertyDefinitionPage(ctx.db, project.id, filters, page);
    },

    /** One definition by UUID, and a batch in the asked order (node loads). Scope `property_definition:read`. */
    get: reads.get,
    getMany: reads.getMany,

    /**
     * `seen_together`: for each of `event_names`, whether `property_name` was seen on it in the
     * project. Scope `property_definition:read`.
     * @throws ValidationError `This field is required.` (attr `event_names` or `property_name`).
     */
    async seenTogether(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, unknown>,
    ): Promise<Record<string, boolean>> {
      const project = await authorizeProject(ctx, projectId, "property_definition:read");
      const input = parseInput(seenTogetherQuerySchema, query, ctx.limits);
      const seen = await selectEventsWithProperty(ctx.db, project.id, input.event_names, input.property_name);
      return Object.fromEntries(input.event_names.map((event) => [event, seen.has(event)]));
    },

    /**
     * Changes a definition (PATCH; PUT alike): absent fields keep their value; `name` and
     * `is_numerical` are read-only, but a `property_type` sets `is_numerical` (true for `Numeric`
     * only); hiding unverifies, verifying unhides and stamps who and when (re-verifying keeps the
     * first stamp); `updated_at`/`updated_by` stamped. Writes activity `changed` with the field
     * changes and the kind (`event`, `person`, ...). Scope `property_definition:write`.
     * @throws NotFoundError; ValidationError `A property cannot be both hidden and verified`,
     *   `"X" is not a valid choice.` (attr `property_type`), field errors.
     */
    async update(
      ctx: ServiceContext,
      projectId: number,
      id: string,
      body: unknown,
    ): Promise<PropertyDefinitionRecord> {
      const project = await authorizeProject(ctx, projectId, "property_definition:write");
      const input: PropertyDefinitionUpdate = parseInput(updatePropertyDefinitionSchema, body, ctx.limits);
      const first = await read(ctx.db, project.id, id);
      const userId = ctx.actor.user.id;
      const now = deps.now();
      // PostHog's refusals come before any write; the decision is made again under the row lock.
      nextVerification(first, input, userId, now, HIDDEN_AND_VERIFIED);
      return changeDefinition(ctx, keeping, project.id, first.id, input.tags, async (tx, current) => {
        await writePropertyDefinitionRow(tx, project.id, current.id, {
          description: input.description,
          type:
            input.property_type === undefined
              ? undefined
              : { propertyType: input.property_type, isNumerical: isNumericalType(input.property_type) },
          ...nextVerification(current, input, userId, now, HIDDEN_AND_VERIFIED),
          updatedAt: now,
          updatedById: userId,
        });
      });
    },

    /**
     * Deletes a definition for good (its tag links with it; which events it was seen on stays) and
     * writes activity `deleted`; returns the definition as it was. Scope `property_definition:write`.
     * @throws NotFoundError.
     */
    async destroy(ctx: ServiceContext, projectId: number, id: string): Promise<PropertyDefinitionRecord> {
      const project = await authorizeProject(ctx, projectId, "property_definition:write");
      return deleteLocked(ctx, keeping, project.id, id);
    },
  };
}

/** The property-definition service's operations. */
export type PropertyDefinitionService = ReturnType<typeof createPropertyDefinitionService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createPropertyDefinitionService`. */
    propertyDefinitions: PropertyDefinitionService;
  }
}

declare module "../core/activity-log.js" {
  interface ActivityScopes {
    /** Property definitions' entries (`log_activity(scope="PropertyDefinition")` in PostHog). */
    PropertyDefinition: true;
  }
}

declare module "../core/row-lock.js" {
  interface LockableTables {
    /** Property definitions (`id` uuid). */
    property_definitions: string;
  }
}
