/**
 * The group service: the project's group types (read, and their display names changed) and the
 * reads of groups, for both front doors (groups themselves are written by capture, issue 7 §3).
 * Source: `ee/clickhouse/views/groups.py` (`GroupsTypesViewSet`, `GroupsViewSet`: `scope_object =
 * "group"`, so lists and `find` need `group:read`). `update_metadata` declares no scope there, which
 * PostHog answers "does not support Personal API Key access"; this service has no sessions, so it
 * takes `group:write` instead (as posthog-behavior.md decision 2 does for flags' session-only actions).
 */
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { decodeKeysetCursor, encodeKeysetCursor, isPgTimestamp } from "../core/keyset-cursor.js";
import type { ServiceDeps } from "../core/services.js";
import { parseInput } from "../core/validation.js";
import { countMatches, type MatchCounts } from "../lib/property-filters/match-counts.js";
import type { PropertyNode } from "../lib/property-filters/property-filters.js";
import { checkRegexPatterns } from "../lib/property-filters/regex-check.js";
import { toSql } from "../lib/property-filters/to-sql.js";
import {
  type GroupRecord,
  type GroupTypeRecord,
  projectGroupsOfType,
  selectGroupPage,
  selectGroups,
  selectGroupTypes,
} from "./groups.queries.js";
import {
  findGroupSchema,
  groupListFiltersSchema,
  TYPE_INDEX_REQUIRED,
  updateGroupTypesSchema,
} from "./groups.schemas.js";
import { writeGroupTypeNames } from "./groups.store.js";

/** A page of groups and the cursors of its neighbours (null where none). */
export interface GroupPage {
  results: GroupRecord[];
  next: string | null;
  previous: string | null;
}

/** The cursor of the page after `group` (newest first), or with `reverse` of the page before it. */
export function groupCursor(group: GroupRecord, reverse = false): string {
  return encodeKeysetCursor([group.createdAtText, group.groupKey], reverse);
}

/** Creates the group service; `deps.now` is the clock relative dates in filters count back from. */
export function createGroupService(deps: ServiceDeps) {
  return {
    /** The project's group types, by index (`GET groups_types/`). Scope `group:read`. @throws NotFoundError (project), PermissionDeniedError. */
    async listTypes(ctx: ServiceContext, projectId: number): Promise<GroupTypeRecord[]> {
      const project = await authorizeProject(ctx, projectId, "group:read");
      return selectGroupTypes(ctx.db, project.id);
    },

    /**
     * Changes group types' display names (`PATCH groups_types/update_metadata/`): `body` is a list
     * of `{group_type_index, name_singular?, name_plural?}`; an absent name keeps its value, null
     * clears it. All rows or none are written, in one transaction. Returns every group type.
     * Scope `group:write`.
     * @throws ValidationError for a malformed body; NotFoundError when a row names no group type.
     */
    async updateTypes(ctx: ServiceContext, projectId: number, body: unknown): Promise<GroupTypeRecord[]> {
      const project = await authorizeProject(ctx, projectId, "group:write");
      const rows = parseInput(updateGroupTypesSchema, body, ctx.limits);
      return ctx.db.$transaction(async (tx) => {
        for (const row of rows) {
          const data = {
            ...(row.name_singular === undefined ? {} : { nameSingular: row.name_singular }),
            ...(row.name_plural === undefined ? {} : { namePlural: row.name_plural }),
          };
          // A row without names changes nothing, but must still name a group type.
          const matched = await writeGroupTypeNames(tx, project.id, row.group_type_index, data);
          if (matched !== 1) throw new NotFoundError();
        }
        return selectGroupTypes(tx, project.id);
      });
    },

    /**
     * One page of groups of one type (`GET groups/`, DRF's cursor pages), newest first, filtered by
     * `search` and `group_key` under PostHog's names (`groupListFiltersSchema`). `cursor` is one this
     * method returned as `next` or `previous` (null: the first page); the answer holds the cursors
     * of the pages after and before it (null where none; an empty page past the end has no
     * `previous`). Scope `group:read`.
     * @throws ValidationError without a valid `group_type_index` (PostHog's message when absent);
     *   NotFoundError `Invalid cursor` for a cursor this service did not make (DRF's answer).
     */
    async list(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, unknown>,
      paging: { size: number; cursor: string | null },
    ): Promise<GroupPage> {
      const project = await authorizeProject(ctx, projectId, "group:read");
      const index = query["group_type_index"];
      if (index === undefined || index === null || index === "") {
        throw new ValidationError(TYPE_INDEX_REQUIRED, { attr: "group_type_index" });
      }
      const filters = parseInput(groupListFiltersSchema, query, ctx.limits);
      const cursor = paging.cursor === null ? null : decodeKeysetCursor(paging.cursor, 2);
      const [createdAtText, groupKey] = cursor?.position ?? [];
      if (
        paging.cursor !== null &&
        (!createdAtText || !isPgTimestamp(createdAtText) || groupKey === undefined)
      ) {
        throw new NotFoundError("Invalid cursor");
      }
      const reverse = cursor?.reverse ?? false;
      const from = cursor === null ? null : { createdAtText: createdAtText!, groupKey: groupKey! };
      const { results, hasMore } = await selectGroupPage(ctx.db, project.id, filters, {
        size: paging.size,
        from,
        reverse,
      });
      const first = results[0];
      const last = results[results.length - 1];
      const hasNext = reverse ? cursor !== null : hasMore;
      const hasPrevious = reverse ? hasMore : cursor !== null;
      return {
        results,
        next: hasNext && last ? groupCursor(last) : null,
        previous: hasPrevious && first ? groupCursor(first, true) : null,
      };
    },

    /**
     * One group by type index and exact key (`GET groups/find`). Scope `group:read`.
     * @throws ValidationError when either is missing or the index is not an integer; NotFoundError.
     */
    async find(ctx: ServiceContext, projectId: number, query: Record<string, unknown>): Promise<GroupRecord> {
      const project = await authorizeProject(ctx, projectId, "group:read");
      const { group_type_index, group_key } = parseInput(findGroupSchema, query, ctx.limits);
      const [group] = await selectGroups(ctx.db, project.id, [
        { groupTypeIndex: group_type_index, groupKey: group_key },
      ]);
      if (!group) throw new NotFoundError();
      return group;
    },

    /**
     * Groups of the project by (type index, key), in the order asked, null where none (a batch for
     * node loaders: one statement). Scope `group:read`.
     */
    async getMany(
      ctx: ServiceContext,
      projectId: number,
      keys: ReadonlyArray<{ groupTypeIndex: number; groupKey: string }>,
    ): Promise<(GroupRecord | null)[]> {
      const project = await authorizeProject(ctx, projectId, "group:read");
      const groups = await selectGroups(ctx.db, project.id, keys);
      return keys.map(
        (key) =>
          groups.find((g) => g.groupTypeIndex === key.groupTypeIndex && g.groupKey === key.groupKey) ?? null,
      );
    },

    /**
     * How many of the project's groups of type `groupTypeIndex` match `criteria` (group property
     * filters of that type, `$group_key` being the group's key; null: every group), and how many
     * groups of the type it has: one statement after the regex patterns are checked. For another
     * domain's estimates (a flag condition's blast radius): it authorizes nothing, its caller has
     * authorized the project with its own scope (as `cohorts.summariesForFlags`).
     * @throws ValidationError for a filter groups cannot be filtered by (person or cohort filters),
     *   or a bad regex (`attr` as given).
     */
    async countMatching(
      ctx: ServiceContext,
      projectId: number,
      groupTypeIndex: number,
      criteria: PropertyNode | null,
      attr: string,
    ): Promise<MatchCounts> {
      const rows = projectGroupsOfType(projectId, groupTypeIndex);
      if (criteria === null) return countMatches(ctx.db, rows, null);
      await checkRegexPatterns(ctx.db, criteria, attr);
      const where = toSql(criteria, {
        projectId,
        now: deps.now(),
        targets: { group: "g" },
        cohorts: new Map(),
      });
      return countMatches(ctx.db, rows, where);
    },

    /** Group types of the project by index, in the order asked, null where none (node loaders). Scope `group:read`. */
    async getTypes(
      ctx: ServiceContext,
      projectId: number,
      indexes: readonly number[],
    ): Promise<(GroupTypeRecord | null)[]> {
      const types = await this.listTypes(ctx, projectId);
      return indexes.map((index) => types.find((type) => type.groupTypeIndex === index) ?? null);
    },
  };
}

/** The group service's operations. */
export type GroupService = ReturnType<typeof createGroupService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createGroupService`. */
    groups: GroupService;
  }
}
