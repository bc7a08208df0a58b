/**
 * Typed capture code for `posthog-go` (posthog-behavior.md §6.4): PostHog's Go generator, version
 * 1.0.0 (`posthog/api/event_definition_generators/golang.py`, PostHog/posthog at
 * 733d61fb1af087661007836b7b11cfd27587eeb7, pinned by its test_golang.py), output laid out as it
 * lays it out: `package typed`; per event with a schema an `<Event>Option` type, a
 * `<Event>With<Property>` option per optional property, `<Event>WithExtraProps`,
 * `<Event>Capture(distinctId, <required properties>..., options...)` and
 * `<Event>CaptureFromBase(base, <required properties>..., options...)`, each building a
 * `posthog.Capture`; per event without one `<Event>Capture(distinctId, properties...)` and
 * `<Event>CaptureFromBase(base, properties...)` taking any properties; the usage guide last.
 * Required properties are ordered by name, as are optional ones.
 *
 * Where PostHog's output would not compile or would not be gofmt-clean, this one differs, and only
 * there (so `gofmt -l` prints nothing and `go vet` passes; test/event-definitions/codegen/):
 * - identifiers are unique across the whole file: two events whose names give the same Go name
 *   (`user-id`, `user_id`), or one event's option colliding with another's function, get numeric
 *   suffixes (PostHog gives both `UserIdCapture`, which Go refuses as a redeclaration);
 * - a parameter never takes a name the function body uses (`props`, `c`, `options`, `posthog`,
 *   `base`; `nil` gets `_` like a keyword);
 * - a property name declared twice (two property groups) is one parameter of the union of its types
 *   (`interface{}` when they differ), not a duplicate map key;
 * - the map literal of required properties is aligned as gofmt aligns it, written `{}` when empty;
 *   one blank line between functions; imports in gofmt's (sorted) order, none when there are no events.
 */
import { goExportedName, goParamName, goPascalSuffix, uniqueName } from "./identifiers.js";
import {
  type CodegenEvent,
  compareCodePoints,
  jsonString,
  type MergedProperty,
  mergeProperties,
  schemaOf,
} from "./model.js";

/** The generator's version: clients regenerate when it changes (part of the schema hash). */
export const GOLANG_GENERATOR_VERSION = "1.0.0";

/** The Go type of each property type (golang.py `_map_property_type`). */
const GO_TYPES: Record<string, string> = {
  String: "string",
  Numeric: "float64",
  Boolean: "bool",
  DateTime: "time.Time",
  Array: "[]interface{}",
  Object: "map[string]interface{}",
};

/** The Go type of a property: its type's, or `interface{}` when its declarations disagree. */
function goType(property: MergedProperty): string {
  return property.types.length === 1 ? GO_TYPES[property.types[0]!]! : "interface{}";
}

/**
 * The key-value lines of a composite literal as gofmt writes them: values aligned in a column one
 * space after the longest `key:` of their section (width in runes, as gofmt's tabwriter counts). A
 * new section starts where gofmt's `exprList` breaks alignment: when a key is over 40 bytes (or
 * follows one) and its size is off the geometric mean of its section's keys by a factor of 2.5
 * (go/printer nodes.go, `exprList`).
 */
function alignedEntries(entries: ReadonlyArray<[key: string, value: string]>, indent: string): string[] {
  const sections: Array<Array<[string, string]>> = [];
  let lnsum = 0;
  let count = 0;
  let previousSize = 0;
  for (const [key, value] of entries) {
    const size = Buffer.byteLength(key, "utf8");
    let newSection = sections.length === 0;
    if (!newSection && count > 0 && !(previousSize <= 40 && size <= 40)) {
      const ratio = size / Math.exp(lnsum / count);
      newSection = 2.5 * ratio <= 1 || 2.5 <= ratio;
    }
    if (newSection) {
      sections.push([]);
      lnsum = 0;
      count = 0;
    }
    sections[sections.length - 1]!.push([key, value]);
    lnsum += Math.log(size);
    count++;
    previousSize = size;
  }
  return sections.flatMap((section) => {
    // tabwriter: the column is as wide as its widest cell (`key:`) plus one space of padding.
    const width = Math.max(...section.map(([key]) => [...key].length + 1)) + 1;
    return section.map(
      ([key, value]) => `${indent}${`${key}:`.padEnd(width - [...key].length + key.length)}${value},`,
    );
  });
}

/** The `props := posthog.Properties{...}` statement of the required properties (`params`: their parameter names). */
function propsLiteral(required: readonly MergedProperty[], params: readonly string[]): string {
  if (required.length === 0) return "\tprops := posthog.Properties{}";
  const entries = required.map((p, i): [string, string] => [jsonString(p.name), params[i]!]);
  return ["\tprops := posthog.Properties{", ...alignedEntries(entries, "\t\t"), "\t}"].join("\n");
}

/**
 * The functions for an event without a schema (golang.py `_generate_event_without_properties`):
 * `<Event>Capture(distinctId, properties ...posthog.Properties)` and
 * `<Event>CaptureFromBase(base, properties ...posthog.Properties)`.
 */
function eventWithoutProperties(event: CodegenEvent, capture: string, fromBase: string): string {
  const eventName = jsonString(event.name);
  return `// ${capture} creates a capture for the ${eventName} event.
// This event has no defined schema properties.
func ${capture}(distinctId string, properties ...posthog.Properties) posthog.Capture {
\tprops := posthog.Properties{}
\tfor _, p := range properties {
\t\tfor k, v := range p {
\t\t\tprops[k] = v
\t\t}
\t}

\treturn posthog.Capture{
\t\tDistinctId: distinctId,
\t\tEvent:      ${eventName},
\t\tProperties: props,
\t}
}

// ${fromBase} creates a posthog.Capture for the ${eventName} event
// starting from an existing base capture. The event name is overridden, and
// any additional properties can be passed via the properties parameter.
func ${fromBase}(base posthog.Capture, properties ...posthog.Properties) posthog.Capture {
\tprops := posthog.Properties{}
\tfor _, p := range properties {
\t\tfor k, v := range p {
\t\t\tprops[k] = v
\t\t}
\t}

\tbase.Event = ${eventName}
\tif base.Properties == nil {
\t\tbase.Properties = posthog.Properties{}
\t}
\tbase.Properties = base.Properties.Merge(props)

\treturn base
}
`;
}

/**
 * Parameter names of the required properties of one function: each property's camelCase name,
 * suffixed where taken (`reserved`: the names the function itself uses; golang.py seeds only
 * `distinctId`/`base`, see the module comment).
 */
function requiredParams(required: readonly MergedProperty[], reserved: readonly string[]): string[] {
  const used = new Set(reserved);
  return required.map((p) => uniqueName(goParamName(p.name), used));
}

/** The parameter list, one per line (gofmt does not align parameter lists). */
function paramLines(first: string, required: readonly MergedProperty[], params: readonly string[]): string {
  return [first, ...required.map((p, i) => `${params[i]} ${goType(p)}`)]
    .map((line) => `\t${line},`)
    .join("\n");
}

/** The code of an event with a schema (golang.py `_generate_event_with_properties`). */
function eventWithProperties(
  event: CodegenEvent,
  properties: readonly MergedProperty[],
  base: string,
  used: Set<string>,
): string {
  const eventName = jsonString(event.name);
  const option = `${base}Option`;
  const byName = (a: MergedProperty, b: MergedProperty) => compareCodePoints(a.name, b.name);
  const required = properties.filter((p) => p.isRequired).sort(byName);
  const optional = properties.filter((p) => !p.isRequired).sort(byName);

  const blocks = [
    `// ${option} configures optional properties for a ${eventName} capture.
type ${option} func(*posthog.Capture)
`,
  ];
  for (const property of optional) {
    const propertyName = jsonString(property.name);
    const func = uniqueName(`${base}With${goPascalSuffix(property.name)}`, used);
    const param = uniqueName(goParamName(property.name), new Set(["c", "posthog"]));
    blocks.push(`// ${func} sets the ${propertyName} property on a ${eventName} event.
func ${func}(${param} ${goType(property)}) ${option} {
\treturn func(c *posthog.Capture) {
\t\tif c.Properties == nil {
\t\t\tc.Properties = posthog.Properties{}
\t\t}
\t\tc.Properties[${propertyName}] = ${param}
\t}
}
`);
  }
  const extra = uniqueName(`${base}WithExtraProps`, used);
  blocks.push(`// ${extra} adds additional properties to a ${eventName} event.
func ${extra}(props posthog.Properties) ${option} {
\treturn func(c *posthog.Capture) {
\t\tif c.Properties == nil {
\t\t\tc.Properties = posthog.Properties{}
\t\t}
\t\tfor k, v := range props {
\t\t\tc.Properties[k] = v
\t\t}
\t}
}
`);

  const capture = `${base}Capture`;
  const captureParams = requiredParams(required, ["distinctId", "options", "props", "c", "posthog"]);
  blocks.push(`// ${capture} is a wrapper for the ${eventName} event.
// It manages the creation of the \`posthog.Capture\`. If you need control over this, please make use of
// the ${capture}FromBase function.
// Required properties from the schema are explicit parameters; optional properties
// should be passed via ${base}With* option functions.
func ${capture}(
${paramLines("distinctId string", required, captureParams)}
\toptions ...${option},
) posthog.Capture {
${propsLiteral(required, captureParams)}

\tc := posthog.Capture{
\t\tDistinctId: distinctId,
\t\tEvent:      ${eventName},
\t\tProperties: props,
\t}

\tfor _, opt := range options {
\t\topt(&c)
\t}

\treturn c
}
`);

  const fromBase = `${base}CaptureFromBase`;
  const fromBaseParams = requiredParams(required, ["base", "options", "props", "posthog"]);
  blocks.push(`// ${fromBase} creates a posthog.Capture for the ${eventName} event
// starting from an existing base capture. The event name is overridden, and
// required properties from the schema are merged on top. Optional properties
// should be passed via ${base}With* option functions.
func ${fromBase}(
${paramLines("base posthog.Capture", required, fromBaseParams)}
\toptions ...${option},
) posthog.Capture {
${propsLiteral(required, fromBaseParams)}

\tbase.Event = ${eventName}
\tif base.Properties == nil {
\t\tbase.Properties = posthog.Properties{}
\t}
\tbase.Properties = base.Properties.Merge(props)

\tfor _, opt := range options {
\t\topt(&base)
\t}

\treturn base
}
`);
  return blocks.join("\n");
}

/** The usage guide ending the file (golang.py `generate`'s `usage_guide`). */
const USAGE_GUIDE = `// USAGE GUIDE:
//
// 1. Please store this file in a folder called \`typed\` (e.g. \`./src/lib/typed\`).
// 2. Import this package inside your code.
// 3. Make use of the typed capture functions. Every event has 2 sets of functions:
//    a) func <EventName>Capture
//    b) func <EventName>CaptureFromBase
//    generally we would recommend to use option A, unless you want to exercise full control over the underlying
//    \`posthog.Capture\` model.
//
//    Optional properties can be passed through the option pattern, where all available options are type hinted
//    as: <EventName>Option.
//    Finally, any untyped optional parameters can be passed through the \`<EventName>WithExtraProps\` function.
// 4. Pass the typed object to \`posthog.Enqueue\`. For example:
// \`\`\`
// err := posthog.Enqueue(typed.UserSignedUpCapture("user_456", "user@example.com", "premium"))
// \`\`\`
`;

/**
 * The Go package for `events` (in the order given), stamped with `generatedAt` (ISO 8601, UTC):
 * PostHog's layout, gofmt-clean (see the module comment).
 */
export function generateGo(events: readonly CodegenEvent[], generatedAt: Date): string {
  const used = new Set<string>();
  const blocks: string[] = [];
  let usesTime = false;
  for (const event of events) {
    const properties = mergeProperties(schemaOf(event));
    // A base name whose derived names are all free, so later `uniqueName`s never rename them.
    const derived = (base: string) =>
      properties.length === 0
        ? [`${base}Capture`, `${base}CaptureFromBase`]
        : [`${base}Option`, `${base}Capture`, `${base}CaptureFromBase`];
    const wanted = goExportedName(event.name);
    let base = wanted;
    for (let i = 2; derived(base).some((name) => used.has(name)); i++) base = `${wanted}${i}`;
    for (const name of derived(base)) used.add(name);
    if (properties.length === 0) {
      blocks.push(eventWithoutProperties(event, `${base}Capture`, `${base}CaptureFromBase`));
      continue;
    }
    if (properties.some((p) => goType(p) === "time.Time")) usesTime = true;
    blocks.push(eventWithProperties(event, properties, base, used));
  }

  // gofmt sorts import paths: posthog-go before time (PostHog writes time first).
  const imports = ['\t"github.com/posthog/posthog-go"', ...(usesTime ? ['\t"time"'] : [])].join("\n");
  const header = `// Code generated by PostHog - DO NOT EDIT.
//
// Generated at: ${generatedAt.toISOString()}
// Generator version: ${GOLANG_GENERATOR_VERSION}
//
// This package provides type-safe helper functions to build posthog.Capture
// structs for your defined events. It provides:
// - A \`<EventName>FromBase\` function to allow full control over the \`posthog.Capture\` object.
// - A \`<EventName>\` function providing sane defaults for the \`posthog.Capture\` object.
//
// Optional properties can be passed through the \`Option\` functions / argument.
//
// If this code fails to compile:
// 1. Check your event/property names in PostHog.
// 2. Avoid special characters, reserved keywords, or names starting with numbers.
// 3. Use snake_case or kebab-case for best results.
// 4. If the above is not possible, please let us know and (for now) manually update the generated code whilst we work on a fix.

package typed

`;
  // Without events nothing would use the import, which Go refuses.
  if (blocks.length === 0) return header + USAGE_GUIDE;
  return `${header}import (\n${imports}\n)\n\n${blocks.join("\n")}\n${USAGE_GUIDE}`;
}
