/**
 * Metric fingerprints (PostHog's `experiment_metric_fingerprint.py`; query-and-experiments.md 2a):
 * `sha256_hex(json.dumps(data, sort_keys=True, separators=(",", ":")))` with
 * `data = {"metric": metric minus uuid/name/kind/fingerprint, "experiment": {"start_date", "stats_config"}}`
 * plus `"exposure_criteria"` when it is truthy (a non-empty object).
 *
 * The one thing JavaScript cannot do from parsed values is tell `1.0` from `1`: Python keeps a float
 * a float (`json.dumps(1.0)` is `1.0`), `JSON.parse` makes both the number 1. So metrics are hashed
 * from their JSON *text*, never from parsed values: `parseJsonNumbers` parses that text keeping every
 * number's token (a `JsonNumber`), and `pythonJsonDumps` writes a token as Python would write the
 * value `json.loads` makes of it (an int token as the integer, exactly, however large; a token with
 * `.`, `e` or `E` as Python's `repr(float)`). The text is the request's own body (the REST door keeps
 * it beside the parsed body: `jsonSourceText`), and for metrics already stored, PostgreSQL's text of
 * the `jsonb` column, which keeps a numeric's written scale (`1.0` stays `1.0`), as the JSON that
 * PostHog's psycopg reads back does. A plain JS number (a GraphQL input, a default) is hashed as an
 * int when integral, else as a float: there the caller's intent is not recoverable, and integral
 * values are by far the common case (`conversion_window: 7`).
 */
import { createHash } from "node:crypto";

/** A JSON number as written in the text it was parsed from (`1`, `1.0`, `2.50`, `1e3`). */
export class JsonNumber {
  constructor(readonly token: string) {}

  /** Whether Python's `json.loads` makes a float of it (a fraction or an exponent), rather than an int. */
  get isFloat(): boolean {
    return /[.eE]/.test(this.token);
  }

  /** The number's value as a JS number (for comparisons; may round). */
  valueOf(): number {
    return Number(this.token);
  }

  /** Its value for `JSON.stringify` (which cannot write a token; `jsonTextWithNumbers` keeps it). */
  toJSON(): number {
    return Number(this.token);
  }
}

/** JSON text of `value` as `JSON.stringify` writes it, but `JsonNumber`s as their own tokens (`1.0` stays `1.0`). */
export function jsonTextWithNumbers(value: unknown): string {
  if (value instanceof JsonNumber) return value.token;
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? "null" : jsonTextWithNumbers(v))).join(",")}]`;
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonTextWithNumbers(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A JSON value whose numbers are `JsonNumber`s (from `parseJsonNumbers`) or plain numbers. */
export type JsonWithNumbers =
  | null
  | boolean
  | string
  | number
  | JsonNumber
  | JsonWithNumbers[]
  | { [key: string]: JsonWithNumbers };

/**
 * What a number token becomes before `JSON.parse` (a NUL then `n<index>`): no string of a request body
 * holds a NUL (the REST door refuses them), so no string is taken for a marker.
 */
const MARKER = "\u0000n";

/**
 * Parses JSON text as `JSON.parse` does, but every number is a `JsonNumber` holding its token.
 * @throws SyntaxError for text that is not JSON.
 */
export function parseJsonNumbers(text: string): JsonWithNumbers {
  const numbers: string[] = [];
  // Replace each number token (outside strings) by a marker string JSON.parse keeps as it is, then
  // swap the markers back: the grammar stays JSON.parse's own.
  let marked = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      marked += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
      if (!match) throw new SyntaxError(`Unexpected token in JSON at position ${i}`);
      marked += `"\\u0000n${numbers.length}"`;
      numbers.push(match[0]);
      i += match[0].length;
    } else {
      marked += c;
      i += 1;
    }
  }
  const restore = (value: unknown): JsonWithNumbers => {
    if (typeof value === "string") {
      if (!value.startsWith(MARKER)) return value;
      const index = Number(value.slice(MARKER.length));
      return Number.isInteger(index) && numbers[index] !== undefined ? new JsonNumber(numbers[index]) : value;
    }
    if (Array.isArray(value)) return value.map(restore);
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, restore(v)]));
    }
    return value as JsonWithNumbers;
  };
  return restore(JSON.parse(marked));
}

/** Python's `repr(float)`: the shortest round-trip digits, fixed for 1e-4 ≤ |x| < 1e16, else `1e+16`. */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const [mantissa, exp] = value.toExponential().split("e") as [string, string];
  const exponent = Number(exp);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = negative ? "-" : "";
  if (exponent >= 16 || exponent < -4) {
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const e = Math.abs(exponent).toString().padStart(2, "0");
    return `${sign}${digits[0]}${rest}e${exponent < 0 ? "-" : "+"}${e}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction || "0"}`;
}

/** A number token as Python's json.dumps writes the value json.loads makes of it. */
function pythonNumber(token: string): string {
  if (/[.eE]/.test(token)) return pythonFloatRepr(Number(token));
  const int = BigInt(token);
  return int.toString();
}

/** A string as `json.dumps(..., ensure_ascii=True)` writes it. */
function pythonString(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const c = value[i]!;
    if (c === '"') out += '\\"';
    else if (c === "\\") out += "\\\\";
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (c === "\t") out += "\\t";
    else if (c === "\b") out += "\\b";
    else if (c === "\f") out += "\\f";
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += c;
  }
  return `${out}"`;
}

/** Compares strings by code point, as Python sorts `str` keys (JS's default compares UTF-16 units). */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * `json.dumps(value, sort_keys=True, separators=(",", ":"))` (ensure_ascii on). `JsonNumber`s are
 * written from their tokens; plain numbers as ints when integral, else as Python floats.
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (value instanceof JsonNumber) return pythonNumber(value.token);
  if (typeof value === "number") {
    return Number.isInteger(value) ? BigInt(value).toString() : pythonFloatRepr(value);
  }
  if (typeof value === "string") return pythonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(",")}]`;
  if (value instanceof Date) return pythonString(pythonIsoformat(value));
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => byCodePoint(a, b));
  return `{${entries.map(([k, v]) => `${pythonString(k)}:${pythonJsonDumps(v)}`).join(",")}}`;
}

/** Python's `datetime.isoformat()` of an aware UTC datetime: `+00:00`, microseconds only when non-zero. */
export function pythonIsoformat(date: Date): string {
  const base = date.toISOString().slice(0, 19);
  const ms = date.getUTCMilliseconds();
  return `${base}${ms === 0 ? "" : `.${String(ms).padStart(3, "0")}000`}+00:00`;
}

/** Keys of a metric left out of its fingerprint (they do not change what is computed). */
const IGNORED_METRIC_KEYS = new Set(["uuid", "name", "kind", "fingerprint"]);

/** Whether a Python value is truthy (for `exposure_criteria`: a non-empty dict). */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === "") return false;
  if (value instanceof JsonNumber) return Number(value.token) !== 0;
  if (typeof value === "number") return value !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/**
 * A metric's fingerprint: SHA-256 hex of the canonical JSON of the metric (without uuid, name, kind,
 * fingerprint), the experiment's start date (`isoformat()` of a date, a string as given, else null)
 * and stats config, and the exposure criteria when truthy. Source: `experiment_metric_fingerprint.py`.
 */
export function computeMetricFingerprint(
  metric: Record<string, unknown>,
  startDate: Date | string | null,
  statsConfig: unknown,
  exposureCriteria: unknown,
): string {
  const data: Record<string, unknown> = {
    metric: Object.fromEntries(Object.entries(metric).filter(([key]) => !IGNORED_METRIC_KEYS.has(key))),
    experiment: {
      start_date: startDate instanceof Date ? pythonIsoformat(startDate) : (startDate ?? null),
      stats_config: statsConfig ?? null,
    },
  };
  if (truthy(exposureCriteria)) data["exposure_criteria"] = exposureCriteria;
  return createHash("sha256").update(pythonJsonDumps(data)).digest("hex");
}
