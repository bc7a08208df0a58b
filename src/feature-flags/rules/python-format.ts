/**
 * Python renderings of JSON values, so that our messages and stored payloads match PostHog's byte
 * for byte: PostHog builds validation messages with f-strings (Python `str()` of the decoded value)
 * and re-serialises object payloads with `json.dumps` defaults.
 *
 * Numbers use JavaScript's formatting. Python's differs only for floats such as `1.0` (whose
 * float-ness JSON parsing in JavaScript has already erased) and for exponent spelling (`1e-07`).
 */

import { isJsonObject } from "./stored-filters.js";

/**
 * Python's truthiness of a JSON-decoded value (`if not value`): `None`, `False`, `0`, `""`, an empty
 * list and an empty object are falsy.
 */
export function isPythonFalsy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

/**
 * `str(value)` of a JSON-decoded value as Python prints it: a string bare, containers with Python
 * reprs inside (`['@posthog.com']`, `{'a': True}`), `True`/`False`/`None` for the JSON literals.
 */
export function pythonStr(value: unknown): string {
  return typeof value === "string" ? value : pythonRepr(value);
}

function pythonRepr(value: unknown): string {
  if (typeof value === "string") return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  if (isJsonObject(value)) {
    const items = Object.entries(value).map(([k, v]) => `${pythonStringRepr(k)}: ${pythonRepr(v)}`);
    return `{${items.join(", ")}}`;
  }
  if (value === true) return "True";
  if (value === false) return "False";
  if (value === null || value === undefined) return "None";
  return String(value);
}

// Python quotes with ' unless the text holds a ' and no ", then with ".
function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let body = text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
  if (quote === "'") body = body.replace(/'/g, "\\'");
  return quote + body + quote;
}

/**
 * Python's `json.dumps(value)` with default options: `", "` and `": "` separators and
 * `ensure_ascii` (every character outside printable ASCII escaped as a lower-case `\uXXXX`).
 * Returns `undefined` when the value is not JSON: `undefined`, a function, a non-finite number,
 * a bigint, or an object that is not a plain object (a `Date`, a `Map`...).
 */
export function pythonJsonDumps(value: unknown): string | undefined {
  if (value === null) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : undefined;
  if (typeof value === "string") return asciiJsonString(value);
  if (Array.isArray(value)) {
    const items = value.map(pythonJsonDumps);
    return items.every((item) => item !== undefined) ? `[${items.join(", ")}]` : undefined;
  }
  if (!isPlainObject(value)) return undefined;
  const members: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    const dumped = pythonJsonDumps(member);
    if (dumped === undefined) return undefined;
    members.push(`${asciiJsonString(key)}: ${dumped}`);
  }
  return `{${members.join(", ")}}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isJsonObject(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

// JSON.stringify already escapes quotes, backslashes and C0 controls exactly as Python does; what
// remains is DEL and everything above it, which Python escapes per UTF-16 unit.
function asciiJsonString(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
