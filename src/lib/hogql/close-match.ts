/**
 * Close matches of a misspelt name, for PostHog's hints (`Perhaps you meant 'count(...)'?`,
 * `Did you mean: a, b?`), which come from Python's `difflib.get_close_matches` (cutoff 0.6). The
 * score here is 1 − edit distance / longer length: close to difflib's ratio for short names.
 */

function similarity(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const row = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= y.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (x[i - 1] === y[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return 1 - row[y.length]! / Math.max(x.length, y.length, 1);
}

/** Up to `n` candidates scoring at least `cutoff` against `word`, best first (never `word` itself). */
export function closeMatches(word: string, candidates: Iterable<string>, n = 3, cutoff = 0.6): string[] {
  return [...new Set(candidates)]
    .filter((candidate) => candidate !== word)
    .map((candidate) => ({ candidate, score: similarity(word, candidate) }))
    .filter(({ score }) => score >= cutoff)
    .sort((a, b) => b.score - a.score)
    .slice(0, n)
    .map(({ candidate }) => candidate);
}
