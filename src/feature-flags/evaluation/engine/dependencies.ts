/**
 * Flag dependencies (posthog-behavior.md §2.6): which flags a flag's conditions name through
 * `{type: "flag", key: "<flag id>", operator: "flag_evaluates_to", value}` filters, in which order to
 * evaluate them, and which flags cannot be evaluated. Done once per project revision.
 *
 * As the Rust service's dependency graph (`rust/feature-flags/src/utils/graph_utils.rs`, used by
 * `flag_matching.rs` `flags_with_missing_deps`): a flag whose dependency does not exist (not among
 * the project's non-deleted flags), that is part of a cycle, or that depends on such a flag at any
 * depth, evaluates to false with reason `missing_dependency`. An inactive dependency is not missing:
 * it evaluates to false, which `flag_evaluates_to: false` matches. A `flag` filter whose key is not
 * an integer id depends on nothing and never matches.
 */

/** A flag's dependencies as the graph sees them. */
export interface DependencyNode {
  id: number;
  /** Ids named by the flag's `flag` filters (deduplicated). */
  dependsOn: readonly number[];
}

/** The graph's answer: an evaluation order (dependencies first) and the flags that cannot be evaluated. */
export interface DependencyPlan {
  /** Every flag id, each after the flags it depends on (cycles broken arbitrarily). */
  order: number[];
  /** Flags with a missing or cyclic dependency, directly or through other flags. */
  broken: ReadonlySet<number>;
}

/** The flag id a `flag` filter's key names, or null (an integer, or a string of digits). */
export function dependencyId(key: unknown): number | null {
  if (typeof key === "number") return Number.isSafeInteger(key) && key >= 0 ? key : null;
  if (typeof key !== "string" || !/^\d{1,15}$/.test(key)) return null;
  return Number(key);
}

/** Orders the flags and finds the broken ones, iteratively (no recursion depth limit). */
export function planDependencies(nodes: readonly DependencyNode[]): DependencyPlan {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const broken = new Set<number>();
  const state = new Map<number, "open" | "done">();
  const order: number[] = [];
  for (const start of nodes) {
    if (state.has(start.id)) continue;
    // Depth-first, post-order; `stack` holds [node, index of the next dependency to visit].
    const stack: Array<[DependencyNode, number]> = [[start, 0]];
    state.set(start.id, "open");
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const [node, next] = frame;
      if (next < node.dependsOn.length) {
        frame[1] = next + 1;
        const depId = node.dependsOn[next]!;
        const dep = byId.get(depId);
        if (!dep) {
          broken.add(node.id);
        } else if (state.get(depId) === "open") {
          // A cycle: every flag on the stack from the dependency up is in it.
          for (let i = stack.length - 1; i >= 0; i--) {
            broken.add(stack[i]![0].id);
            if (stack[i]![0].id === depId) break;
          }
        } else if (!state.has(depId)) {
          state.set(depId, "open");
          stack.push([dep, 0]);
        }
        continue;
      }
      stack.pop();
      state.set(node.id, "done");
      order.push(node.id);
    }
  }
  // Brokenness flows to dependents; `order` has dependencies first except inside cycles, whose
  // members are already broken, so one pass settles it.
  for (const id of order) {
    if (broken.has(id)) continue;
    if (byId.get(id)!.dependsOn.some((dep) => broken.has(dep))) broken.add(id);
  }
  return { order, broken };
}
