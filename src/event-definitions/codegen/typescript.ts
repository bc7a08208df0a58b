/**
 * Typed capture code for `posthog-js` (posthog-behavior.md §6.4): PostHog's TypeScript generator,
 * version 1.1.0 (`posthog/api/event_definition_generators/typescript.py`), output laid out as it
 * lays it out. One module: an `EventSchemas` interface of every event's properties, a `TypedPostHog`
 * whose `capture` checks known events' properties (and lets unknown event names through), a
 * Proxy-based wrapper of `posthog-js`'s default instance as default export, and `posthog-js`'s own
 * exports. Event and property names are JSON string literals, so no name needs an identifier rule.
 */
import {
  type CodegenEvent,
  jsonString,
  mergeProperties,
  type SchemaPropertyType,
  schemaOf,
} from "./model.js";

/** The generator's version: clients regenerate when it changes (part of the schema hash). */
export const TYPESCRIPT_GENERATOR_VERSION = "1.1.0";

/** The TypeScript type of each property type (typescript.py `_map_property_type`). */
const TYPESCRIPT_TYPES: Record<SchemaPropertyType, string> = {
  String: "string",
  Numeric: "number",
  Boolean: "boolean",
  DateTime: "string | Date",
  Array: "any[]",
  Object: "Record<string, any>",
};

/**
 * The `EventSchemas` interface: each event, JSON-quoted, to `Record<string, any>` without a schema,
 * else to an object type of its properties (`?` unless required; a name declared with several types
 * gets their union, each part once).
 */
function eventSchemas(events: readonly CodegenEvent[]): string {
  const lines = [
    "// Define event schemas with their required and optional fields",
    "interface EventSchemas {",
  ];
  for (const event of events) {
    const properties = mergeProperties(schemaOf(event));
    if (properties.length === 0) {
      lines.push(`    ${jsonString(event.name)}: Record<string, any>`);
      continue;
    }
    lines.push(`    ${jsonString(event.name)}: {`);
    for (const property of properties) {
      const parts: string[] = [];
      for (const type of property.types) {
        for (const part of TYPESCRIPT_TYPES[type].split(" | ")) if (!parts.includes(part)) parts.push(part);
      }
      const optional = property.isRequired ? "" : "?";
      lines.push(`        ${jsonString(property.name)}${optional}: ${parts.join(" | ")}`);
    }
    lines.push("    }");
  }
  lines.push("}");
  return lines.join("\n");
}

const TYPE_ALIASES = `
// Type alias for all valid event names
export type EventName = keyof EventSchemas

// Type helper to get properties for a specific event
// Intersects the schema with Record<string, any> to allow additional properties
export type EventProperties<K extends EventName> = EventSchemas[K] & Record<string, any>

// Helper type to check if a type has required properties
type HasRequiredProperties<K extends EventName> = {} extends EventSchemas[K] ? false : true

// Helper to detect if T is exactly 'string' (not a literal)
type IsExactlyString<T> = string extends T ? (T extends string ? true : false) : false
`;

const TYPED_POSTHOG_INTERFACE = `
// Enhanced PostHog interface with typed capture
interface TypedPostHog extends Omit<OriginalPostHog, 'capture'> {
    /**
     * Type-safe capture for defined events, or flexible capture for undefined events
     *
     * Note: For defined events, wrap properties in a variable to allow additional properties:
     * const props = { file_size_b: 100, extra: 'data' }
     * posthog.capture('downloaded_file', props)
     *
     * @example
     * // Defined event with type safety
     * posthog.capture('uploaded_file', {
     *   file_name: 'test.txt',
     *   file_size_b: 100
     * })
     *
     * @example
     * // For events with all optional properties, properties argument is optional
     * posthog.capture('logged_out') // no properties needed
     *
     * @example
     * // Undefined events work with arbitrary properties
     * posthog.capture('custom_event', { whatever: 'data' })
     * posthog.capture('another_event') // or no properties
     */
    // Overload 1: For known events (specific EventName literals)
    // This should match first for all known event names
    capture<K extends EventName>(
        event_name: K,
        ...args: HasRequiredProperties<K> extends true
            ? [properties: EventProperties<K>, options?: CaptureOptions]
            : [properties?: EventProperties<K>, options?: CaptureOptions]
    ): CaptureResult | undefined

    // Overload 2: For undefined events and blocking string variables
    // Only matches if event_name is NOT a known EventName
    // The conditional type rejects broad string type
    capture<T extends string>(
        event_name: IsExactlyString<T> extends true ? never : (T extends EventName ? never : T),
        properties?: Properties | null,
        options?: CaptureOptions
    ): CaptureResult | undefined

    /**
     * Raw capture for any event (original behavior, no type checking)
     *
     * Use capture() for type-safe defined events or flexible undefined events.
     * Use captureRaw() only when you need to bypass all type checking.
     *
     * @example
     * posthog.captureRaw('Any Event Name', { whatever: 'data' })
     */
    captureRaw(event_name: string, properties?: Properties | null, options?: CaptureOptions): CaptureResult | undefined
}
`;

const IMPLEMENTATION = `
// Create the implementation
const createTypedPostHog = (original: OriginalPostHog): TypedPostHog => {
    // Create the enhanced PostHog object
    const enhanced: TypedPostHog = Object.create(original)

    // Add capture method (type-safe for defined events, flexible for undefined)
    enhanced.capture = function (event_name: string, ...args: any[]): CaptureResult | undefined {
        const [properties, options] = args
        return original.capture(event_name, properties, options)
    }

    // Add captureRaw method for untyped/flexible event tracking
    enhanced.captureRaw = function (
        event_name: string,
        properties?: Properties | null,
        options?: CaptureOptions
    ): CaptureResult | undefined {
        return original.capture(event_name, properties, options)
    }

    // Proxy to delegate all other properties/methods to the original
    return new Proxy(enhanced, {
        get(target, prop) {
            if (prop in target) {
                return (target as any)[prop]
            }
            return (original as any)[prop]
        },
        set(target, prop, value) {
            ;(original as any)[prop] = value
            return true
        },
    })
}
`;

const EXPORTS = `
// Create and export the typed instance
const posthog = createTypedPostHog(originalPostHog as OriginalPostHog)

export default posthog
export type { EventSchemas, TypedPostHog }

// Re-export everything else from posthog-js
export * from 'posthog-js'

/**
 * USAGE GUIDE
 * ===========
 *
 * For type-safe defined events (recommended):
 *   posthog.capture('uploaded_file', { file_name: 'test.txt', file_size_b: 100 })
 *
 * For undefined events (flexible):
 *   posthog.capture('Custom Event', { whatever: 'data' })
 *
 * For bypassing all type checking (rare):
 *   posthog.captureRaw('Any Event', { whatever: 'data' })
 */
`;

/**
 * The TypeScript module for `events` (in the order given), stamped with `generatedAt` (ISO 8601,
 * UTC): PostHog's layout, section by section.
 */
export function generateTypeScript(events: readonly CodegenEvent[], generatedAt: Date): string {
  const header = `/**
 * GENERATED FILE - DO NOT EDIT
 *
 * This file was auto-generated by PostHog
 * Generated at: ${generatedAt.toISOString()}
 * Generator version: ${TYPESCRIPT_GENERATOR_VERSION}
 *
 * Provides capture() for type-safe events and captureRaw() for flexibility
 */
import originalPostHog from 'posthog-js'
import type { CaptureOptions, CaptureResult, PostHog as OriginalPostHog, Properties } from 'posthog-js'
`;
  return header + eventSchemas(events) + TYPE_ALIASES + TYPED_POSTHOG_INTERFACE + IMPLEMENTATION + EXPORTS;
}
