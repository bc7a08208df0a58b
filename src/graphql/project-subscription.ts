/**
 * What a subscription to one project's live changes is, whatever it hears (a domain's object changes,
 * the project's configuration revision): a root `Subscription` field with a required `projectId`
 * (PostHog's integer or the project's global id) and the domain's own arguments, the scope a query of
 * the same objects needs, and the service's live iterable turned into its events (subscriptions.ts
 * `liveSubscription`). The service authorises it when it begins and whenever access changes.
 */
import type { ArgBuilder, InputFieldMap, InputShapeFromFields } from "@pothos/core";
import type { Scope } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import { builder } from "./builder.js";
import type { GraphQLContext } from "./context.js";
import { parseProjectId } from "./ids.js";
import { requiresScopes } from "./scopes.js";
import { liveSubscription } from "./subscriptions.js";

/** The schema types of the builder, for helpers that take Pothos's builders. */
type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** How a project subscription is built (see `projectSubscriptionField`). */
export interface ProjectSubscription<Event, Item, Args extends InputFieldMap> {
  /** The type of each event (an object type over `Event`). */
  type: PothosSchemaTypes.ObjectRef<Types, Event>;
  /** The field's description, its scope sentence included. */
  description: string;
  /** The scope it needs on the project (`extensions.scopes`); the service checks it. */
  scope: Scope;
  /** Its arguments beside `projectId` (none when absent). */
  args?: (arg: ArgBuilder<Types>) => Args;
  /**
   * Opens the service's live iterable for project `projectId` (parsed) with the field's other
   * arguments, ended by `signal`. @throws the service's refusal, before anything is sent.
   */
  open: (
    ctx: GraphQLContext,
    serviceContext: ServiceContext,
    projectId: number,
    args: InputShapeFromFields<Args>,
    signal: AbortSignal,
  ) => Promise<AsyncIterable<Item>>;
  /** The event an item of the iterable is, in project `projectId`. */
  event: (projectId: number, item: Item) => Event;
  /** What subscribers of one event share their row reads by (`liveSubscription`'s `sharedBy`). */
  sharedBy?: (event: Event) => object;
}

/**
 * Adds the root field `Subscription.<name>`: a subscription to project `projectId`'s live changes
 * (see the module comment); each event resolves as `options.event` makes it.
 * @throws (when it begins) ProjectNotFoundError for a `projectId` that is neither an integer nor a
 *   `Project` global id, and what `options.open` throws.
 */
export function projectSubscriptionField<Event, Item, Args extends InputFieldMap = Record<never, never>>(
  name: string,
  options: ProjectSubscription<Event, Item, Args>,
): void {
  builder.subscriptionField(name, (t) =>
    t.field({
      type: options.type,
      description: options.description,
      extensions: requiresScopes(options.scope),
      args: {
        projectId: t.arg.id({
          required: true,
          description: "PostHog's integer project id, or the project's global `id`.",
        }),
        ...(options.args?.(t.arg) as Args),
      },
      subscribe: async (_root, parsed, ctx) => {
        // Pothos cannot see through `Args` here: the arguments are `projectId` and `Args`' own.
        const args = parsed as unknown as { projectId: string | number } & InputShapeFromFields<Args>;
        const projectId = parseProjectId(args.projectId);
        const serviceContext = await ctx.serviceContext();
        return liveSubscription(
          ctx,
          async (signal) => {
            const items = await options.open(ctx, serviceContext, projectId, args, signal);
            return (async function* () {
              for await (const item of items) yield options.event(projectId, item);
            })();
          },
          options.sharedBy,
        );
      },
      // Each event is the field's value as is; Pothos cannot see through the generic `Event` here.
      resolve: (event) => event as never,
    }),
  );
}
