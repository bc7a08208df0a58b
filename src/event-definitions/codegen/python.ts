/**
 * Typed capture code for `posthog` (Python) (posthog-behavior.md §6.4): PostHog's Python generator,
 * version 1.0.0 (`posthog/api/event_definition_generators/python.py`, PostHog/posthog at
 * d47c25761ffef4a83be4a577166e84df8464c77a, pinned by its test_python.py), output laid out as it
 * lays it out: a module docstring with the usage guide, then `class PosthogTyped(Posthog)`, a
 * drop-in `posthog.Posthog` client with one method per event, `capture_<event>(self, *, <required
 * properties>, <optional properties> = None, extra_properties=None, **kwargs:
 * Unpack[OptionalCaptureArgs]) -> Optional[str]`, which builds the event's properties from its
 * keyword arguments and calls `self.capture`. Required properties come first, then optional ones,
 * each group ordered by name; an event without a schema takes `extra_properties` only; a project
 * without events gets `pass`.
 *
 * Where PostHog's output would not type-check (or would break the client it extends), this one
 * differs, and only there (so `mypy` passes against the `posthog` SDK's types, as of PostHog/
 * posthog-python c55c9b22ffb6ae2db2c4a1e30813d2f89b50e297; test/event-definitions/codegen/):
 * - a property parameter never takes a name the method itself uses (`self`, `kwargs`,
 *   `extra_properties`, `properties`, and `Dict`, `str`, `Any` of its body's annotation) or a key
 *   of the SDK's `OptionalCaptureArgs` (`distinct_id`, `timestamp`, `uuid`, …): it gets the numeric
 *   suffix python.py gives a collision (`distinct_id_2`). PostHog's would be a duplicate argument (a
 *   `SyntaxError`), a shadowed name (mypy: `Variable "str" is not valid as a type`), or mypy's
 *   "Overlap between argument names and ** TypedDict items";
 * - a method never takes the name of an attribute `Posthog` already has (`capture_exception`,
 *   `capture_ai`, `capture_mode`, …): the event `exception` gets `capture_exception_2`. PostHog's
 *   `capture_exception`, `capture_mode` and `capture_compression` fail mypy (an incompatible
 *   override); its `capture_ai` and `capture_exception_code_variables` pass only because the SDK
 *   types them `Any`, and would replace the SDK's AI capture and one of its settings at run time.
 */
import { pythonIdentifier, pythonMethodName, uniqueName } from "./identifiers.js";
import {
  type CodegenEvent,
  compareCodePoints,
  jsonString,
  type SchemaProperty,
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
  Array: "List[Any]",
  Object: "Dict[str, Any]",
};

/**
 * Names a property parameter may not take: those the generated method uses itself, and the keys of
 * the SDK's `OptionalCaptureArgs` (posthog-python `posthog/args.py`), which `**kwargs` already
 * declares. See the module comment.
 */
const RESERVED_PARAMETERS: readonly string[] = [
  "self",
  "kwargs",
  "extra_properties",
  "properties",
  "Dict",
  "str",
  "Any",
  "distinct_id",
  "timestamp",
  "uuid",
  "groups",
  "flags",
  "send_feature_flags",
  "disable_geoip",
];

/**
 * The `capture_…` attributes `Posthog` (posthog-python's `Client`, `posthog/client.py`) already has:
 * its methods `capture_exception` and `capture_ai`, and the settings `capture_mode`,
 * `capture_compression` and `capture_exception_code_variables`. See the module comment.
 */
const RESERVED_METHODS: readonly string[] = [
  "capture_ai",
  "capture_exception",
  "capture_mode",
  "capture_compression",
  "capture_exception_code_variables",
];

/** `value` escaped for a double-quoted Python string literal (python.py `_escape_python_string`: JSON's escapes). */
function escapePython(value: string): string {
  return jsonString(value).slice(1, -1);
}

/**
 * The `capture_<event>` method of an event (python.py `_generate_capture_method`), its name made
 * unique in `usedMethods`.
 */
function captureMethod(event: CodegenEvent, usedMethods: Set<string>): string {
  const methodName = uniqueName(pythonMethodName(event.name), usedMethods, "_");
  const eventName = escapePython(event.name);
  const properties = schemaOf(event);
  if (properties.length === 0) {
    return `    def ${methodName}(
        self,
        *,
        extra_properties: Optional[Dict[str, Any]] = None,
        **kwargs: Unpack[OptionalCaptureArgs],
    ) -> Optional[str]:
        """Capture a \`${eventName}\` event."""
        return self.capture("${eventName}", properties=extra_properties, **kwargs)`;
  }

  // Each group by name (python.py: `sorted(..., key=lambda p: p.name)`, stable for a name declared twice).
  const byName = (a: SchemaProperty, b: SchemaProperty) => compareCodePoints(a.name, b.name);
  const required = properties.filter((p) => p.isRequired).sort(byName);
  const optional = properties.filter((p) => !p.isRequired).sort(byName);

  const used = new Set(RESERVED_PARAMETERS);
  const parameterLines: string[] = [];
  const requiredEntries: string[] = [];
  if (required.length > 0) {
    parameterLines.push("        # Required event properties");
    for (const property of required) {
      const parameter = uniqueName(pythonIdentifier(property.name), used, "_");
      parameterLines.push(`        ${parameter}: ${PYTHON_TYPES[property.propertyType]},`);
      requiredEntries.push(`"${escapePython(property.name)}": ${parameter}`);
    }
  }
  const bodyLines = [`        properties: Dict[str, Any] = {${requiredEntries.join(", ")}}`];
  if (optional.length > 0) {
    parameterLines.push("        # Optional event properties");
    for (const property of optional) {
      const parameter = uniqueName(pythonIdentifier(property.name), used, "_");
      parameterLines.push(`        ${parameter}: Optional[${PYTHON_TYPES[property.propertyType]}] = None,`);
      bodyLines.push(`        if ${parameter} is not None:
            properties["${escapePython(property.name)}"] = ${parameter}`);
    }
  }
  parameterLines.push("        # Additional untyped properties");
  parameterLines.push("        extra_properties: Optional[Dict[str, Any]] = None,");
  bodyLines.push(`        if extra_properties is not None:
            properties.update(extra_properties)`);
  bodyLines.push(`        return self.capture("${eventName}", properties=properties, **kwargs)`);

  return `    def ${methodName}(
        self,
        *,
${parameterLines.join("\n")}
        # SDK kwargs (distinct_id, timestamp, etc.)
        **kwargs: Unpack[OptionalCaptureArgs],
    ) -> Optional[str]:
        """Capture a \`${eventName}\` event with type-safe properties."""
${bodyLines.join("\n")}`;
}

/** The module docstring and imports (`datetime` only where a property needs it). */
function header(generatedAt: Date, usesDatetime: boolean): string {
  return `"""
GENERATED FILE - DO NOT EDIT

This file was auto-generated by PostHog
Generated at: ${generatedAt.toISOString()}
Generator version: ${PYTHON_GENERATOR_VERSION}

Provides type-safe event tracking via capture_<event_name>() methods.

USAGE
=====
    from posthog_typed import PosthogTyped

    client = PosthogTyped(
        "<ph_project_api_key>",
        host="<ph_client_api_host>",
    )

    # Full autocomplete on method name, properties, and SDK kwargs
    client.capture_downloaded_file(
        file_size_b=500,
        distinct_id="user_123",
    )

    # All other Posthog methods work as usual
    client.identify(...)
    client.flush()
    client.shutdown()
"""
${usesDatetime ? "from datetime import datetime\n" : ""}from typing import Any, Dict, List, Optional

from typing_extensions import Unpack

from posthog import Posthog
from posthog.args import OptionalCaptureArgs


`;
}

/**
 * The Python module for `events` (in the order given), stamped with `generatedAt` (ISO 8601, UTC):
 * python.py's `generate`, the header then `PosthogTyped` with a method per event (see the module
 * comment for where it differs).
 */
export function generatePython(events: readonly CodegenEvent[], generatedAt: Date): string {
  const usedMethods = new Set(RESERVED_METHODS);
  const methods = events.map((event) => captureMethod(event, usedMethods));
  const usesDatetime = events.some((event) => schemaOf(event).some((p) => p.propertyType === "DateTime"));
  return `${header(generatedAt, usesDatetime)}class PosthogTyped(Posthog):
    """
    A type-safe PostHog client with per-event capture methods.

    Drop-in replacement for Posthog that provides IDE autocomplete
    and type checking via capture_<event_name>() methods.
    """

${methods.length > 0 ? methods.join("\n\n") : "    pass"}
`;
}
