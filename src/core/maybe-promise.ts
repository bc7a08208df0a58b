/**
 * Values that are ready at once when the process already holds them, and promises otherwise: what
 * the steps of a hot path return (authentication, project authorization, the local-evaluation
 * payload), so that one pipeline serves a request with no promise and no statement when everything
 * is held (sdk/known-answers.ts) and waits only where it must read.
 */

/** A value now, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `next(value)`: at once when `value` is not a promise, else once it resolves (a rejection passes
 * through). A throw of `next` on a ready value is thrown at once.
 */
export function andThen<T, U>(value: MaybePromise<T>, next: (ready: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
