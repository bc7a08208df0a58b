/**
 * Relay connections over keyset pages (src/core/keyset-cursor.ts): lists of data tables that page
 * forward from a cursor, newest first (a person's events, groups), where an offset would rescan
 * every skipped row. The service reads the page and says whether more follow; this module checks
 * the connection arguments and builds the edges and `pageInfo`.
 */
import { DEFAULT_PAGE_SIZE } from "../config.js";
import { ValidationError } from "../core/errors.js";
import type { ConnectionArgs } from "./offset-connection.js";

/**
 * The page size `args` ask for (`first`, default `DEFAULT_PAGE_SIZE`, clamped to `maxSize`).
 * @throws ValidationError for `last`/`before` (these lists page forward only) or a negative `first`.
 */
export function forwardPageSize(args: ConnectionArgs, maxSize: number): number {
  if (args.last != null || args.before != null) {
    throw new ValidationError("This list pages forward only: use `first` and `after`.");
  }
  if (args.first != null && args.first < 0) {
    throw new ValidationError("`first` must not be negative.", { attr: "first" });
  }
  return Math.min(args.first ?? DEFAULT_PAGE_SIZE, maxSize);
}

/** The connection of a page of `items`, each edge with the cursor of the page after it. */
export function keysetConnection<T>(
  items: readonly T[],
  cursorOf: (item: T) => string,
  page: { hasNextPage: boolean; hasPreviousPage: boolean },
) {
  const edges = items.map((node) => ({ cursor: cursorOf(node), node }));
  return {
    edges,
    pageInfo: {
      ...page,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}
