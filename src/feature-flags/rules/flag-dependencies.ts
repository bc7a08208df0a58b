/**
 * The flag-dependency rules (posthog-behavior.md §2.6; `posthog/api/feature_flag.py`
 * `_check_flag_circular_dependencies`, `find_dependent_flags`, `update`): which flags a flag depends
 * on, which depend on it, no self-dependency or cycle, and no disabling or deleting a flag others
 * depend on. Pure: the project's flags come in as `FlagSummary`s.
 */
import { ValidationError } from "../../core/errors.js";
import type { FiltersContext, FlagSummary, PropertyFilter } from "./filter-types.js";
import { conditionGroups, groupProperties, parseId } from "./stored-filters.js";

/**
 * Ids of the flags that `filters` depends on: the parseable `key`s of `type: "flag"` properties in
 * `groups`, in first-occurrence order, without duplicates. A caller loads the project's flags for
 * `FiltersContext.flags` only when this is non-empty. Unparseable references are skipped here
 * (`validateFilters` reports them; stored data is read as PostHog's evaluation reads it).
 * Source: `posthog/models/feature_flag/local_evaluation.py` `_get_flag_properties_from_filters`.
 */
export function referencedFlagIds(filters: unknown): number[] {
  const ids = new Set<number>();
  for (const group of conditionGroups(filters)) {
    for (const property of groupProperties(group)) {
      const id = property.type === "flag" ? parseId(property.key) : null;
      if (id !== null) ids.add(id);
    }
  }
  return [...ids];
}

/**
 * §2.6: every dependency must be an integer id of an existing, non-deleted, active flag; no flag
 * may depend on itself; and following dependencies from this flag must never come back to a flag
 * already on the path.
 */
export function checkFlagDependencies(properties: readonly PropertyFilter[], ctx: FiltersContext): void {
  const dependencies = new Map<number, FlagSummary>();
  for (const property of properties) {
    if (property.type !== "flag") continue;
    const id = parseId(property.key);
    if (id === null) {
      throw invalid(
        "Flag dependencies must reference flag IDs (integers), not flag keys. " +
          `Invalid reference: '${property.key}'`,
      );
    }
    const flag = ctx.flags.get(id);
    if (!flag || flag.deleted) throw invalid(`Flag dependency references non-existent flag with ID ${id}`);
    if (!flag.active) {
      throw invalid(
        `Cannot create dependency on disabled flag '${flag.key}' (ID: ${id}). ` +
          "Flag dependencies must reference active flags only.",
      );
    }
    dependencies.set(id, flag);
  }
  for (const flag of dependencies.values()) {
    if (flag.id === ctx.flagId || flag.key === ctx.flagKey) {
      throw invalid(`Feature flag '${ctx.flagKey}' cannot depend on itself`);
    }
  }
  const cycle = findCycle([...dependencies.keys()], ctx);
  if (cycle) throw invalid(`Circular dependency detected: ${cycle.join(" → ")}`);
}

/**
 * Depth-first search from the flag being validated (`null` on create, which nothing can reference),
 * following its new dependencies and every other flag's stored ones. Transitive references that do
 * not resolve to a non-deleted flag are dead ends, as in PostHog. A flag whose dependencies were
 * fully explored without finding a cycle is not explored again, which keeps the search linear in
 * the number of dependency edges. Returns the cycle as flag keys, first repeated last, or `null`.
 */
function findCycle(ownDependencies: readonly number[], ctx: FiltersContext): string[] | null {
  const path: (number | null)[] = [];
  const explored = new Set<number>();
  const keyOf = (id: number | null) =>
    id === null || id === ctx.flagId ? ctx.flagKey : (ctx.flags.get(id)?.key ?? String(id));
  const visit = (id: number | null, dependencies: readonly number[]): string[] | null => {
    path.push(id);
    for (const dependency of dependencies) {
      const onPath = path.indexOf(dependency);
      if (onPath !== -1) return [...path.slice(onPath), dependency].map(keyOf);
      const flag = ctx.flags.get(dependency);
      if (!flag || flag.deleted || explored.has(dependency)) continue;
      const cycle = visit(dependency, referencedFlagIds(flag.filters));
      if (cycle) return cycle;
    }
    path.pop();
    if (id !== null) explored.add(id);
    return null;
  };
  return visit(ctx.flagId, ownDependencies);
}

/**
 * The "dependent flags" of flag `flagId` (§2.6, `find_dependent_flags`): non-deleted, active flags
 * other than it with a `groups[].properties[]` entry of `type: "flag"` whose `key` is
 * `String(flagId)` (compared as text, as PostHog's SQL does). Ordered by key (code-point order).
 */
export function dependentFlags<F extends FlagSummary>(flagId: number, flags: Iterable<F>): F[] {
  const reference = String(flagId);
  const dependents = [...flags].filter(
    (flag) =>
      !flag.deleted &&
      flag.active &&
      flag.id !== flagId &&
      conditionGroups(flag.filters).some((group) =>
        groupProperties(group).some(
          (property) =>
            property.type === "flag" &&
            (typeof property.key === "number" ? String(property.key) : property.key) === reference,
        ),
      ),
  );
  return dependents.sort(byKey);
}

/** A dependent flag as `dependent_flags` and `has_active_dependents` list it (§2.6). */
export interface DependentFlagEntry {
  id: number;
  key: string;
  /** The flag's name (its description), or its key when the name is blank, as PostHog shows it. */
  name: string;
}

/** `flag` as a `DependentFlagEntry`. */
export function dependentFlagEntry(flag: { id: number; key: string; name: string }): DependentFlagEntry {
  return { id: flag.id, key: flag.key, name: flag.name || flag.key };
}

/**
 * The `warning` of `POST :id/has_active_dependents` when `count` (> 0) active flags depend on the
 * flag. PostHog's own text was not recovered (§2.6: it said how many flags use the flag and what
 * disabling does to them); this one says the same of this service, which refuses to disable or
 * delete such a flag (`checkActivationChange`, `checkDeletion`).
 */
export function dependentsWarning(count: number): string {
  const flags = count === 1 ? "1 other active flag" : `${count} other active flags`;
  return (
    `This feature flag is used by ${flags}: it cannot be disabled or deleted until ` +
    `${count === 1 ? "that flag no longer depends" : "those flags no longer depend"} on it.`
  );
}

/**
 * Refuses a change of `active` that would break flag dependencies (§2.6):
 * disabling (`flag.active` true → `nextActive` false) while `dependentFlags` exist, and enabling
 * (false → true) while one of the flags it depends on is disabled. Pass as `flag.filters` the filters
 * the flag will have after the write (PostHog reads the stored ones; the two differ only when the
 * same request drops the disabled dependency, which PostHog then wrongly refuses).
 *
 * @throws ValidationError (attr `null`, code `invalid_input`), e.g. `Cannot disable this feature
 *   flag because other flags depend on it: a (ID: 1), b (ID: 2). Please update or disable the
 *   dependent flags first.`; at most 5 flags are listed, then `and N more`.
 * Source: `posthog/api/feature_flag.py` `FeatureFlagSerializer.update`, `_find_disabled_dependencies`.
 */
export function checkActivationChange(
  flag: FlagSummary,
  nextActive: boolean,
  flags: Iterable<FlagSummary>,
): void {
  if (flag.active && !nextActive) {
    const dependents = dependentFlags(flag.id, flags);
    if (dependents.length > 0) {
      throw new ValidationError(
        `Cannot disable this feature flag because other flags depend on it: ${listFlags(dependents)}. ` +
          "Please update or disable the dependent flags first.",
      );
    }
  }
  if (!flag.active && nextActive) {
    const dependencyIds = new Set(referencedFlagIds(flag.filters));
    const disabled = [...flags]
      .filter((other) => dependencyIds.has(other.id) && !other.deleted && !other.active)
      .sort(byKey);
    if (disabled.length > 0) {
      throw new ValidationError(
        `Cannot enable this feature flag because it depends on disabled flags: ${listFlags(disabled)}. ` +
          "Please enable the dependency flags first.",
      );
    }
  }
}

/**
 * Refuses soft-deleting flag `flagId` while `dependentFlags` exist (§2.6). Call it when the request
 * sets `deleted: true`, after the early-access and experiment checks, as PostHog orders them.
 *
 * @throws ValidationError (attr `null`, code `invalid_input`): `Cannot delete this feature flag
 *   because other flags depend on it: a (ID: 1), .... Please update or delete the dependent flags
 *   first.`; at most 5 flags are listed, then `and N more`.
 * Source: `posthog/api/feature_flag.py` `FeatureFlagSerializer.update`.
 */
export function checkDeletion(flagId: number, flags: Iterable<FlagSummary>): void {
  const dependents = dependentFlags(flagId, flags);
  if (dependents.length > 0) {
    throw new ValidationError(
      `Cannot delete this feature flag because other flags depend on it: ${listFlags(dependents)}. ` +
        "Please update or delete the dependent flags first.",
    );
  }
}

const LISTED_FLAGS = 5;

function listFlags(flags: readonly FlagSummary[]): string {
  const names = flags.slice(0, LISTED_FLAGS).map((flag) => `${flag.key} (ID: ${flag.id})`);
  if (flags.length > LISTED_FLAGS) names.push(`and ${flags.length - LISTED_FLAGS} more`);
  return names.join(", ");
}

function byKey(a: FlagSummary, b: FlagSummary): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** A filter validation error of the dependency rules (attr `filters`, as in filters.ts). */
function invalid(detail: string): ValidationError {
  return new ValidationError(detail, { attr: "filters", code: "invalid_input" });
}
