/**
 * Typed capture code for `posthog` (Python) (posthog-behavior.md §6.4): PostHog's Python generator,
 * version 1.0.0 (`posthog/api/event_definition_generators/python.py`), output laid out as it lays
 * it out: a module docstring with the usage guide, `_PROPERTY_MAPPINGS` (per event, the Python
 * identifiers that differ from their property names, back to those names), a `TypedDict` of each
 * event's properties (`Required[...]`/`NotRequired[...]`, required first, then by name), one
 * `@overload` of `capture` per event with `Literal["<event>"]`, and the runtime `capture`, which maps
 * the identifiers back and calls `posthog.capture`.
 *
 * Where PostHog's output would not type-check, this one differs, and only there (so `mypy` passes;
 * test/event-definitions/codegen/): two events whose names give the same class name (`user-id`,
 * `user_id`) get numeric suffixes (`UserIdProps_2`) instead of one class redefining the other; a
 * property declared twice (two property groups) is one key of the union of its types; an event
 * without a schema takes any properties (see `overload`); a lone overload (a project of one event)
 * carries the `type: ignore` mypy needs for it.
 */
import { pythonClassName, pythonIdentifier, uniqueName } from "./identifiers.js";
import {
  type CodegenEvent,
  compareCodePoints,
  jsonString,
  type MergedProperty,
  mergeProperties,
  type SchemaPropertyType,
  schemaOf,
} from "./model.js";

/** The generator's version: clients regenerate when it changes (part of the schema hash). */
export const PYTHON_GENERATOR_VERSION = "1.0.0";

/** The Python type of each property type (python.py `_map_property_type`). */
const PYTHON_TYPES: Record<SchemaPropertyType, string> = {
  String: "str",
  Numeric: "float",
  Boolean: "bool",
  DateTime: "datetime",
  Array: "list[Any]",
  Object: "Dict[str, Any]",
};

/** The Python type of a property: its type's, or the `Union` of its types when declarations disagree. */
function pythonType(property: MergedProperty): string {
  const types = property.types.map((type) => PYTHON_TYPES[type]);
  return types.length === 1 ? types[0]! : `Union[${types.join(", ")}]`;
}

/** `value` escaped for a double-quoted Python string literal (python.py `_escape_python_string`: JSON's escapes). */
function escapePython(value: string): string {
  return jsonString(value).slice(1, -1);
}

/**
 * The `TypedDict` of an event's properties (python.py `_generate_typed_dict`) and the identifiers
 * that differ from their property names (identifier → name).
 */
function typedDict(
  event: CodegenEvent,
  properties: readonly MergedProperty[],
  className: string,
): { code: string; mappings: Map<string, string> } {
  const eventName = escapePython(event.name);
  if (properties.length === 0) {
    return {
      code: `class ${className}(TypedDict, total=False):
    """Properties for the \`${eventName}\` event (no schema defined)"""
    pass`,
      mappings: new Map(),
    };
  }
  const lines = [
    `class ${className}(TypedDict, total=False):`,
    `    """Properties for the \`${eventName}\` event"""`,
  ];
  const used = new Set<string>();
  const mappings = new Map<string, string>();
  // Required first, then by name (python.py: `sorted(key=lambda p: (not p.is_required, p.name))`).
  const sorted = [...properties].sort(
    (a, b) => Number(!a.isRequired) - Number(!b.isRequired) || compareCodePoints(a.name, b.name),
  );
  for (const property of sorted) {
    const identifier = uniqueName(pythonIdentifier(property.name), used, "_");
    const wrapper = property.isRequired ? "Required" : "NotRequired";
    lines.push(`    ${identifier}: ${wrapper}[${pythonType(property)}]`);
    if (identifier !== property.name) mappings.set(identifier, property.name);
  }
  return { code: lines.join("\n"), mappings };
}

/**
 * The `@overload` of `capture` for an event (python.py `_generate_overload`). An event without a
 * schema takes any properties (`Optional[Dict[str, Any]]`): python.py means it to ("accept any
 * properties") but annotates it with its empty `TypedDict`, which refuses every key.
 */
function overload(
  event: CodegenEvent,
  properties: readonly MergedProperty[],
  className: string,
  only: boolean,
): string {
  const propertiesType =
    properties.length === 0
      ? "Optional[Dict[str, Any]] = ..."
      : properties.some((p) => p.isRequired)
        ? className
        : `Optional[${className}] = ...`;
  // mypy refuses a lone overload ("Single overload definition, multiple required"), on this line.
  const decorator = only
    ? "@overload  # type: ignore[misc]  # a single event: mypy wants two overloads"
    : "@overload";
  return `${decorator}
def capture(  # type: ignore[misc]  # This is needed to ensure our typed \`properties\` take precedence over the SDK kwargs
    event: Literal["${escapePython(event.name)}"],
    *,
    properties: ${propertiesType},
    **kwargs: Unpack[OptionalCaptureArgs],
) -> Optional[str]: ...`;
}

/** `_PROPERTY_MAPPINGS`, events and identifiers in code-point order. */
function propertyMappings(byEvent: ReadonlyMap<string, ReadonlyMap<string, string>>): string {
  if (byEvent.size === 0) return "_PROPERTY_MAPPINGS: Dict[str, Dict[str, str]] = {}\n";
  const lines = [
    "# Property name mappings (EventName => Python identifier -> original property name)",
    "_PROPERTY_MAPPINGS: Dict[str, Dict[str, str]] = {",
  ];
  for (const eventName of [...byEvent.keys()].sort(compareCodePoints)) {
    const mappings = byEvent.get(eventName)!;
    lines.push(`    "${escapePython(eventName)}": {`);
    for (const identifier of [...mappings.keys()].sort(compareCodePoints)) {
      lines.push(`        "${identifier}": "${escapePython(mappings.get(identifier)!)}",`);
    }
    lines.push("    },");
  }
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

const MAP_PROPERTIES_FUNCTION = `

def _map_properties(event: str, properties: Any) -> Any:
    """Map Python property names back to their original names for PostHog."""
    if properties is None or event not in _PROPERTY_MAPPINGS:
        return properties
    mapping = _PROPERTY_MAPPINGS[event]
    return {mapping.get(k, k): v for k, v in properties.items()}

`;

const CAPTURE_IMPLEMENTATION = `

def capture(  # type: ignore[misc]  # mypy doesn't understand overload impl pattern
    event: str,
    **kwargs: Unpack[OptionalCaptureArgs],
) -> Optional[str]:
    """
    Type-safe capture for defined events.

    For defined events, the type checker will validate that required properties
    are provided and that property types match the schema.

    Args:
        event: The event name (type-checked against defined events)
        **kwargs: Capture arguments from posthog.args.OptionalCaptureArgs (including the typed properties)
    Returns:
        The UUID of the captured event, or None if capture failed.
    """
    properties = kwargs.get("properties")
    mapped_properties = _map_properties(event, properties)
    if mapped_properties is not properties:
        new_kwargs = dict(kwargs)
        new_kwargs["properties"] = mapped_properties
        return _posthog.capture(event=event, **new_kwargs)  # type: ignore[arg-type]  # mypy can't infer TypedDict from dict()
    return _posthog.capture(event=event, **kwargs)
`;

/** The module docstring and imports (`datetime`, `Union` only where a property needs them). */
function header(generatedAt: Date, usesDatetime: boolean, usesUnion: boolean): string {
  return `"""
GENERATED FILE - DO NOT EDIT

This file was auto-generated by PostHog
Generated at: ${generatedAt.toISOString()}
Generator version: ${PYTHON_GENERATOR_VERSION}

Provides type-safe event tracking with validated event names and properties.

USAGE GUIDE
===========
1. Save the generated file in your project (if not generated there already):
2. Migrate towards \`posthog_typed.capture\` for type-safe event tracking:
   import posthog
   import posthog_typed

   # posthog.capture(...) then becomes posthog_typed.capture(...):
   posthog_typed.capture("event_name", distinct_id="user_123", properties={"property": "value"})
3. Use posthog.capture for untyped/dynamic events:
   import posthog

   posthog.capture("dynamic_event", distinct_id="user_123", properties={"anything": "goes"})

Alternative: If you only use capture() and want a cleaner import:
   import posthog_typed as posthog

   posthog.capture("event_name", distinct_id="user_123", properties={"property": "value"})

Note: This pattern means you won't have access to other SDK methods
(identify, group, feature_enabled, etc.) unless you also import the
original posthog module separately. But this way you only need to
update the import.

TYPE CHECKING TIPS
==================
For the best type error messages, use typed variables instead of inline dicts:

    # Less specific error ("No overload variant matches"):
    posthog_typed.capture("my_event", properties={"key": "value"})

    # More specific error ("Missing key 'required_field'"):
    props: MyEventProps = {"key": "value"}  # <-- Error shown here
    posthog_typed.capture("my_event", properties=props)

ABOUT TYPE IGNORE COMMENTS
==========================
This file contains \`# type: ignore[misc]\` comments. These are intentional;
- They suppress mypy warnings about overlapping TypedDict keys between our typed
  \`properties\` parameter and the SDK's \`OptionalCaptureArgs\`.
- This overlap is by design: we want our per-event typed properties to take
  precedence while still inheriting other SDK kwargs like \`distinct_id\`, \`timestamp\`, etc.
"""
${usesDatetime ? "from datetime import datetime\n" : ""}from typing import Any, Dict, Literal, Optional, TypedDict, ${usesUnion ? "Union, " : ""}overload

from typing_extensions import NotRequired, Required, Unpack

import posthog as _posthog
from posthog.args import OptionalCaptureArgs


`;
}

/**
 * The Python module for `events` (in the order given), stamped with `generatedAt` (ISO 8601, UTC):
 * PostHog's layout, section by section.
 */
export function generatePython(events: readonly CodegenEvent[], generatedAt: Date): string {
  const typedDicts: string[] = [];
  const overloads: string[] = [];
  const mappings = new Map<string, Map<string, string>>();
  const classNames = new Set<string>();
  let usesDatetime = false;
  let usesUnion = false;
  for (const event of events) {
    const properties = mergeProperties(schemaOf(event));
    usesDatetime ||= properties.some((p) => p.types.includes("DateTime"));
    usesUnion ||= properties.some((p) => p.types.length > 1);
    const className = uniqueName(pythonClassName(event.name), classNames, "_");
    const dict = typedDict(event, properties, className);
    typedDicts.push(dict.code);
    if (dict.mappings.size > 0) mappings.set(event.name, dict.mappings);
    overloads.push(overload(event, properties, className, events.length === 1));
  }
  const typedDictsSection = typedDicts.length > 0 ? `\n${typedDicts.join("\n\n\n")}` : "";
  const overloadsSection =
    overloads.length > 0 ? `\n\n\n# Type-safe capture overloads\n${overloads.join("\n\n")}` : "";
  return (
    header(generatedAt, usesDatetime, usesUnion) +
    propertyMappings(mappings) +
    MAP_PROPERTIES_FUNCTION +
    typedDictsSection +
    overloadsSection +
    CAPTURE_IMPLEMENTATION
  );
}
