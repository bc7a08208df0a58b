/**
 * Input validation at the edge of the core: zod schemas whose failures read like Django REST
 * Framework's, because PostHog clients match on them (posthog-behavior.md §1.3). The first issue
 * becomes a `ValidationError` with DRF's `code` and message and `attr` = the field path joined by `__`.
 * Whatever passes is safe to store: bounded nesting, no NUL or lone surrogate in any string.
 */
import { z } from "zod";
import { DEFAULT_MAX_JSON_DEPTH, type Limits } from "../config.js";
import { ValidationError } from "./errors.js";
import { FormBody, formInput } from "./form-body.js";
import { checkNestingDepth, checkStorableText } from "./json-input.js";

/** Python's name for a JSON value's type, as DRF prints it in messages (`str`, `int`, `list`, `dict`, ...). */
export function pythonType(value: unknown): string {
  if (value === null) return "NoneType";
  if (Array.isArray(value)) return "list";
  switch (typeof value) {
    case "string":
      return "str";
    case "boolean":
      return "bool";
    case "number":
      return Number.isInteger(value) ? "int" : "float";
    default:
      return "dict";
  }
}

/** Maps a zod issue to DRF's (code, message). */
function drfError(issue: z.core.$ZodIssue): { code: string; message: string } {
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case "invalid_type":
      if (input === undefined) return { code: "required", message: "This field is required." };
      if (input === null) return { code: "null", message: "This field may not be null." };
      switch (issue.expected) {
        case "boolean":
          return { code: "invalid_input", message: "Must be a valid boolean." };
        case "int":
        case "number":
          return { code: "invalid_input", message: "A valid integer is required." };
        case "array":
          return {
            code: "not_a_list",
            message: `Expected a list of items but got type "${pythonType(input)}".`,
          };
        case "object":
        case "record":
          return {
            code: "not_a_dict",
            message: `Expected a dictionary of items but got type "${pythonType(input)}".`,
          };
        default:
          return { code: "invalid_input", message: "Not a valid string." };
      }
    case "invalid_value":
      return { code: "invalid_choice", message: `"${String(input)}" is not a valid choice.` };
    case "too_big":
      if (issue.origin === "string") {
        return {
          code: "max_length",
          message: `Ensure this field has no more than ${issue.maximum} characters.`,
        };
      }
      if (issue.origin === "array") {
        return {
          code: "max_length",
          message: `Ensure this field has no more than ${issue.maximum} elements.`,
        };
      }
      return {
        code: "max_value",
        message: `Ensure this value is less than or equal to ${issue.maximum}.`,
      };
    case "too_small":
      if (issue.origin === "string") return { code: "blank", message: "This field may not be blank." };
      return {
        code: "min_value",
        message: `Ensure this value is greater than or equal to ${issue.minimum}.`,
      };
    case "custom":
      return { code: String(issue.params?.["code"] ?? "invalid_input"), message: issue.message };
    default:
      return { code: "invalid_input", message: issue.message };
  }
}

/**
 * Parses `input` with `schema` or throws the first problem as a DRF-shaped `ValidationError`, in
 * this order:
 * 1. a `FormBody` is read into plain input by the schema's field types (form-body.ts);
 * 2. a body that is not a JSON object fails as DRF does: `Invalid data. Expected a dictionary, but got <type>.`;
 * 3. nesting deeper than `limits.maxJsonDepth` fails with `max_depth` naming the field, before
 *    anything recursive walks it;
 * 4. the schema's own rules;
 * 5. a NUL or lone surrogate in any string of the result (values and keys, at any depth) fails with
 *    DRF's `null_characters_not_allowed` / `surrogate_characters_not_allowed`, `attr` the path.
 * Fields the schema drops (unknown ones) are not checked in step 5, as DRF ignores them.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  limits: Pick<Limits, "maxJsonDepth"> = { maxJsonDepth: DEFAULT_MAX_JSON_DEPTH },
): z.output<S> {
  const data = input instanceof FormBody ? formInput(schema, input) : input;
  if (schema instanceof z.ZodObject && (data === null || typeof data !== "object" || Array.isArray(data))) {
    throw new ValidationError(`Invalid data. Expected a dictionary, but got ${pythonType(data)}.`);
  }
  checkNestingDepth(data, limits.maxJsonDepth);
  const result = schema.safeParse(data, { reportInput: true });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const { code, message } = drfError(issue);
    const attr = issue.path.length > 0 ? issue.path.map(String).join("__") : null;
    throw new ValidationError(message, { attr, code });
  }
  checkStorableText(result.data);
  return result.data;
}

const TRUE_VALUES = new Set<unknown>([
  true,
  1,
  "1",
  "t",
  "T",
  "y",
  "Y",
  "yes",
  "Yes",
  "YES",
  "true",
  "True",
  "TRUE",
  "on",
  "On",
  "ON",
]);
const FALSE_VALUES = new Set<unknown>([
  false,
  0,
  "0",
  "f",
  "F",
  "n",
  "N",
  "no",
  "No",
  "NO",
  "false",
  "False",
  "FALSE",
  "off",
  "Off",
  "OFF",
]);

/** DRF-compatible field schemas. */
export const drf = {
  /** DRF `BooleanField`: accepts its true/false spellings (`"true"`, `1`, `"yes"`, ...). */
  boolean: () =>
    z.preprocess((v) => (TRUE_VALUES.has(v) ? true : FALSE_VALUES.has(v) ? false : v), z.boolean()),
  /** DRF `IntegerField`: integers and integer strings. */
  integer: () =>
    z.preprocess((v) => (typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : v), z.int()),
  /** DRF `CharField`; `allowBlank` false rejects `""`. */
  string: (options: { maxLength?: number; allowBlank?: boolean } = {}) => {
    let schema = z.string();
    if (options.allowBlank === false) schema = schema.min(1);
    if (options.maxLength !== undefined) schema = schema.max(options.maxLength);
    return schema;
  },
  /** DRF `ChoiceField`. */
  choice: <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values),
};

/** Largest PostgreSQL `integer`, the type of our autoincrement ids. */
const MAX_INTEGER_ID = 2_147_483_647;

/**
 * Parses an integer id from a path or argument; anything but a positive integer that fits
 * PostgreSQL's `integer` is no id (null), so callers answer 404 rather than a database error.
 */
export function parseIntegerId(raw: string | number): number | null {
  const text = String(raw);
  if (!/^\d{1,10}$/.test(text)) return null;
  const id = Number(text);
  return id > 0 && id <= MAX_INTEGER_ID ? id : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID in its canonical text form (any version, either case). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * `found` (records with integer ids, in any order) in the order of `ids`, null where none has that
 * id: what a batch read (`getMany`) answers GraphQL's loaders.
 */
export function inIdOrder<T extends { id: number }>(
  ids: readonly number[],
  found: readonly T[],
): (T | null)[] {
  const byId = new Map(found.map((record) => [record.id, record]));
  return ids.map((id) => byId.get(id) ?? null);
}

/**
 * `found` (records with a UUID `id`, as PostgreSQL prints it: lower case) in the order of `ids`,
 * null where none has the id: what a batch load by UUID answers (GraphQL's `nodes`, dataloaders).
 * An id in any case finds its record.
 */
export function inUuidOrder<T extends { id: string }>(
  ids: readonly string[],
  found: readonly T[],
): (T | null)[] {
  const byId = new Map(found.map((record) => [record.id, record]));
  return ids.map((id) => byId.get(id.toLowerCase()) ?? null);
}
