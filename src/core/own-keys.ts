/**
 * Lookups keyed by a caller's text. A table written as an object literal, or a dictionary built
 * from JSON, inherits `Object.prototype`: keyed by input, `TABLE["constructor"]`,
 * `TABLE["__proto__"]` or `TABLE["toString"]` find JavaScript's built-ins instead of nothing, and so
 * does `"hasOwnProperty" in TABLE`. Such a table is read through `ownValue` (and tested with
 * `Object.hasOwn`), or held in a Map.
 */

/** `table[key]` when `key` is one of the table's own keys, else undefined (never a prototype's). */
export function ownValue<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
