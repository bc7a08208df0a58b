/**
 * The gated actions on a feature flag and how a write is recognised as one, with the intent a change
 * request keeps (PostHog's `products/approvals/backend/actions/feature_flags.py` and `experiments.py`):
 * - `feature_flag.enable` / `feature_flag.disable`: the write sets `active` to true / false and the
 *   flag is not that already;
 * - `feature_flag.update`: the write's `filters` change a rollout percentage at
 *   `groups[i].rollout_percentage`, `holdout.exclusion_percentage` or
 *   `multivariate.variants[i].rollout_percentage` (unless it also flips `active` without filters);
 * - `experiment.launch` / `experiment.pause` / `experiment.update`: the same writes on a flag an
 *   experiment runs on (PostHog's experiment family, whose `owner_scope` takes those flags from the
 *   `feature_flag.*` family).
 * Checked in that order (PostHog's `@approval_gate([Enable, Disable, Update])`).
 */

/** The gated actions, with PostHog's keys. */
export const ACTION_KEYS = [
  "feature_flag.enable",
  "feature_flag.disable",
  "feature_flag.update",
  "experiment.launch",
  "experiment.pause",
  "experiment.update",
] as const;

/** A gated action's key. */
export type ActionKey = (typeof ACTION_KEYS)[number];

/** A write to a flag the gate looks at: an update, or a create (`flagId` null, PostHog's create gate). */
export interface FlagChange {
  /** The flag's id; null for a flag the write creates. */
  flagId: number | null;
  flagKey: string;
  /** The flag's `version` before the write (the request's precondition). */
  version: number;
  /** When the flag last changed, ISO 8601. */
  updatedAt: string;
  /** Whether a (non-deleted) experiment runs on the flag: the experiment family governs it. */
  ownedByExperiment: boolean;
  before: { active: boolean; filters: unknown };
  /** What the write sets: `active` when it sets it, `filters` (as they would be stored) when it sets them. */
  sent: { active?: boolean; filters?: unknown };
  /** The write's body (PostHog's `full_request_data`), replayed when the change is approved. */
  body: Record<string, unknown>;
}

/** One rollout value at its path, e.g. `{path: "groups[0].rollout_percentage", value: 50}`. */
export interface RolloutValue {
  path: string;
  value: unknown;
}

/** An action a write is, with the intent and the display PostHog stores for it. */
export interface DetectedAction {
  key: ActionKey;
  intent: Record<string, unknown>;
  display: Record<string, unknown>;
}

/** `ROLLOUT_PERCENTAGE_PATHS`: the containers' keys, then the field. */
const ROLLOUT_PATHS: ReadonlyArray<readonly string[]> = [
  ["groups", "rollout_percentage"],
  ["holdout", "exclusion_percentage"],
  ["multivariate", "variants", "rollout_percentage"],
];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every rollout value of `filters` (`_extract_rollout_percentages`). */
export function rolloutValues(filters: unknown): RolloutValue[] {
  const values: RolloutValue[] = [];
  for (const spec of ROLLOUT_PATHS) {
    const containers = spec.slice(0, -1);
    const field = spec[spec.length - 1]!;
    let current: unknown = filters;
    for (const key of containers) current = isRecord(current) ? current[key] : undefined;
    const base = containers.join(".");
    if (isRecord(current) && field in current) {
      values.push({ path: `${base}.${field}`, value: current[field] });
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => {
        if (isRecord(item) && field in item)
          values.push({ path: `${base}[${i}].${field}`, value: item[field] });
      });
    }
  }
  return values;
}

/** The paths whose rollout value differs between `before` and `after` (`_get_triggered_paths`). */
export function changedRolloutPaths(before: unknown, after: unknown): string[] {
  const old = new Map(rolloutValues(before).map((v) => [v.path, v.value]));
  const next = new Map(rolloutValues(after).map((v) => [v.path, v.value]));
  return [...new Set([...old.keys(), ...next.keys()])].filter((path) => old.get(path) !== next.get(path));
}

/**
 * What a change request is checked against when it applies (the flag as the requester saw it; none
 * for a create), and the request's method.
 */
function requestFacts(change: FlagChange) {
  return change.flagId === null
    ? { preconditions: {}, http_method: "POST" }
    : { preconditions: { version: change.version, updated_at: change.updatedAt }, http_method: "PATCH" };
}

function stateAction(change: FlagChange, key: ActionKey, verb: string): DetectedAction {
  const intent = {
    flag_id: change.flagId,
    flag_key: change.flagKey,
    current_state: { active: change.before.active },
    gated_changes: { active: change.sent.active },
    full_request_data: change.body,
    ...requestFacts(change),
    skip_opportunistic_filter_cleanup: false,
  };
  return {
    key,
    intent,
    display: {
      description: `${verb} '${change.flagKey}'`,
      before: intent.current_state,
      after: change.body,
    },
  };
}

function updateAction(change: FlagChange, key: ActionKey, experiment: boolean): DetectedAction {
  const before = rolloutValues(change.before.filters);
  const after = rolloutValues(change.sent.filters);
  const triggered = changedRolloutPaths(change.before.filters, change.sent.filters);
  const intent = {
    flag_id: change.flagId,
    flag_key: change.flagKey,
    current_state: { rollout_percentage: before },
    gated_changes: { rollout_percentage: after },
    triggered_paths: triggered,
    full_request_data: change.body,
    ...requestFacts(change),
  };
  const old = new Map(before.map((v) => [v.path, v.value]));
  const next = new Map(after.map((v) => [v.path, v.value]));
  const described = triggered.map(
    (path) => `rollout percentage at ${path}: ${old.get(path) ?? "N/A"}% -> ${next.get(path) ?? "N/A"}%`,
  );
  const subject = experiment
    ? `Change the variant split of the experiment on feature flag '${change.flagKey}'`
    : `Update rollout percentage for feature flag '${change.flagKey}'`;
  return {
    key,
    intent,
    display: {
      description: described.length > 0 ? `${subject}: ${described.join("; ")}` : subject,
      before: intent.current_state,
      after: intent.gated_changes,
      triggered_paths: triggered,
    },
  };
}

/**
 * The actions `change` is, in PostHog's order (`detect` of each action class): none for a write that
 * neither flips `active` nor changes a rollout value.
 */
export function detectActions(change: FlagChange): DetectedAction[] {
  const experiment = change.ownedByExperiment;
  const found: DetectedAction[] = [];
  const { active } = change.sent;
  if (active === true && change.before.active !== true) {
    found.push(
      experiment
        ? stateAction(change, "experiment.launch", "Launch the experiment on feature flag")
        : stateAction(change, "feature_flag.enable", "Enable feature flag"),
    );
  }
  if (active === false && change.before.active !== false) {
    found.push(
      experiment
        ? stateAction(change, "experiment.pause", "Pause the experiment on feature flag")
        : stateAction(change, "feature_flag.disable", "Disable feature flag"),
    );
  }
  const flipsWithoutFilters =
    active !== undefined && active !== change.before.active && !("filters" in change.sent);
  if (
    !flipsWithoutFilters &&
    change.sent.filters !== undefined &&
    changedRolloutPaths(change.before.filters, change.sent.filters).length > 0
  ) {
    found.push(updateAction(change, experiment ? "experiment.update" : "feature_flag.update", experiment));
  }
  return found;
}
