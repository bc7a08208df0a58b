/**
 * The version-history routes of a versioned model (issue 27; core/object-versions.ts), ours (PostHog
 * keeps no flag or experiment versions; the page shape is its endpoint versions' DRF page):
 * - `GET <base>:id/versions/`: the kept versions, highest first, limit/offset pages;
 * - `GET <base>:id/versions/:version_number/`: one;
 * - `POST <base>:id/versions/:version_number/restore/`: a new version equal to that one, written through
 *   the model's update path (its rules, approvals, activity, webhooks), answering the object as the
 *   update does.
 * A version is `{version, activity, restored_from, created_by, created_at, changes, snapshot}`:
 * `changes` from the version before it in the activity log's shape, `snapshot` the object's fields
 * under PostHog's model names.
 */
import { z } from "zod";
import type { Limits } from "../config.js";
import type { Scope } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import { errorBodySchema } from "../core/error-body.js";
import { checkNestingDepth } from "../core/json-input.js";
import type { VersionWithChanges } from "../core/object-versions.js";
import type { OffsetPage } from "../core/paging.js";
import { activityChangeSchema } from "./activity.js";
import { drfDateTime } from "./date-time.js";
import { offsetListRoute } from "./list-route.js";
import { paginatedListSchema } from "./pagination.js";
import type { RestRoute } from "./route.js";
import { pathId } from "./routes.js";
import { serializeUserBasic, userBasicSchema } from "./serializers.js";

/** One kept version. */
export const objectVersionSchema = z
  .object({
    version: z.int().describe("The version's number, 1 and up."),
    activity: z
      .string()
      .describe("What wrote it: `created`, `updated`, `deleted` or `restored` (undeleted)."),
    restored_from: z.int().nullable().describe("The version a restore copied, when a restore wrote it."),
    created_by: userBasicSchema.nullable(),
    created_at: z.iso.datetime(),
    changes: z.array(activityChangeSchema).describe("Field changes from the version before it."),
    snapshot: z.record(z.string(), z.unknown()).describe("The object's fields under PostHog's model names."),
  })
  .meta({ id: "ObjectVersion" });

/** `version` in its REST shape. */
export function serializeObjectVersion(version: VersionWithChanges): z.output<typeof objectVersionSchema> {
  return {
    version: version.version,
    activity: version.activity,
    restored_from: version.restoredFrom,
    created_by: version.createdBy ? serializeUserBasic(version.createdBy) : null,
    created_at: drfDateTime(version.createdAt),
    changes: version.changes,
    snapshot: version.snapshot,
  };
}

/** A domain service's version operations (core/object-versions.ts `versionOperations`). */
export interface VersionService<T> {
  versions(
    ctx: ServiceContext,
    projectId: number,
    id: number,
    page: OffsetPage,
  ): Promise<{ count: number; results: VersionWithChanges[] }>;
  version(ctx: ServiceContext, projectId: number, id: number, version: number): Promise<VersionWithChanges>;
  restoreVersion(ctx: ServiceContext, projectId: number, id: number, version: number): Promise<T>;
}

/** What the routes of one model need: where, its scopes, its operations and its object's answer. */
export interface VersionRoutesOf<T> {
  /** The model's collection path, ending in `/` (e.g. `/api/projects/:project_id/feature_flags/`). */
  base: string;
  /** The model in summaries (`flag`). */
  noun: string;
  scopes: { read: Scope; write: Scope };
  service: VersionService<T>;
  /** The restored object's answer, and its schema (the model's update answer). */
  serialize(record: T, ctx: ServiceContext): unknown;
  objectSchema: z.ZodType;
  /** The restore's 409 body: the update's conflict, or the approval gate's hold (default: the conflict). */
  conflictSchema?: z.ZodType;
}

/** The three routes (see the module comment). */
export function versionRoutes<T>(limits: Limits, of: VersionRoutesOf<T>): RestRoute[] {
  const { base, noun, scopes, service } = of;
  const version = (params: Record<string, string>) => pathId(params, "version_number");
  return [
    offsetListRoute(limits, {
      path: `${base}:id/versions/`,
      summary: `The ${noun}'s kept versions, highest first, each with its changes from the one before; limit/offset pages.`,
      scopes: [scopes.read],
      query: z.object({}),
      pageSchema: paginatedListSchema(objectVersionSchema, "PaginatedObjectVersionList"),
      load: ({ ctx, projectId, params }, page) =>
        service.versions(ctx, projectId, pathId(params, "id"), page),
      serialize: serializeObjectVersion,
    }),
    {
      method: "GET",
      path: `${base}:id/versions/:version_number/`,
      summary: `One kept version of the ${noun} by number, with its changes from the one before.`,
      scopes: [scopes.read],
      responses: { 200: objectVersionSchema },
      handler: async ({ params, ctx }) => ({
        body: serializeObjectVersion(
          await service.version(ctx, pathId(params, "project_id"), pathId(params, "id"), version(params)),
        ),
      }),
    },
    {
      method: "POST",
      path: `${base}:id/versions/:version_number/restore/`,
      summary:
        `Restore the ${noun} to a kept version: a new version equal to it, written through the ${noun}'s ` +
        "update path (its rules, approvals, activity with a `version_restore` trigger, webhooks). The body is not read (too deep a one is refused).",
      scopes: [scopes.write],
      responses: { 200: of.objectSchema, 409: of.conflictSchema ?? errorBodySchema },
      handler: async ({ params, body, ctx }) => {
        // Not read, but refused when too deep to walk, as every body (core/json-input.ts).
        checkNestingDepth(body, ctx.limits.maxJsonDepth);
        const id = pathId(params, "id");
        const restored = await service.restoreVersion(ctx, pathId(params, "project_id"), id, version(params));
        return { body: of.serialize(restored, ctx) };
      },
    },
  ];
}
