/**
 * Flag dependencies as the local-evaluation payload sends them to SDKs (posthog-behavior.md §2.6,
 * §2.10; PostHog `posthog/models/feature_flag/local_evaluation.py`
 * `_apply_flag_dependency_transformation`). Stored `flag` filters name their dependency by id
 * (`{type: "flag", key: "<id>", operator: "flag_evaluates_to", value}`); SDKs evaluate by key and do
 * not build the dependency graph themselves, so each `flag` filter in `groups` is sent with:
 * - `key`: the key of the flag with that id among the payload's flags (the id text when none has
 *   it: a missing, deleted or remote-configuration flag);
 * - `dependency_chain`: the keys to evaluate, dependencies first, ending with the dependency itself
 *   (PostHog's `_DependencyChainBuilder`: a depth-first walk over the flags' `groups` filters); `[]`
 *   when the dependency is missing, depends on itself, or its walk meets a cycle or a missing flag.
 * posthog-node (`FeatureFlagsPoller.evaluateFlagDependency`) defers to the server a flag filter
 * without a chain or with an empty one, which is where our engine answers `missing_dependency`.
 *
 * Pure: filters are copied, never changed in place. Filters PostHog's code could not read (groups or
 * properties that are not lists/objects) are left as they are.
 */

type Filters = Record<string, unknown>;

/** A flag of the payload: its id, key and `get_filters()` filters. */
export interface ChainFlag {
  id: number;
  key: string;
  filters: Filters;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The `flag` filters of `filters.groups`, as PostHog's `_get_flag_properties_from_filters` reads them. */
function flagFilters(filters: Filters): Record<string, unknown>[] {
  const groups = Array.isArray(filters["groups"]) ? filters["groups"] : [];
  return groups.flatMap((group) =>
    isRecord(group) && Array.isArray(group["properties"])
      ? group["properties"].filter(
          (property): property is Record<string, unknown> =>
            isRecord(property) && property["type"] === "flag",
        )
      : [],
  );
}

/** The dependency key a `flag` filter names after ids are read as keys (PostHog `_resolve_flag_dependency_key`). */
function dependencyKey(property: Record<string, unknown>, keyById: ReadonlyMap<string, string>): string {
  const reference = property["key"] === undefined || property["key"] === null ? "" : String(property["key"]);
  return keyById.get(reference) ?? reference;
}

/**
 * The dependency chain of every key (see the module header), memoised: a key's chain is walked once.
 * Each walk has its own visited sets, as PostHog's `build_chain` has.
 */
function chainBuilder(dependenciesOf: ReadonlyMap<string, readonly string[]>): (key: string) => string[] {
  const memo = new Map<string, string[]>();
  return (root) => {
    const known = memo.get(root);
    if (known) return known;
    const rootDependencies = dependenciesOf.get(root);
    if (rootDependencies?.includes(root)) {
      memo.set(root, []);
      return [];
    }
    const done = new Set<string>();
    const open = new Set<string>();
    const chain: string[] = [];
    // Depth-first, post-order, with an explicit stack so that long chains cannot overflow the call stack.
    const stack: Array<{ key: string; next: number }> = [];
    const enter = (key: string): boolean => {
      if (open.has(key)) return false;
      if (done.has(key)) return true;
      if (!dependenciesOf.has(key)) return false;
      open.add(key);
      stack.push({ key, next: 0 });
      return true;
    };
    let ok = enter(root);
    while (ok && stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const dependencies = dependenciesOf.get(frame.key)!;
      if (frame.next < dependencies.length) {
        const dependency = dependencies[frame.next++]!;
        // A flag's filter on itself is skipped below the root, as PostHog's `dep_flag_key != current_key`.
        if (dependency !== frame.key) ok = enter(dependency);
        continue;
      }
      stack.pop();
      open.delete(frame.key);
      done.add(frame.key);
      chain.push(frame.key);
    }
    const result = ok ? chain : [];
    memo.set(root, result);
    return result;
  };
}

/**
 * The filters of each flag with its `flag` filters rewritten for SDKs (see the module header), in
 * the order of `flags`. Flags without `flag` filters keep their filters object as is.
 */
export function withDependencyChains(flags: readonly ChainFlag[]): Filters[] {
  const keyById = new Map(flags.map((flag) => [String(flag.id), flag.key]));
  const dependenciesOf = new Map<string, string[]>();
  for (const flag of flags) {
    dependenciesOf.set(
      flag.key,
      flagFilters(flag.filters).map((property) => dependencyKey(property, keyById)),
    );
  }
  const chainOf = chainBuilder(dependenciesOf);
  return flags.map((flag) => {
    if (flagFilters(flag.filters).length === 0) return flag.filters;
    const groups = (flag.filters["groups"] as unknown[]).map((group) => {
      if (!isRecord(group) || !Array.isArray(group["properties"])) return group;
      const properties = group["properties"].map((property) => {
        if (!isRecord(property) || property["type"] !== "flag") return property;
        const key = dependencyKey(property, keyById);
        return { ...property, key, dependency_chain: chainOf(key) };
      });
      return { ...group, properties };
    });
    return { ...flag.filters, groups };
  });
}
