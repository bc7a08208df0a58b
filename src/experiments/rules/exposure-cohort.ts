/**
 * The exposure cohort of an experiment (`POST :id/create_exposure_cohort_for_experiment`,
 * `ee/clickhouse/views/experiments.py`): its name and its criteria, one behavioral
 * `performed_event` since the start date: of `$feature_flag_called` with `$feature_flag` = the
 * flag's key, or of the first entity of the legacy `parameters.custom_exposure_filter` with that
 * entity's event property filters. Pure: the service checks the experiment and writes.
 */
import { NotImplementedError, ValidationError } from "../../core/errors.js";
import { pythonIsoformat } from "./fingerprint.js";

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The cohort's name: PostHog's `Users exposed to experiment "<name>"`. */
export function exposureCohortName(experimentName: string): string {
  return `Users exposed to experiment "${experimentName}"`;
}

/** One entity of a legacy filter (`Filter.entities`): its type, id and property filters. */
interface LegacyEntity {
  type: "events" | "actions";
  id: unknown;
  order: number | null;
  properties: unknown;
}

/**
 * A legacy filter's entities (`Filter.entities`): its `actions` then its `events`, each list
 * JSON or JSON text, sorted by `order` (absent first), as PostHog's `EntitiesMixin` reads them.
 * @throws ValidationError (attr `attr`) when a list is not a list of objects.
 */
export function legacyEntities(filter: Obj, attr: string): LegacyEntity[] {
  const entities: LegacyEntity[] = [];
  for (const type of ["actions", "events"] as const) {
    let list = filter[type];
    if (list === undefined || list === null) continue;
    if (typeof list === "string") {
      try {
        list = JSON.parse(list);
      } catch {
        throw new ValidationError(`'${type}' must be a JSON list of entities.`, { attr });
      }
    }
    if (!Array.isArray(list) || !list.every(isObject)) {
      throw new ValidationError(`'${type}' must be a list of entities.`, { attr });
    }
    for (const entity of list as Obj[]) {
      const order = typeof entity["order"] === "number" ? entity["order"] : null;
      entities.push({ type, id: entity["id"] ?? null, order, properties: entity["properties"] });
    }
  }
  // Python's sort is stable; PostHog sorts by `order`, an absent one as -1.
  return entities
    .map((entity, index) => ({ entity, index }))
    .sort((a, b) => (a.entity.order ?? -1) - (b.entity.order ?? -1) || a.index - b.index)
    .map(({ entity }) => entity);
}

/** Every property filter of an entity's `properties` (a list, or an AND/OR group), flattened. */
function flatProperties(properties: unknown): Obj[] {
  if (Array.isArray(properties)) return properties.flatMap(flatProperties);
  if (!isObject(properties)) return [];
  if ((properties["type"] === "AND" || properties["type"] === "OR") && Array.isArray(properties["values"])) {
    return flatProperties(properties["values"]);
  }
  return [properties];
}

/** PostHog keeps these property types of the custom exposure entity. */
const EXPOSURE_FILTER_TYPES = new Set(["event", "feature", "element", "hogql"]);

/**
 * The exposure cohort's `filters` (PostHog's exact shape: an OR of one OR of one behavioral
 * criterion, `negation: false`, `explicit_datetime` the start date in Python's `isoformat()`).
 * @throws ValidationError `Invalid action ID` for a custom exposure action whose id is not an integer.
 * @throws NotImplementedError for custom exposure filters on `feature`, `element` or `hogql`
 *   properties, which this service's event filters do not evaluate.
 */
export function exposureCohortFilters(flagKey: string, startDate: Date, parameters: unknown): Obj {
  let key: string | number = "$feature_flag_called";
  let eventType: "events" | "actions" = "events";
  let eventFilters: Obj[] = [{ key: "$feature_flag", value: [flagKey], operator: "exact", type: "event" }];
  const custom = isObject(parameters) ? parameters["custom_exposure_filter"] : undefined;
  if (isObject(custom) && Object.keys(custom).length > 0) {
    const entity = legacyEntities(custom, "parameters")[0];
    if (entity && entity.id !== null && entity.id !== "" && entity.id !== 0) {
      eventType = entity.type;
      if (entity.type === "actions") {
        const id = typeof entity.id === "number" ? entity.id : Number(String(entity.id).trim());
        if (!Number.isInteger(id) || String(entity.id).trim() === "") {
          throw new ValidationError("Invalid action ID");
        }
        key = id;
      } else {
        key = String(entity.id);
      }
      // A property without a type is an event property (PostHog's `Property` default).
      eventFilters = flatProperties(entity.properties)
        .map((p) => ({ ...p, type: p["type"] ?? "event" }))
        .filter((p) => EXPOSURE_FILTER_TYPES.has(String(p.type)));
      const unsupported = eventFilters.find((p) => p["type"] !== "event");
      if (unsupported) {
        throw new NotImplementedError(
          `Custom exposure filters on '${String(unsupported["type"])}' properties are not supported: only event properties are.`,
        );
      }
    }
  }
  return {
    properties: {
      type: "OR",
      values: [
        {
          type: "OR",
          values: [
            {
              type: "behavioral",
              value: "performed_event",
              key,
              negation: false,
              event_type: eventType,
              event_filters: eventFilters,
              explicit_datetime: pythonIsoformat(startDate),
            },
          ],
        },
      ],
    },
  };
}
