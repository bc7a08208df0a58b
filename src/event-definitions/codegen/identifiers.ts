/**
 * Identifiers made from event and property names, by the rules of PostHog's generators
 * (`posthog/api/event_definition_generators/golang.py` and `python.py`, PostHog/posthog at
 * 733d61fb1af087661007836b7b11cfd27587eeb7 and d47c25761ffef4a83be4a577166e84df8464c77a, with the
 * cases of their test_golang.py and test_python.py): a name is split into its
 * ASCII letter-and-digit runs (everything else, non-ASCII letters included, separates words), joined
 * in PascalCase, camelCase or snake_case; a name starting with a digit gets a prefix; a keyword gets
 * a `_` suffix; a name already taken gets a numeric suffix (`name2` in Go, `name_2` in Python).
 */

/** The ASCII letter-and-digit runs of `name`, in order (`"café ordered!"` → `caf`, `ordered`). */
export function asciiWords(name: string): string[] {
  return name.split(/[^0-9A-Za-z]+/).filter((word) => word.length > 0);
}

/** Whether `text` starts with an ASCII digit. */
export function startsWithDigit(text: string): boolean {
  return /^[0-9]/.test(text);
}

/** `word` with its first letter upper-cased, the rest kept (`userID` → `UserID`). */
export function upperFirst(word: string): string {
  return word.slice(0, 1).toUpperCase() + word.slice(1);
}

/** `word` with its first letter upper-cased, the rest lower-cased (Python's `str.capitalize`). */
export function capitalize(word: string): string {
  return word.slice(0, 1).toUpperCase() + word.slice(1).toLowerCase();
}

/**
 * `base` if it is not in `used`, else `base` with the first free numeric suffix from 2, joined by
 * `separator`; the result is added to `used` (golang.py/python.py `_get_unique_name`).
 */
export function uniqueName(base: string, used: Set<string>, separator = ""): string {
  let name = base;
  for (let i = 2; used.has(name); i++) name = `${base}${separator}${i}`;
  used.add(name);
  return name;
}

/** Go's keywords (the Go specification, "Keywords"; golang.py `GO_RESERVED_KEYWORDS`). */
export const GO_KEYWORDS: ReadonlySet<string> = new Set([
  "break",
  "case",
  "chan",
  "const",
  "continue",
  "default",
  "defer",
  "else",
  "fallthrough",
  "for",
  "func",
  "go",
  "goto",
  "if",
  "import",
  "interface",
  "map",
  "package",
  "range",
  "return",
  "select",
  "struct",
  "switch",
  "type",
  "var",
]);

/**
 * Go identifiers a parameter may not take even though they are not keywords: `nil`, which the
 * generated functions compare with (`c.Properties == nil`); a parameter shadowing it would not compile.
 */
const GO_SHADOWED_PREDECLARED: ReadonlySet<string> = new Set(["nil"]);

/**
 * An exported Go identifier for an event (golang.py `_to_go_func_name`): PascalCase of the ASCII
 * words of `name` as a JSON string literal, each word's first letter upper-cased and the rest kept;
 * `Event` when there is none; prefixed `Event` when it starts with a digit.
 * `user-signed_up` → `UserSignedUp`; `1st purchase` → `Event1stPurchase`.
 * PostHog splits the JSON-quoted name, so an escape's letter starts a word (`a\nb` → `ANb`); kept.
 */
export function goExportedName(name: string): string {
  const pascal = asciiWords(JSON.stringify(name)).map(upperFirst).join("");
  if (pascal === "") return "Event";
  return startsWithDigit(pascal) ? `Event${pascal}` : pascal;
}

/**
 * A Go parameter name for a property (golang.py `_to_go_param_name`): camelCase of the ASCII words
 * of the JSON-quoted name, the first word lower-cased, the others capitalized; `param` before a
 * leading digit; `value` when there is no word; `_` after a Go keyword (and after `nil`, see
 * `GO_SHADOWED_PREDECLARED`). `file_name` → `fileName`; `type` → `type_`; `1st` → `param1st`.
 */
export function goParamName(name: string): string {
  const words = asciiWords(JSON.stringify(name));
  if (words.length === 0) return "value";
  if (startsWithDigit(words[0]!)) words[0] = `param${words[0]}`;
  const camel = words[0]!.toLowerCase() + words.slice(1).map(capitalize).join("");
  return GO_KEYWORDS.has(camel) || GO_SHADOWED_PREDECLARED.has(camel) ? `${camel}_` : camel;
}

/**
 * The PascalCase suffix of a property's option function (golang.py `_to_pascal_name`): each ASCII
 * word's first letter upper-cased, the rest kept; `Prop` when there is no word.
 */
export function goPascalSuffix(name: string): string {
  return asciiWords(JSON.stringify(name)).map(upperFirst).join("") || "Prop";
}

/** Python's keywords (python.py's `reserved_keywords`: the hard keywords of Python 3). */
export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set([
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
]);

/**
 * The method name of an event (python.py `_to_method_name`): its ASCII words lower-cased and joined
 * by `_`, `event` when there is none, prefixed `event_` before a digit, then prefixed `capture_`.
 * `downloaded_file` → `capture_downloaded_file`; `$pageview` → `capture_pageview`;
 * `API-Request` → `capture_api_request`; `123_start` → `capture_event_123_start`.
 */
export function pythonMethodName(eventName: string): string {
  const snake = asciiWords(eventName)
    .map((word) => word.toLowerCase())
    .join("_");
  if (snake === "") return "capture_event";
  return `capture_${startsWithDigit(snake) ? `event_${snake}` : snake}`;
}

/**
 * A Python identifier for a property (python.py `_to_python_identifier`): every run of characters
 * other than ASCII letters and digits becomes `_` (underscores included), leading and trailing `_`
 * dropped; `value` when nothing is left; `prop_` before a leading digit; `_` after a keyword.
 * `file-name` → `file_name`; `123test` → `prop_123test`; `class` → `class_`.
 */
export function pythonIdentifier(name: string): string {
  let identifier = name.replace(/[^0-9A-Za-z]+/g, "_").replace(/^_+|_+$/g, "");
  if (identifier === "") return "value";
  if (startsWithDigit(identifier)) identifier = `prop_${identifier}`;
  return PYTHON_KEYWORDS.has(identifier) ? `${identifier}_` : identifier;
}
