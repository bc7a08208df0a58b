/**
 * Change kinds a webhook subscribes to: `<object>.<activity>` of the activity-log entries of five
 * configuration objects (issue 12), e.g. `feature_flag.updated`, or `<object>.*` for all of one
 * object's. The object comes from the entry's scope (`FeatureFlag` → `feature_flag`), the activity
 * is the entry's (`created`, `updated`, `deleted`; an endpoint also logs `version_created`).
 */

/** Activity-log scopes whose entries are delivered, and their kind prefix (the API scope object's name). */
export const DELIVERED_SCOPES = {
  FeatureFlag: "feature_flag",
  Experiment: "experiment",
  Endpoint: "endpoint",
  EventDefinition: "event_definition",
  Cohort: "cohort",
} as const satisfies Record<string, string>;

/** A kind prefix: `feature_flag`, `experiment`, `endpoint`, `event_definition` or `cohort`. */
export type KindObject = (typeof DELIVERED_SCOPES)[keyof typeof DELIVERED_SCOPES];

/** The actions a subscription may name; `*` is every action of the object. */
export const KIND_ACTIONS = ["created", "updated", "deleted", "version_created", "*"] as const;

/** Every kind a subscription may list, in a stable order (objects, then actions). */
export const WEBHOOK_KINDS: readonly string[] = Object.values(DELIVERED_SCOPES).flatMap((object) =>
  KIND_ACTIONS.filter((action) => action !== "version_created" || object === "endpoint").map(
    (action) => `${object}.${action}`,
  ),
);

/** The kind of an entry of `scope` with `activity`, or null for a scope that is not delivered. */
export function kindOf(scope: string, activity: string): string | null {
  const object = (DELIVERED_SCOPES as Record<string, string>)[scope];
  return object === undefined ? null : `${object}.${activity}`;
}

/** The subscription kinds that match `kind`: itself and its object's wildcard (`feature_flag.*`). */
export function subscribedBy(kind: string): [string, string] {
  return [kind, `${kind.slice(0, kind.indexOf("."))}.*`];
}
