/**
 * Change kinds a webhook subscribes to: `<object>.<activity>` of the activity-log entries of five
 * configuration objects (issue 12) and of change requests (issue 27), e.g. `feature_flag.updated`,
 * or `<object>.*` for all of one object's. The object comes from the entry's scope (`FeatureFlag` →
 * `feature_flag`), the activity is the entry's (`created`, `updated`, `deleted`; an endpoint also
 * logs `version_created`; a change request its transitions).
 */

/** Activity-log scopes whose entries are delivered, and their kind prefix (the API scope object's name). */
export const DELIVERED_SCOPES = {
  FeatureFlag: "feature_flag",
  Experiment: "experiment",
  Endpoint: "endpoint",
  EventDefinition: "event_definition",
  Cohort: "cohort",
  ChangeRequest: "change_request",
} as const satisfies Record<string, string>;

/** A kind prefix: `feature_flag`, `experiment`, `endpoint`, `event_definition`, `cohort` or `change_request`. */
export type KindObject = (typeof DELIVERED_SCOPES)[keyof typeof DELIVERED_SCOPES];

/** The actions of the configuration objects' entries. */
const OBJECT_ACTIONS = ["created", "updated", "deleted"] as const;

/** The actions each object's entries have, besides `*` (every action of the object). */
export const KIND_ACTIONS: Readonly<Record<KindObject, readonly string[]>> = {
  feature_flag: OBJECT_ACTIONS,
  experiment: OBJECT_ACTIONS,
  endpoint: [...OBJECT_ACTIONS, "version_created"],
  event_definition: OBJECT_ACTIONS,
  cohort: OBJECT_ACTIONS,
  // A change request's transitions (src/approvals/): the state it moved to, or `canceled`.
  change_request: ["created", "approved", "applied", "failed", "rejected", "canceled", "expired"],
};

/** Every kind a subscription may list, in a stable order (objects, then actions, then `*`). */
export const WEBHOOK_KINDS: readonly string[] = Object.values(DELIVERED_SCOPES).flatMap((object) =>
  [...KIND_ACTIONS[object], "*"].map((action) => `${object}.${action}`),
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
