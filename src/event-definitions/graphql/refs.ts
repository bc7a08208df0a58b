/**
 * The event-definitions domain's published GraphQL module, the one module of this folder other
 * domains may import: the GraphQL half of the definitions' shared base, used by this folder and by
 * property-definitions/graphql/. Every object of the catalogue (event and property definitions,
 * schema property groups, event schemas) is named by a UUID and owned by a project; its id inputs
 * and its mutations' results are read and named alike here. (Generic enough for src/graphql/ids.ts
 * and src/graphql/mutation-result.ts, where it may move.)
 */
import { NotFoundError } from "../../core/errors.js";
import { isUuid } from "../../core/validation.js";
import { decodeGlobalId, parseProjectOwnedLocalId } from "../../graphql/ids.js";
import { mutationResult, WRITE_ERRORS } from "../../graphql/mutation-result.js";

/**
 * The UUID (lower-case) in an id input naming a `typename` object (`EventDefinition`,
 * `PropertyDefinition`, `SchemaPropertyGroup`, `EventSchema`): the UUID itself or the object's
 * global id (`<typename>:<projectId>:<uuid>`, graphql/ids.ts); null otherwise.
 */
export function parseUuidObjectId(raw: string, typename: string): string | null {
  if (isUuid(raw)) return raw.toLowerCase();
  const global = decodeGlobalId(raw);
  if (global === null || global.typename !== typename) return null;
  const owned = parseProjectOwnedLocalId(global.localId);
  return owned !== null && isUuid(owned.key) ? owned.key.toLowerCase() : null;
}

/**
 * The UUID of a mutation input's `id` naming a `typename` object (`parseUuidObjectId`).
 * @throws NotFoundError for an id naming none (the typed `NotFoundError` result).
 */
export function mutationUuid(raw: string, typename: string): string {
  const id = parseUuidObjectId(raw, typename);
  if (id === null) throw new NotFoundError();
  return id;
}

/**
 * plugin-errors options of write mutation `name` (e.g. `UpdatePropertyDefinition`): its success's
 * `field` holds `what` as `verb`; it fails with any write's errors (graphql/mutation-result.ts
 * `WRITE_ERRORS`).
 */
export function writeResult(name: string, field: string, what: string, verb: string) {
  return mutationResult({ name, field, what, verb, types: WRITE_ERRORS });
}
