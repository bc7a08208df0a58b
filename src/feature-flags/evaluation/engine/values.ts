/**
 * How the engine reads property values and filter values: the text, truthiness and number forms
 * PostHog's evaluators compare (Rust `property_matching.rs` `to_string_representation`,
 * `is_truthy_property_value`; posthog-node `@posthog/core` `featureFlagLocalEvaluation`
 * `exactMatchString`, `isTruthyPropertyValue`). Values are JSON values (strings, numbers, booleans,
 * null, arrays, objects), as stored or sent by SDKs.
 */

/** A property bag: person properties, or one group's properties. */
export type Properties = Readonly<Record<string, unknown>>;

/** True when `key` is one of the bag's own properties with a defined value. */
export function hasProperty(properties: Properties, key: string): boolean {
  return Object.hasOwn(properties, key) && properties[key] !== undefined;
}

/** JSON text with object keys sorted, as both evaluators render non-string values (serde's map order). */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(",")}}`;
}

/**
 * The text `exact`/`is_not` compare: a string as is, anything else as compact JSON (`30`, `true`,
 * `null`, `["a"]`). Integers print without a fraction, as the Rust service prints them (posthog-node
 * cannot tell `30` from `30.0` and defers those to the server).
 */
export function exactText(value: unknown): string {
  return typeof value === "string" ? value : canonicalJson(value);
}

/** The text substring and regex operators search, `String(value)` as posthog-node reads it. */
export function searchText(value: unknown): string {
  return String(value);
}

const ASCII_UPPER = /[A-Z]/;
const ASCII_UPPERS = /[A-Z]/g;

/**
 * ASCII-only lower case, as both evaluators fold case for `icontains` and friends. A text with no
 * ASCII capital (most values: it is compared for every flag that reads it) is returned as it is.
 */
export function asciiLower(text: string): string {
  return ASCII_UPPER.test(text) ? text.replace(ASCII_UPPERS, (c) => c.toLowerCase()) : text;
}

/** True for booleans, "true"/"false" in any case, and lists of only those (the empty list too). */
export function isBooleanLike(value: unknown): boolean {
  if (typeof value === "boolean") return true;
  if (typeof value === "string") {
    const lower = value.toLowerCase();
    return lower === "true" || lower === "false";
  }
  return Array.isArray(value) && value.every(isBooleanLike);
}

/** `true`, "true" in any case, or a list of only those (the empty list too). */
export function isTruthy(value: unknown): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") return value.toLowerCase() === "true";
  return Array.isArray(value) && value.every(isTruthy);
}

/** A number as `gt`/`lt` read it in posthog-node: numbers as is, anything else through `parseFloat`. */
export function looseNumber(value: unknown): number {
  return typeof value === "number" ? value : Number.parseFloat(String(value));
}

/** A number as the Rust service reads it (`to_f64_representation`): numbers, or text that is one. */
export function strictNumber(value: unknown): number | null {
  if (typeof value === "number") return value;
  const text = exactText(value).trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|infinity|nan)$/i.test(text)) return null;
  const lower = text.toLowerCase();
  if (lower.endsWith("inf") || lower.endsWith("infinity"))
    return lower.startsWith("-") ? -Infinity : Infinity;
  // Decimal texts as JavaScript reads them; "nan" in any case and sign is NaN there too.
  return Number(text);
}
