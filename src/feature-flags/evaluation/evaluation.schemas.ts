/**
 * The inputs of flag evaluation, one zod schema per door, each read into one `EvaluationInput`:
 * - the SDK door's `/flags` and `/decide` body (`flagsRequestSchema`), with the field names and
 *   aliases PostHog's flags service reads (rust/feature-flags/src/flags/flag_request.rs
 *   `FlagRequest`): `distinct_id`/`$distinct_id` (a number becomes its text, as serde's
 *   `StringOrNumber`), `person_properties`/`$properties`, `groups`/`$groups`,
 *   `group_properties`/`$group_properties`, `$anon_distinct_id`, `$device_id` (else
 *   `person_properties.$device_id`), `flag_keys`/`flag_keys_to_evaluate`, `disable_flags`,
 *   `evaluation_contexts`/`evaluation_environments`, `evaluation_runtime`;
 * - the REST query of `evaluation_reasons` and `my_flags` (`groups` as JSON text, §2.10).
 * Fields PostHog ignores here (`token`, `geoip_disable`, `timezone`, `ip_address`...) are dropped.
 */
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";

/** The longest distinct id the flags service keeps; longer ones are cut (flag_request.rs `MAX_DISTINCT_ID_LEN`). */
export const MAX_DISTINCT_ID_LENGTH = 200;

/** Where a flag may be evaluated (the flag's `evaluation_runtime`, and what a request says it is). */
export type EvaluationRuntime = "all" | "client" | "server";

/** What an evaluation is asked for, whichever door asked. */
export interface EvaluationInput {
  distinctId: string;
  /** The id the person had before `identify` (`$anon_distinct_id`): experience continuity's hash key (§3.2). */
  anonDistinctId: string | null;
  deviceId: string | null;
  /** Group type name → group key (a number key as its text). */
  groups: Record<string, string>;
  /** Person properties the caller knows; they win over stored ones. */
  personProperties: Record<string, unknown>;
  /** Group type name → properties the caller knows; they win over stored ones. */
  groupProperties: Record<string, Record<string, unknown>>;
  /** Evaluate only these flags (and, silently, those they depend on); all when null. */
  flagKeys: string[] | null;
}

/** An SDK's `/flags` request: the evaluation input and what only SDKs send. */
export interface FlagsRequest extends EvaluationInput {
  /** `disable_flags: true`: answer no flags, only the rest (config). */
  disableFlags: boolean;
  /** The runtime the SDK says it runs in; null when it says nothing (then its headers tell). */
  runtime: EvaluationRuntime | null;
  /** Environment tags (`evaluation_contexts`): only flags without evaluation tags or with one of these. */
  evaluationContexts: string[];
}

const propertiesSchema = z.record(z.string(), z.unknown());

/** A group key as SDKs send it: text, or a number (kept as its text, as the flags service hashes it). */
const groupKeySchema = z.union([z.string(), z.number()]).transform(String);

const groupsSchema = z.record(z.string(), groupKeySchema);

const groupPropertiesSchema = z.record(z.string(), propertiesSchema);

/** `/flags` body fields, under their canonical names (aliases are folded in by `readFlagsRequest`). */
export const flagsRequestSchema = z.object({
  distinct_id: z.union([z.string(), z.number()]),
  person_properties: propertiesSchema.nullish(),
  groups: groupsSchema.nullish(),
  group_properties: groupPropertiesSchema.nullish(),
  $anon_distinct_id: z.string().nullish(),
  $device_id: z.string().nullish(),
  flag_keys: z.array(z.string()).nullish(),
  disable_flags: z.boolean().nullish(),
  evaluation_contexts: z.array(z.string()).nullish(),
  evaluation_runtime: z.string().nullish(),
});

/** Canonical field → the names PostHog also reads it under (flag_request.rs serde aliases). */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  distinct_id: ["$distinct_id"],
  person_properties: ["$properties"],
  groups: ["$groups"],
  group_properties: ["$group_properties"],
  $anon_distinct_id: ["anon_distinct_id"],
  $device_id: ["device_id"],
  flag_keys: ["flag_keys_to_evaluate"],
  evaluation_contexts: ["evaluation_environments"],
};

/** `body` with each alias moved to its canonical name (the canonical name wins when both are sent). */
function withCanonicalNames(body: Record<string, unknown>): Record<string, unknown> {
  const canonical: Record<string, unknown> = { ...body };
  for (const [name, aliases] of Object.entries(ALIASES)) {
    if (canonical[name] !== undefined) continue;
    const alias = aliases.find((candidate) => body[candidate] !== undefined);
    if (alias !== undefined) canonical[name] = body[alias];
  }
  return canonical;
}

/** A runtime as the flags service reads it: case-insensitive, anything unknown is `all` (flags.rs `EvaluationRuntime`). */
export function readRuntime(value: string): EvaluationRuntime {
  const lower = value.toLowerCase();
  return lower === "client" || lower === "server" ? lower : "all";
}

/** `text` cut to `MAX_DISTINCT_ID_LENGTH` characters (code points, as Rust's `chars().take`). */
function truncated(text: string): string {
  const chars = Array.from(text);
  return chars.length > MAX_DISTINCT_ID_LENGTH ? chars.slice(0, MAX_DISTINCT_ID_LENGTH).join("") : text;
}

/**
 * A parsed `/flags` body as `FlagsRequest`. `parse` is the caller's zod parse (core/validation.ts
 * `parseInput` with its limits), given the body with aliases folded in. An empty `$anon_distinct_id`
 * or `$device_id` counts as absent (flag_request.rs `extract_device_id`).
 * @throws ValidationError (400) without `distinct_id` (the flags service's `MissingDistinctId`
 *   message), or as `parse` for a field of the wrong type.
 */
export function readFlagsRequest(
  body: unknown,
  parse: (input: unknown) => z.output<typeof flagsRequestSchema>,
): FlagsRequest {
  const isObject = body !== null && typeof body === "object" && !Array.isArray(body);
  const canonical = isObject ? withCanonicalNames(body as Record<string, unknown>) : body;
  if (isObject && (canonical as Record<string, unknown>)["distinct_id"] == null) {
    throw new ValidationError(
      "The distinct_id field is missing from the request. Please include a valid identifier.",
      { attr: "distinct_id", code: "required" },
    );
  }
  const input = parse(canonical);
  const personProperties = input.person_properties ?? {};
  const propertyDeviceId = personProperties["$device_id"];
  return {
    distinctId: truncated(String(input.distinct_id)),
    anonDistinctId: input.$anon_distinct_id || null,
    deviceId: input.$device_id || (typeof propertyDeviceId === "string" && propertyDeviceId) || null,
    groups: input.groups ?? {},
    personProperties,
    groupProperties: input.group_properties ?? {},
    flagKeys: input.flag_keys ?? null,
    disableFlags: input.disable_flags === true,
    runtime: input.evaluation_runtime ? readRuntime(input.evaluation_runtime) : null,
    evaluationContexts: input.evaluation_contexts ?? [],
  };
}

/**
 * The `groups` query parameter of `evaluation_reasons` and `my_flags`: a JSON object of group type →
 * key, `{}` when absent (posthog/api/feature_flag.py).
 * @throws ValidationError `Invalid JSON in groups parameter` / `groups must be a JSON object` (attr `groups`).
 */
export function readGroupsParameter(text: string | null): Record<string, string> {
  if (text === null || text === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ValidationError("Invalid JSON in groups parameter", { attr: "groups" });
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ValidationError("groups must be a JSON object", { attr: "groups" });
  }
  const result = groupsSchema.safeParse(parsed);
  if (!result.success) throw new ValidationError("groups must be a JSON object", { attr: "groups" });
  return result.data;
}

/**
 * The error codes of OFREP's evaluation failures about the request (open-feature/protocol
 * `service/openapi.yaml` `evaluationFailure.errorCode`): what a `ValidationError` thrown by
 * `readOfrepRequest` carries as its `code`.
 */
export type OfrepRequestErrorCode = "TARGETING_KEY_MISSING" | "INVALID_CONTEXT";

/**
 * The evaluation context of an OFREP request, as OpenFeature's providers send it (`{context}`,
 * open-feature/protocol `evaluationRequest`; the OpenFeature spec's evaluation context: a
 * `targetingKey` and any other attributes). Two attributes are read as PostHog's `/flags` body fields
 * rather than person properties, the convention of the PostHog OpenFeature providers
 * (Tapico/node-posthog-openfeature): `groups` (group type → key) and `groupProperties` (group type →
 * properties).
 */
const ofrepContextSchema = z
  .object({
    targetingKey: z.string(),
    groups: groupsSchema.nullish(),
    groupProperties: groupPropertiesSchema.nullish(),
  })
  .catchall(z.unknown());

/** An OFREP evaluation request's body: `{context}` (other fields are ignored). */
export const ofrepRequestSchema = z.object({ context: ofrepContextSchema });

/**
 * An OFREP request body (decoded JSON, or undefined for an empty body) as an `EvaluationInput`:
 * `context.targetingKey` is the distinct id; `groups` and `groupProperties` are PostHog's groups and
 * group properties; every other attribute is a person property that wins over the stored one, as a
 * `/flags` request's `person_properties` (`$device_id` among them is also the device id, as there).
 * No `$anon_distinct_id`: OFREP requests only read. `parse` is the caller's zod parse
 * (core/validation.ts `parseInput` with its limits).
 * @throws ValidationError code `TARGETING_KEY_MISSING` (attr `context__targetingKey`) when there is
 *   no context, no `targetingKey`, or an empty one; `INVALID_CONTEXT` (attr naming the field) for a
 *   context that is not an object, a `targetingKey` that is not text, malformed `groups` or
 *   `groupProperties`, or what `parse` refuses (nesting too deep, NUL characters).
 */
export function readOfrepRequest(
  body: unknown,
  parse: (input: unknown) => z.output<typeof ofrepRequestSchema>,
): EvaluationInput {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === "object" && !Array.isArray(value);
  const context = isObject(body) ? body["context"] : undefined;
  const keyMissing =
    body === undefined ||
    (isObject(body) && context == null) ||
    (isObject(context) && (context["targetingKey"] == null || context["targetingKey"] === ""));
  if (keyMissing) {
    throw new ValidationError("targetingKey is missing from the evaluation context", {
      attr: "context__targetingKey",
      code: "TARGETING_KEY_MISSING" satisfies OfrepRequestErrorCode,
    });
  }
  let parsed: z.output<typeof ofrepRequestSchema>;
  try {
    parsed = parse(body);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const detail = error.attr ? `${error.attr.replaceAll("__", ".")}: ${error.detail}` : error.detail;
    throw new ValidationError(detail, {
      attr: error.attr,
      code: "INVALID_CONTEXT" satisfies OfrepRequestErrorCode,
    });
  }
  const { targetingKey: distinctId, groups, groupProperties, ...personProperties } = parsed.context;
  const deviceId = personProperties["$device_id"];
  return {
    distinctId,
    anonDistinctId: null,
    deviceId: typeof deviceId === "string" && deviceId !== "" ? deviceId : null,
    groups: groups ?? {},
    personProperties,
    groupProperties: groupProperties ?? {},
    flagKeys: null,
  };
}
