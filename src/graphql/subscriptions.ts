/**
 * What every subscription field shares: the root `Subscription` type, and `liveSubscription`, which
 * turns a service's live iterable into what graphql-js subscribes to. Subscriptions are served over
 * SSE by yoga at `/graphql` (GraphiQL uses it) and over WebSocket (`graphql-ws` protocol) at the same
 * path (graphql/websocket.ts). They are authorised, as queries, by the service when they begin and
 * again whenever access changes (core/auth/access.ts `authorizeProjectStream`; a refusal ends them
 * with the error: subscription-errors.ts over SSE, graphql-ws's `error` message over WebSocket);
 * each event then resolves the objects it names through the services, as of the event.
 */
import type { ObjectChange } from "../db/change-feed.js";
import { builder } from "./builder.js";
import type { GraphQLContext } from "./context.js";

builder.subscriptionType({
  description:
    "Live changes, over Server-Sent Events (`Accept: text/event-stream`, what GraphiQL uses) or WebSocket " +
    "(`graphql-ws` protocol, key in `connectionParams.Authorization` or the upgrade request's header). Each " +
    "needs the scope a query of the same objects needs, checked when it begins and again whenever the key, its " +
    "user or the project changes: once refused, it ends with the error (over SSE a last `next` carrying `errors`, " +
    "then `complete`; over WebSocket an `error` message). Events come in commit order " +
    'and never for a rolled-back write; an event with `activity: "reset"` says changes may have been missed ' +
    "(the server lost its database listener): re-read what you show. A subscription lasts at most the server's " +
    "`STREAM_MAX_LIFETIME_MS` (one hour by default): then the SSE response ends without `complete`, or the " +
    "WebSocket closes (1000), and the client subscribes again.",
});

/**
 * One event of an object subscription: a committed change of an object of `projectId`, or a `reset`.
 * `change` is the one object every subscriber of the project receives for that change.
 */
export type ChangeEvent = { projectId: number; change: ObjectChange | { kind: "reset" } };

/** What object subscriptions share their row reads by: the change itself (see `liveSubscription`). */
export const byChange = (event: ChangeEvent): object => event.change;

/**
 * What every object subscription's event shows, whatever the object (`FeatureFlagChange`,
 * `ExperimentChange`): the activity-log entry's activity, the object's id, the revision and the user.
 */
export const ConfigurationChangeRef = builder.interfaceRef<ChangeEvent>("ConfigurationChange").implement({
  description:
    "A committed change of a configuration object (one activity-log entry), or a `reset` (changes may have been " +
    "missed).",
  fields: (t) => ({
    activity: t.string({
      description:
        "What happened, as the activity log names it (`created`, `updated`, `deleted`, ...), or `reset`: changes " +
        "may have been missed, re-read what you show.",
      resolve: ({ change }) => (change.kind === "change" ? change.activity : "reset"),
    }),
    databaseId: t.int({
      nullable: true,
      description: "PostHog's integer id of the object; null for a `reset`.",
      resolve: ({ change }) =>
        change.kind === "change" && change.itemId !== null ? Number(change.itemId) : null,
    }),
    revision: t.string({
      nullable: true,
      description:
        "The project's configuration revision the change committed at (a decimal string); null for a `reset`.",
      resolve: ({ change }) => (change.kind === "change" ? String(change.revision) : null),
    }),
    userId: t.int({
      nullable: true,
      description:
        "PostHog's integer id of the user who made the change; null for system activity and a `reset`.",
      resolve: ({ change }) => (change.kind === "change" ? change.userId : null),
    }),
  }),
});

/**
 * The iterator graphql-js reads for a subscription: `start` opens the service's live iterable with an
 * abort signal, and ending the subscription (the client goes away: graphql-js calls `return()`)
 * aborts it, so a wait for the next event ends at once (an async generator's own `return()` would
 * wait for that event). Before each event the context is refreshed (context.ts), so the event's
 * fields read the objects as they are now; `sharedBy(event)`, when given, names the object every
 * subscriber of that event receives (the `ObjectChange`), whose row reads they then share.
 * @throws what `start` throws (the service's authorisation), before anything is sent.
 */
export async function liveSubscription<T>(
  ctx: GraphQLContext,
  start: (signal: AbortSignal) => Promise<AsyncIterable<T>>,
  sharedBy?: (event: T) => object,
): Promise<AsyncIterableIterator<T>> {
  const controller = new AbortController();
  const inner = (await start(controller.signal))[Symbol.asyncIterator]();
  const iterator: AsyncIterableIterator<T> = {
    next: async () => {
      const result = await inner.next();
      if (!result.done) ctx.refresh(sharedBy?.(result.value));
      return result;
    },
    return: async () => {
      controller.abort();
      await inner.return?.();
      return { value: undefined, done: true };
    },
    throw: async (error: unknown) => {
      controller.abort();
      await inner.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
