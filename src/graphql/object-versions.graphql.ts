/**
 * Version history in GraphQL (issue 27; core/object-versions.ts), shared by the versioned types
 * (`FeatureFlag.versions`, `Experiment.versions`): the `ObjectVersion` type, one connection type for
 * every such field, and the field helper. Each version carries its field-level diff to the version
 * before it (`changes`), in the activity log's `ActivityChange` shape.
 */
import type { Scope } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import type { VersionWithChanges } from "../core/object-versions.js";
import type { OffsetPage } from "../core/paging.js";
import { ActivityChangeRef } from "./activity-log.graphql.js";
import { builder, connectionTotalCount } from "./builder.js";
import type { GraphQLContext } from "./context.js";
import type { ErrorClass } from "./errors.graphql.js";
import { mutationResult, WRITE_ERRORS } from "./mutation-result.js";
import { resolveCountedConnection } from "./offset-connection.js";
import { UserRef } from "./refs.js";
import { requiresScopes } from "./scopes.js";

/** The `ObjectVersion` object type: one kept version of a flag or an experiment. */
export const ObjectVersionRef = builder.objectRef<VersionWithChanges>("ObjectVersion").implement({
  description:
    "One kept version of an object (REST `versions/:version/`): the whole object as a create or an update left it.",
  fields: (t) => ({
    version: t.exposeInt("version", { description: "The version's number, 1 and up." }),
    activity: t.exposeString("activity", {
      description: "What wrote it: `created`, `updated`, `deleted` or `restored` (undeleted).",
    }),
    restoredFrom: t.exposeInt("restoredFrom", {
      nullable: true,
      description: "The version a restore copied, when a restore wrote this one.",
    }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who wrote it; null for a user since deleted.",
      resolve: (version) => version.createdBy,
    }),
    createdAt: t.field({ type: "DateTime", description: "When.", resolve: (version) => version.createdAt }),
    changes: t.field({
      type: [ActivityChangeRef],
      description: "Field changes from the version before it (every field `created` for the first one kept).",
      resolve: (version) => version.changes,
    }),
    snapshot: t.field({
      type: "JSON",
      description: "The object's fields under PostHog's model names (snake_case, as REST's activity log).",
      resolve: (version) => version.snapshot,
    }),
  }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const ObjectVersionConnection = builder.connectionObject(
  {
    type: ObjectVersionRef,
    name: "ObjectVersionConnection",
    description: "A page of kept versions, highest first.",
    fields: (c) => ({
      totalCount: c.int({ description: "Versions on all pages together.", resolve: connectionTotalCount }),
    }),
  },
  { name: "ObjectVersionEdge", description: "A version in a page of versions." },
);

/**
 * The `versions` connection field of a versioned type: `read` loads a page of the parent's versions
 * (the domain service's `versions`, which checks its read scope).
 */
export function versionsField<Parent>(
  t: PothosSchemaTypes.ObjectFieldBuilder<Types, Parent>,
  description: string,
  read: (
    ctx: GraphQLContext,
    serviceContext: ServiceContext,
    parent: Parent,
    page: OffsetPage,
  ) => Promise<{ count: number; results: VersionWithChanges[] }>,
) {
  return t.connection(
    {
      type: ObjectVersionRef,
      description,
      resolve: async (parent, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          read(ctx, serviceContext, parent, page),
        );
      },
    },
    ObjectVersionConnection,
  );
}

/**
 * The parts of a restore mutation `name` (e.g. `RestoreFeatureFlagVersion`; REST `POST
 * <rest>/:id/versions/:version/restore/`) every versioned type shares: its input `{projectId, id,
 * version}`, its description and its result (`<name>Result`, the restored object in `field`), failing
 * with `WRITE_ERRORS` and `errors`. The domain defines the field with its own type and service call.
 */
export function restoreVersionMutation(options: {
  name: string;
  field: string;
  /** The object in descriptions, e.g. `The flag`. */
  what: string;
  /** The REST collection, e.g. `feature_flags`. */
  rest: string;
  scope: Scope;
  errors: readonly ErrorClass[];
}) {
  const Input = builder.inputType(`${options.name}Input`, {
    description: `Which kept version to restore (REST \`POST ${options.rest}/:id/versions/:version/restore/\`).`,
    fields: (t) => ({
      projectId: t.id({
        required: true,
        description: "The project: PostHog's integer id or its global `id`.",
      }),
      id: t.id({ required: true, description: "The object: its integer id or its global `id`." }),
      version: t.int({ required: true, description: "The kept version to restore." }),
    }),
  });
  return {
    Input,
    description:
      `Restores ${options.what.toLowerCase()} to a kept version: a new version equal to it, written through its ` +
      `update path (rules, approvals, activity, webhooks, subscriptions). Scope \`${options.scope}\`.`,
    extensions: requiresScopes(options.scope),
    errors: mutationResult({
      name: options.name,
      field: options.field,
      what: options.what,
      verb: "restored",
      types: [...WRITE_ERRORS, ...options.errors],
    }),
  };
}
