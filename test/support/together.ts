/**
 * Concurrent writers for the concurrency tests (test/app/concurrency.*.test.ts): requests all started
 * before any answer is read, and their answers counted by status.
 */

/** `count` requests made by `make(i)`, all started before any is awaited. */
export function together<T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => make(i)));
}

/** How many answers have each status, as `{200: 1, 409: 49}`. */
export function statusCounts(answers: readonly { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
