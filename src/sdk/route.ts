/**
 * What the SDK door (./routes.ts) serves: a domain declares its SDK paths as `SdkRoute`s, the
 * composition root lists them.
 */
import type { FastifyBaseLogger } from "fastify";
import type { z } from "zod";
import type { Limits } from "../config.js";
import type { ProjectTokenCache } from "../core/auth/project-token.js";
import type { Scope } from "../core/auth/scopes.js";
import type { DataAccess, ServiceContext } from "../core/context.js";
import type { DomainError } from "../core/errors.js";
import type { ServerSentEvent } from "../core/event-stream.js";
import type { MaybePromise } from "../core/maybe-promise.js";
import type { RateLimits, RateScope } from "../core/rate-limit.js";
import type { Services } from "../core/services.js";

/** Methods an SDK path takes (OPTIONS is answered for every path). */
export type SdkMethod = "GET" | "POST";

/** How an SDK path takes a personal API key (`SdkRoute.personalKey`). */
export interface PersonalKeyAccess {
  /** The scopes the key needs (the service enforces them; the OpenAPI document lists them). */
  scopes: readonly Scope[];
  /**
   * What a request without a `token` gets: `required`, a 400 (PostHog's Rust `/flags/definitions`
   * requires it), or `current_project`, the key's user's current project (PostHog's legacy
   * `/api/feature_flag/` paths).
   */
  whenNoToken: "required" | "current_project";
}

/** What an SDK handler gets. */
export interface SdkRequest {
  /**
   * The id of the project the request's token names (only the id: see `ProjectTokenCache`); on a
   * `personalKey` route without a token, the key's user's current project.
   */
  projectId: number;
  /** The token that named it ("" on a `personalKey` route without one). */
  token: string;
  /**
   * The decoded JSON payload (an event, an array of events, a batch, a flags body...); undefined for
   * `tokenIn: "path"`, and for an empty body on a route that `allowEmptyBody`.
   */
  payload: unknown;
  /** The route's path parameters (`:key` → its decoded value). */
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** The request's headers (lower-case names), e.g. for the runtime an SDK runs in. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The request's id (its `X-Request-Id`, or a new UUID: src/app.ts). */
  requestId: string;
  /** The route's path as declared (with its trailing slash), e.g. `/engage/`. */
  path: string;
  /** The request's logger, for failures a handler answers without throwing. */
  log: FastifyBaseLogger;
  /** The services' clock (tests fix it): what a handler stamps its answers with (`evaluated_at`). */
  now: () => Date;
  /** On a `personalKey` route: the caller's context (its key's user, scopes, projects). */
  ctx?: ServiceContext;
  /** On an `eventStream` route: aborts when the client goes away or the server closes. */
  signal?: AbortSignal;
}

/**
 * A handler's answer: a body with a status (200 unless given), sent as JSON, or as given (a string)
 * with `contentType`.
 */
export interface SdkReply {
  status?: number;
  body: unknown;
  /** The body's media type when it is not JSON (e.g. `application/javascript`). */
  contentType?: string;
  /** Headers to send (e.g. `ETag`); a cross-origin page may read them (`Access-Control-Expose-Headers`). */
  headers?: Readonly<Record<string, string>>;
  /**
   * An `eventStream` route's answer: the events, sent as a `text/event-stream` as they come
   * (core/event-stream.ts) in place of `body`; their end ends the response.
   */
  events?: AsyncIterable<ServerSentEvent>;
}

/** One SDK path: token-authenticated, or by a personal API key (`personalKey`). */
export interface SdkRoute {
  methods: readonly SdkMethod[];
  /** The path with its trailing slash; the server answers without it too. */
  path: string;
  /** One line on what the route does. */
  summary: string;
  /** Largest body, and largest decoded payload, in bytes (413 beyond). */
  bodyLimitBytes: number;
  /**
   * Where the project token is: in the payload or query (default); in the `:token` path segment, in
   * which case no payload is read (the handler gets `payload: undefined`); or in the request's
   * `Authorization: Bearer` or `X-API-Key` header (./token.ts `headerToken`).
   */
  tokenIn?: "payload" | "path" | "header";
  /** An empty body is no payload (`payload: undefined`) rather than capture's 400. Default false. */
  allowEmptyBody?: boolean;
  /**
   * The route's own error answers, instead of PostHog's body: `error` is the failure as a domain
   * error, or null for an unexpected one (logged by the door, its cause never shown).
   */
  renderError?: (error: DomainError | null, params: Readonly<Record<string, string>>) => SdkReply;
  /**
   * The answer to a GET with no payload at all (no body, no `data`), before any token is looked for;
   * `now` is the services' clock.
   */
  answerWithoutPayload?: (query: URLSearchParams, now: () => Date) => SdkReply;
  /**
   * The rate limit the route counts against (core/rate-limit.ts: capture's and flag evaluation's per
   * token, local evaluation's per project on a `personalKey` route, each off unless configured);
   * none when absent (the remote config, preflights, the definitions streams).
   */
  rateScope?: RateScope;
  /**
   * A path PostHog authenticates with a personal API key instead (./personal-key.ts): the query's
   * `token` only names the project, the handler gets the caller's `ctx` and that project's id.
   */
  personalKey?: PersonalKeyAccess;
  /**
   * A `personalKey` GET SDKs poll every 30 s: offered each request before routing (./known-answers.ts);
   * when admission and `handler` answer at once (everything held: no statement, no wait) with a
   * `Buffer` body or none, the answer is written without fastify.
   */
  answersFromMemory?: boolean;
  /** A `personalKey` GET whose handler answers `events` (an event stream), with the request's `signal`. */
  eventStream?: boolean;
  /**
   * For a path PostHog's API schema documents (the personal-key paths): its query and answers by
   * status (zod schemas; null for no body) and its resource tag, for the OpenAPI document.
   */
  documented?: {
    query: z.ZodObject;
    responses: Readonly<Partial<Record<number, z.ZodType | null>>>;
    tag: string;
  };
  /** The answer: at once (not a promise) when every step of it is held by the process. */
  handler: (request: SdkRequest) => MaybePromise<SdkReply>;
}

/** A domain's SDK module: builds its routes from the services. */
export type SdkModule = (services: Services, limits: Limits) => SdkRoute[];

/** What the SDK door needs from the composition root. */
export interface SdkDeps {
  /** The process's token → project cache (core/auth/project-token.ts): finds a token's project. */
  tokens: ProjectTokenCache;
  /** The data the personal-key paths authenticate with (their keys, `personalKey`). */
  data: DataAccess;
  /** The process's limits: a personal-key request's context carries them. */
  limits: Limits;
  /** The process's rate limits (a route's `rateScope`). */
  rateLimits: RateLimits;
  /** The services' clock; default: the system clock. */
  now?: () => Date;
}
