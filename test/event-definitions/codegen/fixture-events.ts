/**
 * A project's events as the code generators see them, chosen to break naive generators: keywords of
 * each language as event and property names, names that collide once made identifiers (`user-id`,
 * `user_id`), leading digits, non-ASCII letters, punctuation, quotes, backslashes and control
 * characters, names the generated bodies use themselves (`props`, `c`, `options`, `posthog`, `nil`,
 * `distinct_id`, `base`, `extra_props`; in Python `self`, `kwargs`, `extra_properties`,
 * `properties`, `Dict`, `str` and the SDK's capture arguments), events whose Python method would
 * be an attribute the SDK's client has (`exception`, `mode`), a key long enough to change gofmt's
 * alignment, every property type, required and optional properties, a name declared twice with two
 * types, events with all properties optional and events without a schema. Ordered by name, as the
 * service orders them.
 */
import type {
  CodegenEvent,
  SchemaProperty,
  SchemaPropertyType,
} from "../../../src/event-definitions/codegen/model.js";

const required = (name: string, propertyType: SchemaPropertyType): SchemaProperty => ({
  name,
  propertyType,
  isRequired: true,
});
const optional = (name: string, propertyType: SchemaPropertyType): SchemaProperty => ({
  name,
  propertyType,
  isRequired: false,
});

/** A key over 40 bytes: gofmt aligns it in a section of its own. */
export const LONG_KEY = "x_property_name_long_enough_to_break_gofmt_alignment";

/** The events, each a case above; `$pageview`, `import`, `mode` and `user_id` have no schema. */
export const FIXTURE_EVENTS: CodegenEvent[] = [
  { name: "$pageview", properties: null },
  { name: "$screen", properties: [optional("screen_name", "String")] },
  {
    name: "1st purchase",
    properties: [
      required("amount", "Numeric"),
      optional("2nd-item", "String"),
      optional("currency", "String"),
    ],
  },
  { name: "café ordered", properties: [required("größe", "String"), optional("café", "Boolean")] },
  { name: "class", properties: [required("type", "String")] },
  { name: "dup", properties: [required("x", "String"), optional("x", "Numeric")] },
  {
    name: "every type",
    properties: [
      required("s", "String"),
      required("n", "Numeric"),
      required("b", "Boolean"),
      required("d", "DateTime"),
      required("a", "Array"),
      required("o", "Object"),
      optional("os", "String"),
      optional("on", "Numeric"),
      optional("ob", "Boolean"),
      optional("od", "DateTime"),
      optional("oa", "Array"),
      optional("oo", "Object"),
    ],
  },
  {
    name: "exception",
    properties: [
      required("self", "String"),
      required("kwargs", "Numeric"),
      required("timestamp", "DateTime"),
      required("str", "String"),
      optional("extra_properties", "Object"),
      optional("properties", "Array"),
      optional("uuid", "String"),
      optional("Dict", "Boolean"),
    ],
  },
  { name: "func", properties: [optional("range", "Numeric"), optional("import", "String")] },
  { name: "import", properties: null },
  { name: "mode", properties: null },
  {
    name: 'quote"s, back\\slash\nand tab\t!',
    properties: [required('he said "hi"', "String"), optional("a\\b", "Numeric")],
  },
  {
    name: "signed up",
    properties: [
      required("type", "String"),
      required("class", "String"),
      required("func", "Numeric"),
      required("range", "Boolean"),
      required("import", "DateTime"),
      required("user-id", "String"),
      required("user_id", "Numeric"),
      required("props", "String"),
      required("options", "Boolean"),
      required("posthog", "String"),
      required("distinct_id", "String"),
      required("base", "String"),
      required(LONG_KEY, "String"),
      required("z", "String"),
      optional("c", "String"),
      optional("nil", "String"),
      optional("None", "Boolean"),
      optional("extra_props", "String"),
      optional("when", "DateTime"),
      optional("!!!", "String"),
    ],
  },
  { name: "user-id", properties: [required("plan", "String")] },
  { name: "user_id", properties: null },
  // Line and paragraph separators, NEL, DEL: no escape in JSON, line breaks for some readers.
  { name: "user_id\u2028\u2029\u0085\u007f", properties: [required("p\u2028q", "String")] },
  { name: "💳 paid", properties: [required("€", "Numeric")] },
];
