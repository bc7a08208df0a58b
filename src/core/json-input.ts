/**
 * Guards on JSON that comes from a caller, whichever door it came through, so that what passes can
 * be parsed, walked and stored: no prototype-poisoning keys, a bounded nesting depth, and text that
 * PostgreSQL accepts. Every walk here is iterative, so input nested far deeper than the call stack
 * (100,000 arrays) is measured and refused, never a stack overflow.
 */
import secureJsonParse from "secure-json-parse";
import { databaseErrorOf } from "../db/database-error.js";
import { ValidationError } from "./errors.js";

/**
 * Parses JSON text as Python's `json.loads` does for a DRF `JSONParser`, minus what could reach an
 * object prototype: `__proto__` keys, and `constructor` keys holding a `prototype`, are dropped
 * wherever they are (an unknown field, which DRF ignores anyway).
 * @throws SyntaxError for text that is not JSON (the caller turns it into a parse error).
 */
export function parseJson(text: string): unknown {
  return secureJsonParse(text, null, { protoAction: "remove", constructorAction: "remove" });
}

/** Where `parseJsonKeepingSource` keeps the text an object or array was parsed from (non-enumerable). */
const JSON_SOURCE = Symbol("jsonSource");

/**
 * `parseJson`, keeping the text on the parsed object or array (see `jsonSourceText`): the REST door's
 * JSON bodies, whose numbers some rules need as written.
 * @throws SyntaxError for text that is not JSON.
 */
export function parseJsonKeepingSource(text: string): unknown {
  const value = parseJson(text);
  if (value !== null && typeof value === "object") {
    Object.defineProperty(value, JSON_SOURCE, { value: text, enumerable: false });
  }
  return value;
}

/**
 * The JSON text a request body was parsed from, when it came to the REST door as JSON (undefined for
 * form bodies and built values): for what needs the numbers as written, such as metric fingerprints,
 * which tell `1.0` from `1` as Python does (src/experiments/rules/fingerprint.ts).
 */
export function jsonSourceText(body: unknown): string | undefined {
  if (body === null || typeof body !== "object") return undefined;
  return (body as { [JSON_SOURCE]?: string })[JSON_SOURCE];
}

/** How many object/array levels a value has: 0 for a scalar, 1 for `{}` or `[1]`, 2 for `[[1]]`. */
function exceedsDepth(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    if (depth > maxDepth) return true;
    for (const child of Object.values(current)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Refuses input whose nesting is deeper than `maxDepth` object/array levels. For a body (a plain
 * object) the depth is counted per field, each field's value being level 1, and `attr` names the
 * field; any other input counts from itself, with no `attr`. Deep JSON would otherwise overflow the
 * stack of whatever walks it next (zod, the flag rules, Prisma's serialiser), and no PostHog client
 * sends more than a handful of levels.
 * @throws ValidationError `max_depth`, "Ensure this field has no more than N levels of nesting."
 */
export function checkNestingDepth(input: unknown, maxDepth: number): void {
  const fail = (attr: string | null) =>
    new ValidationError(`Ensure this field has no more than ${maxDepth} levels of nesting.`, {
      attr,
      code: "max_depth",
    });
  if (isPlainRecord(input)) {
    for (const [field, value] of Object.entries(input)) {
      if (exceedsDepth(value, maxDepth)) throw fail(field);
    }
  } else if (exceedsDepth(input, maxDepth)) {
    throw fail(null);
  }
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A surrogate half without its partner (code units, hence no `u` flag). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * DRF's `ProhibitNullCharactersValidator` and `ProhibitSurrogateCharactersValidator`
 * (`rest_framework/validators.py`, on every `CharField`) for one string. PostgreSQL refuses both in
 * text (22021) and in jsonb (22P05), so we apply them to every string we store.
 * @throws ValidationError `null_characters_not_allowed` or `surrogate_characters_not_allowed`.
 */
export function checkStorableString(text: string, attr: string | null): void {
  if (text.includes("\u0000")) {
    throw new ValidationError("Null characters are not allowed.", {
      attr,
      code: "null_characters_not_allowed",
    });
  }
  const surrogate = LONE_SURROGATE.exec(text);
  if (surrogate) {
    const codePoint = surrogate[0].charCodeAt(0).toString(16).toUpperCase();
    throw new ValidationError(`Surrogate characters are not allowed: U+${codePoint}.`, {
      attr,
      code: "surrogate_characters_not_allowed",
    });
  }
}

/**
 * PostgreSQL's SQLSTATEs for a NUL in a value: in text, 22021 `character_not_in_repertoire`
 * ("invalid byte sequence for encoding "UTF8": 0x00"; a JS string encodes to no other invalid
 * byte), and in jsonb, 22P05 `untranslatable_character` ("\u0000 cannot be converted to text").
 */
const NUL_REFUSALS = new Set(["22021", "22P05"]);

/**
 * The error `checkStorableString` gives a NUL, for a statement the database refused because a value
 * held one; null for any other failure. The doors' last line for a string from a request that
 * reached a statement unchecked: the caller's 400 (DRF's message; no `attr`, as which value it was
 * is not known) rather than a 500. Every door checks its input before this is needed.
 */
export function unstorableTextError(error: unknown): ValidationError | null {
  const refusal = databaseErrorOf(error);
  if (!refusal?.code || !NUL_REFUSALS.has(refusal.code)) return null;
  return new ValidationError("Null characters are not allowed.", { code: "null_characters_not_allowed" });
}

/** A node of the walk in `checkStorableText`: its key and its parent, so a path is built only on failure. */
interface PathNode {
  key: string;
  parent: PathNode | null;
}

function joinPath(node: PathNode | null): string | null {
  const keys: string[] = [];
  for (let at = node; at; at = at.parent) keys.push(at.key);
  return keys.length > 0 ? keys.reverse().join("__") : null;
}

/**
 * Applies `checkStorableString` to every string in `value`: values and object keys, at any depth of
 * arrays and plain objects. `attr` is the path to the offending value joined by `__`
 * (`filters__groups__0__properties__0__value`); for an offending key, the path to its object.
 * Other objects (a `Date`) are not walked. Run it on validated output, so that fields DRF ignores
 * are not checked.
 * @throws ValidationError as `checkStorableString`.
 */
export function checkStorableText(value: unknown): void {
  const stack: Array<[unknown, PathNode | null]> = [[value, null]];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current === "string") {
      checkStorableString(current, joinPath(path));
    } else if (Array.isArray(current)) {
      // Children go on the stack last-first, so the first offending item is the one reported.
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push([current[index], { key: String(index), parent: path }]);
      }
    } else if (current !== null && typeof current === "object") {
      const prototype = Object.getPrototypeOf(current);
      if (prototype !== Object.prototype && prototype !== null) continue;
      const entries = Object.entries(current);
      for (const [key] of entries) checkStorableString(key, joinPath(path));
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index]!;
        stack.push([item, { key, parent: path }]);
      }
    }
  }
}

/**
 * Refuses a query string holding a NUL character (e.g. `?search=%00`), which no database query can
 * carry, or a lone surrogate: 400 `null_characters_not_allowed` (or `surrogate_characters_not_allowed`),
 * `attr` the parameter's name.
 * @throws ValidationError.
 */
export function checkStorableQuery(query: URLSearchParams): void {
  for (const [name, value] of query) {
    checkStorableString(name, name);
    checkStorableString(value, name);
  }
}
