/**
 * A subscription that fails after it began (its caller's access was revoked: core/auth/access.ts
 * `authorizeProjectStream`; or an event could not be read), over HTTP: GraphQL over SSE's way, a
 * last `next` event whose result carries the error, then `complete`. Left alone, yoga would break
 * the response off without either. The error arrives masked (server.ts: a DomainError as its
 * PostHog code, anything else as "Unexpected error.", logged).
 *
 * HTTP only (yoga's `onExecutionResult` hook runs for HTTP requests): over WebSocket, graphql-ws
 * answers the same failure with its own `error` message for the operation (graphql/websocket.ts).
 */
import type { ExecutionResult, GraphQLError } from "graphql";
import { createGraphQLError, isAsyncIterable, type Plugin } from "graphql-yoga";

/** `error` as a GraphQL error (it is one once masked; anything else is shown as yoga's masked error). */
function asGraphQLError(error: unknown): GraphQLError {
  return typeof error === "object" && error !== null && "extensions" in error && "message" in error
    ? (error as GraphQLError)
    : createGraphQLError("Unexpected error.", { extensions: { code: "INTERNAL_SERVER_ERROR" } });
}

/**
 * `results`, with a failure turned into a last result carrying the error. `return()` goes straight
 * to `results` (an async generator's would wait for the pending event).
 */
function endingWithError(results: AsyncIterable<ExecutionResult>): AsyncIterableIterator<ExecutionResult> {
  const inner = results[Symbol.asyncIterator]();
  let failed = false;
  const iterator: AsyncIterableIterator<ExecutionResult> = {
    next: async () => {
      if (failed) return { value: undefined, done: true };
      try {
        return await inner.next();
      } catch (error) {
        failed = true;
        return { value: { errors: [asGraphQLError(error)] }, done: false };
      }
    },
    return: async () => {
      failed = true;
      await inner.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** Ends a failing subscription over SSE with its error, then `complete` (see the module comment). */
export function useSubscriptionErrorsOverSse(): Plugin {
  return {
    onExecutionResult({ result, setResult }) {
      if (isAsyncIterable(result)) setResult(endingWithError(result as AsyncIterable<ExecutionResult>));
    },
  };
}
