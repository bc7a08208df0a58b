/**
 * The per-request GraphQL context. Authentication is lazy: the key is looked up the first time a
 * resolver needs the actor, so introspection and GraphiQL work without a key while every field that
 * touches data requires one. Both the actor and the service context are built at most once per request.
 *
 * A subscription's context lives as long as the subscription, and each of its events is executed
 * with it: `refresh()` before each event forgets what earlier events read (the service context's
 * projects, every Pothos dataloader, which are cached per `Symbol.for("Pothos.contextCache")` key),
 * so each event shows the objects as they are, while the actor stays the one authorised at subscribe time
 * (when access changes, the subscription is authorised again with its key authenticated afresh:
 * `ServiceContext.renewal`, core/auth/access.ts `authorizeProjectStream`).
 * The rows an event names are read once for all its subscribers (core/shared-reads.ts).
 */
import type { Limits } from "../config.js";
import type { Actor } from "../core/auth/actor.js";
import { authenticate, type Credential } from "../core/auth/authenticate.js";
import {
  type ContextRenewal,
  createServiceContext,
  type DataAccess,
  type ServiceContext,
} from "../core/context.js";
import { type RateLimits, throwIfThrottled } from "../core/rate-limit.js";
import type { Services } from "../core/services.js";
import { type SharedReads, sharedReadsOf } from "../core/shared-reads.js";
import type { ResultRecording } from "./result-cache.js";

/** What every resolver receives. */
export interface GraphQLContext {
  readonly services: Services;
  readonly limits: Limits;
  /** The personal API key found in the request, or null. */
  readonly credential: Credential | null;
  /**
   * The authenticated caller, looked up once per request.
   * @throws AuthenticationError without a key (`not_authenticated`) or with an unknown one
   *   (`authentication_failed`); TooManyRequestsError (HTTP 429, `Retry-After`) past the key's rate limit.
   */
  actor(): Promise<Actor>;
  /** The context the services take, built once per request from `actor()`. @throws as `actor()`. */
  serviceContext(): Promise<ServiceContext>;
  /**
   * Forgets what this context read, keeping its actor (see the module comment). `event`: the live
   * event about to be resolved, whose row reads every subscriber of it shares (core/shared-reads.ts).
   */
  refresh(event?: object): void;
  /** This request's reads, when its result may be kept (./result-cache.ts); absent otherwise. */
  readonly reads?: ResultRecording;
}

/** The key Pothos caches its per-request dataloaders under (@pothos/core `contextCacheSymbol`). */
const POTHOS_CONTEXT_CACHE = Symbol.for("Pothos.contextCache");

/** Builds the context of one request. */
export function createGraphQLContext(deps: {
  data: DataAccess;
  services: Services;
  limits: Limits;
  rateLimits: RateLimits;
  credential: Credential | null;
  reads?: ResultRecording | undefined;
}): GraphQLContext {
  let actor: Promise<Actor> | undefined;
  let serviceContext: Promise<ServiceContext> | undefined;
  let shared: SharedReads | undefined;
  // A subscription's caller authenticated afresh when access changes (core/auth/open-streams.ts):
  // the same key, not counted against its rate limit again.
  const renewalOf = (found: Actor): ContextRenewal => ({
    id: `graphql ${found.apiKey.id}`,
    renew: async () =>
      createServiceContext(deps.data, await authenticate(deps.data, deps.credential), deps.limits),
  });
  const context: GraphQLContext & { [POTHOS_CONTEXT_CACHE]: object } = {
    [POTHOS_CONTEXT_CACHE]: {},
    services: deps.services,
    limits: deps.limits,
    credential: deps.credential,
    ...(deps.reads ? { reads: deps.reads } : {}),
    actor() {
      // The first use of the key counts the request against the key's rate limit, as REST does.
      actor ??= (async () => {
        const found = await authenticate(deps.data, deps.credential);
        throwIfThrottled(deps.rateLimits.waitForKey(found.apiKey.id));
        return found;
      })();
      return actor;
    },
    serviceContext() {
      serviceContext ??= context.actor().then((a) =>
        createServiceContext(deps.data, a, deps.limits, {
          shared,
          renewal: renewalOf(a),
          reads: deps.reads,
        }),
      );
      return serviceContext;
    },
    refresh(event) {
      context[POTHOS_CONTEXT_CACHE] = {};
      shared = event ? sharedReadsOf(event) : undefined;
      serviceContext = undefined;
    },
  };
  return context;
}
