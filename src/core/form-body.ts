/**
 * Form bodies (`application/x-www-form-urlencoded`, `multipart/form-data`) as DRF reads them.
 * A form carries only strings, so DRF's fields read form input their own way (`Field.get_value`,
 * `ListField.get_value`, `JSONField.get_value` in `rest_framework/fields.py`); `formInput` does the
 * same, driven by the zod schema's field types, so that every schema takes forms with no per-route
 * code: a list field takes every value of a repeated key, a JSON field parses its string as JSON, and
 * any other field takes the last value, with DRF's rule for an empty string.
 */
import { z } from "zod";
import { ValidationError } from "./errors.js";
import { parseJson } from "./json-input.js";

/**
 * The fields of a form body, in the order sent; a repeated key keeps every value (Django's
 * `QueryDict`). Uploaded files are not fields: they are kept apart (Django's `request.FILES`), for
 * the routes that take one (a cohort's `csv`). The door hands this to the service as the body;
 * `parseInput` recognises it.
 */
export class FormBody {
  readonly #fields = new Map<string, string[]>();
  readonly #files: ReadonlyMap<string, Buffer>;

  constructor(entries: Iterable<readonly [string, string]>, files: Iterable<readonly [string, Buffer]> = []) {
    for (const [name, value] of entries) {
      const values = this.#fields.get(name);
      if (values) values.push(value);
      else this.#fields.set(name, [value]);
    }
    this.#files = new Map(files);
  }

  /** The content of the file uploaded under `name` (the last one, as `request.FILES[name]`), or undefined. */
  file(name: string): Buffer | undefined {
    return this.#files.get(name);
  }

  /** The last value of `name` (`QueryDict[name]`), or undefined when absent. */
  get(name: string): string | undefined {
    return this.#fields.get(name)?.at(-1);
  }

  /** Every value of `name` in order (`QueryDict.getlist`); empty when absent. */
  getAll(name: string): readonly string[] {
    return this.#fields.get(name) ?? [];
  }

  /** The field names, each once, in the order first sent. */
  names(): IterableIterator<string> {
    return this.#fields.keys();
  }
}

/** How a form value reaches a field: every value, parsed as JSON, or the last value as text. */
type FormKind = "list" | "json" | "scalar";

/** The parts of a zod definition this module reads (zod 4 keeps every schema's definition in `_zod.def`). */
interface ZodDefinition {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  getter?: () => z.ZodType;
}

/** Wrappers whose `innerType` decides how the field reads form input. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "nonoptional", "readonly", "catch"]);

/**
 * The form kind of a field schema, seen through its wrappers: arrays and tuples are lists
 * (DRF `ListField`, `ManyRelatedField`); unknown, any, records, objects and maps are JSON (DRF
 * `JSONField`); anything else is a scalar. In a pipe, the side that is not a transform decides
 * (`z.preprocess(f, z.boolean())` is a boolean, `z.string().transform(f)` a string).
 */
function formKind(schema: z.ZodType): FormKind {
  let def = schema._zod.def as unknown as ZodDefinition;
  for (;;) {
    if (WRAPPERS.has(def.type) && def.innerType) def = def.innerType._zod.def as unknown as ZodDefinition;
    else if (def.type === "pipe" && def.in && def.out) {
      const side = def.in._zod.def.type === "transform" ? def.out : def.in;
      def = side._zod.def as unknown as ZodDefinition;
    } else if (def.type === "lazy" && def.getter) def = def.getter()._zod.def as unknown as ZodDefinition;
    else break;
  }
  switch (def.type) {
    case "array":
    case "tuple":
      return "list";
    case "unknown":
    case "any":
    case "record":
    case "object":
    case "map":
      return "json";
    default:
      return "scalar";
  }
}

/**
 * DRF's `Field.get_value` for an empty form value: a field that takes `""` keeps it; otherwise a
 * nullable field gets null, an optional one is left out (absent), and a required one keeps `""`
 * to fail its own validation.
 */
function emptyFormValue(field: z.ZodType): { value: unknown } | null {
  if (field.safeParse("").success) return { value: "" };
  if (field.safeParse(null).success) return { value: null };
  if (field.safeParse(undefined).success) return null;
  return { value: "" };
}

/**
 * The plain input `schema` validates, read from a form. For an object schema, each field of its
 * shape that the form has is read by its kind (see `formKind`); form fields the schema does not
 * know are left out, as DRF ignores them. For any other schema, each name's last value.
 * @throws ValidationError `invalid` "Value must be valid JSON." (DRF `JSONField`) for a JSON field
 *   whose value does not parse.
 */
export function formInput(schema: z.ZodType, form: FormBody): Record<string, unknown> {
  if (!(schema instanceof z.ZodObject)) {
    return Object.fromEntries([...form.names()].map((name) => [name, form.get(name)]));
  }
  const input: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const last = form.get(name);
    if (last === undefined) continue;
    const kind = formKind(field);
    if (kind === "list") {
      input[name] = [...form.getAll(name)];
    } else if (kind === "json") {
      try {
        input[name] = parseJson(last);
      } catch {
        throw new ValidationError("Value must be valid JSON.", { attr: name, code: "invalid" });
      }
    } else if (last === "") {
      const empty = emptyFormValue(field);
      if (empty) input[name] = empty.value;
    } else {
      input[name] = last;
    }
  }
  return input;
}
