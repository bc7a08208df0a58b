/**
 * A lookup made at most once. A service that decides a write twice (from a first read, so refusals
 * come before any write, then again under the row lock inside the write's transaction) makes its
 * lookups that do not depend on the locked row through it: the second decision reuses the first's
 * answers and so issues no query outside the transaction (PGlite has one connection).
 */

/** `load`, called at most once: later calls answer the first call's promise (its value or its error). */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= load();
    return result;
  };
}
