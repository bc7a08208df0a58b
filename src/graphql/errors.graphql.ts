/**
 * Expected failures as GraphQL sees them: one object type per class of the core's error hierarchy
 * (src/core/errors.ts), all implementing the `Error` interface. Mutations list the ones they can
 * return and plugin-errors turns a thrown `DomainError` of those classes into a typed result.
 * Reads (query fields) answer null with a GraphQL error instead; `toGraphQLError` gives that error
 * the same `code` and, for validation, the same `attr` and `field`. Anything that is not a
 * DomainError stays masked by yoga.
 */
import type { GraphQLError } from "graphql";
import { createGraphQLError } from "graphql-yoga";
import {
  AuthenticationError,
  ConflictError,
  type DomainError,
  NotFoundError,
  NotImplementedError,
  PermissionDeniedError,
  TooManyRequestsError,
  ValidationError,
} from "../core/errors.js";
import { ownValue } from "../core/own-keys.js";
import { builder } from "./builder.js";

/** A class of the core's error hierarchy, as plugin-errors' `types` lists them. */
export type ErrorClass = new (...args: never[]) => DomainError;

/** Request fields that GraphQL names differently from PostHog beyond camelCase. */
const RENAMED_FIELDS: Record<string, string> = {
  // The optimistic-concurrency token is an expectation in every GraphQL input (PostHog's `version`).
  version: "expectedVersion",
};

/**
 * The GraphQL input field for a PostHog field path (`attr`): each `__`-separated segment in
 * camelCase without leading underscores, joined by `.` (`evaluation_tags` → `evaluationTags`,
 * `_create_in_folder` → `createInFolder`, `tags__0` → `tags.0`). Null for a non-field error.
 */
function graphqlFieldName(attr: string | null): string | null {
  if (attr === null) return null;
  return attr
    .split("__")
    .map(
      (segment) =>
        ownValue(RENAMED_FIELDS, segment) ??
        segment.replace(/^_+/, "").replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase()),
    )
    .join(".");
}

/**
 * A DomainError as a GraphQL error at the place `located` points to (path, locations), for fields
 * without typed errors. `extensions`: `code` (PostHog's, as in the typed error), `errorType` (the
 * typed error's GraphQL name) and, for validation, `attr` and `field`. It carries no
 * `originalError`: yoga then treats it as an intended error, not an unexpected one. Built with
 * yoga's `createGraphQLError` so that it is of the `graphql` instance yoga checks against.
 */
export function toGraphQLError(error: DomainError, located?: GraphQLError): GraphQLError {
  const extensions: Record<string, unknown> = { code: error.code, errorType: error.name };
  if (error instanceof ValidationError) {
    extensions["attr"] = error.attr;
    extensions["field"] = graphqlFieldName(error.attr);
  }
  if (error instanceof TooManyRequestsError && error.retryAfterSeconds !== undefined) {
    // A rate limit refuses the whole request: yoga answers it with this status and header.
    extensions["retryAfterSeconds"] = error.retryAfterSeconds;
    extensions["http"] = { status: 429, headers: { "Retry-After": String(error.retryAfterSeconds) } };
  }
  return createGraphQLError(error.detail, {
    nodes: located?.nodes,
    source: located?.source,
    positions: located?.positions,
    path: located?.path,
    extensions,
  });
}

/** The `Error` interface every typed error implements (domains implement their own errors with it). */
export const ErrorInterface = builder.interfaceRef<DomainError>("Error").implement({
  description:
    "An expected failure, returned as a typed result instead of a GraphQL error. The same failure through REST " +
    "is PostHog's `{type, code, detail, attr}` body (posthog-behavior.md §1.3).",
  fields: (t) => ({
    message: t.string({
      description: "What went wrong, safe to show (PostHog's `detail`, verbatim).",
      resolve: (error) => error.detail,
    }),
    code: t.exposeString("code", {
      description:
        "PostHog's machine-readable error code, e.g. `invalid_input`, `unique`, `not_found`, `conflict`.",
    }),
  }),
});

builder.objectType(ValidationError, {
  name: "ValidationError",
  description: "The input broke a rule (HTTP 400 through REST). Messages and codes are PostHog's (DRF's).",
  interfaces: [ErrorInterface],
  fields: (t) => ({
    attr: t.exposeString("attr", {
      nullable: true,
      description:
        "The offending field as REST names it (PostHog's `attr`: snake_case, nested paths joined by `__`); " +
        "null when the rule concerns the input as a whole.",
    }),
    field: t.string({
      nullable: true,
      description:
        "The same field as this API names it: camelCase, nested paths joined by `.`; null when `attr` is.",
      resolve: (error) => graphqlFieldName(error.attr),
    }),
  }),
});

builder.objectType(NotFoundError, {
  name: "NotFoundError",
  description: "The object does not exist in this project (HTTP 404 through REST).",
  interfaces: [ErrorInterface],
});

builder.objectType(PermissionDeniedError, {
  name: "PermissionDeniedError",
  description:
    "The key lacks the scope the operation needs, is limited to other projects or organizations, or its user is " +
    "not a member of the project's organization (HTTP 403 through REST).",
  interfaces: [ErrorInterface],
});

builder.objectType(AuthenticationError, {
  name: "AuthenticationError",
  description:
    "No personal API key was sent (`not_authenticated`) or it matches no active key (`authentication_failed`); " +
    "HTTP 401 through REST.",
  interfaces: [ErrorInterface],
});

builder.objectType(ConflictError, {
  name: "ConflictError",
  description:
    "The object changed since the caller read it: its version is not `expectedVersion` (HTTP 409 through REST). " +
    "Read it again and retry.",
  interfaces: [ErrorInterface],
});

builder.objectType(NotImplementedError, {
  name: "NotImplementedError",
  description:
    "A documented PostHog feature this service does not provide yet; the message says which (HTTP 501).",
  interfaces: [ErrorInterface],
});

builder.objectType(TooManyRequestsError, {
  name: "TooManyRequestsError",
  description:
    "Too many requests: more query runs in flight for the project than configured, or the key's rate limit " +
    "(HTTP 429 through REST). Retry later.",
  interfaces: [ErrorInterface],
  fields: (t) => ({
    retryAfterSeconds: t.int({
      nullable: true,
      description: "Seconds until a retry may succeed (REST's `Retry-After`); null when not known.",
      resolve: (error) => error.retryAfterSeconds ?? null,
    }),
  }),
});

/**
 * The typed errors of a field that runs a query (an endpoint's run, an experiment's results): who may
 * not, what is missing or invalid, too many runs in flight, and what is not built.
 */
export const QUERY_RUN_ERRORS = [
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ValidationError,
  TooManyRequestsError,
  NotImplementedError,
];
