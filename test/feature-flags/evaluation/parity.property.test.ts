/**
 * Property: on generated flags and persons (test/support/flag-arbitraries.ts), our engine and
 * posthog-node 5.70's local evaluator (a real client in local-evaluation mode,
 * test/support/flag-parity.ts) give every flag the same value and payload, wherever posthog-node
 * decides the flag locally. Flags it leaves to the server (`unresolvedFlags`: static cohorts,
 * experience continuity, unknown operators, empty dependency chains, integers it cannot print as the
 * server does, regexes it will not run) are left out and counted by reason, and must stay a minority.
 *
 * Deliberate differences, kept out of the generated flags:
 * - `super_groups` / `feature_enrollment` (early access) and the older `holdout_groups`: posthog-node
 *   ignores them and evaluates the conditions; the engine follows the Rust service, which applies
 *   them first (posthog-behavior.md §3.3 steps 3–4).
 * - `filters.early_exit`: a posthog-node option (a condition out of its rollout ends the flag as
 *   `false`); the Rust service does not read it, nor does the engine. PostHog's UI does not set it.
 *
 * Deliberate differences, generated and skipped (counted under their names): where posthog-node
 * and the Rust service (the reference for the server: `rust/feature-flags/src/flags/flag_matching.rs`)
 * decide differently, the engine follows the server.
 * - `broken dependency`: a flag with a missing or circular dependency, directly or further down, is
 *   `false` (`missing_dependency`) on the server whatever its conditions (`flags_with_missing_deps`,
 *   "fail closed"); posthog-node decides it from any condition it matches before it reaches the
 *   broken filter. Our REST and GraphQL validation refuses such dependencies (§2.6).
 * - `decided by a later condition`: when posthog-node cannot decide a condition (an integer it
 *   cannot print as the server does, say) it goes on to the next, and answers from the first later
 *   one that matches (`matchFeatureFlagProperties`); the server decides the earlier one, and the first
 *   matching condition wins in both references. Values differ only where the conditions give
 *   different values (variant overrides). Counted when the condition our engine matched holds a filter
 *   posthog-node cannot decide for that person.
 * - `depends on a documented difference`: a flag whose dependency differs for one of these reasons.
 * - `held out without its group`: a group flag with a holdout, evaluated without the subject's
 *   group: the server applies the holdout first, hashing an empty group key
 *   (`is_holdout_condition_match`, `hashed_identifier`), so a 100% holdout (or an empty key under
 *   the percentage) answers the holdout variant; posthog-node answers `false` before the holdout.
 */
import { isDeepStrictEqual } from "node:util";
import { type FeatureFlagProperty, InconclusiveMatchError, matchFeatureFlagProperty } from "@posthog/core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { compileDefinitions } from "../../../src/feature-flags/evaluation/engine/evaluate.js";
import { propertyRuns } from "../../support/arbitraries.js";
import {
  type GeneratedPerson,
  type GeneratedProject,
  personArbitrary,
  projectArbitrary,
} from "../../support/flag-arbitraries.js";
import {
  type EngineOutcome,
  engineOutcomes,
  type FlagOutcome,
  type LocalOutcomes,
  localEvaluator,
  projectDefinitionsOf,
} from "../../support/flag-parity.js";
import { NOW } from "./support.js";

type Filter = Record<string, unknown>;

/**
 * True when posthog-node cannot decide `filter` for these person properties: a property filter its
 * matcher leaves inconclusive, a static or unknown cohort, a cohort with an undecided filter anywhere
 * inside, a flag it left unresolved.
 */
function undecided(
  filter: Filter,
  project: GeneratedProject,
  properties: Record<string, unknown>,
  unresolved: Record<string, string>,
): boolean {
  if (filter["type"] === "flag") return `flag-${String(filter["key"])}` in unresolved;
  if (filter["type"] === "cohort") {
    const cohort = project.cohorts.find((candidate) => candidate.id === filter["value"]);
    if (!cohort || cohort.isStatic) return true;
    const leaves = (node: unknown): Filter[] => {
      const group = node as { values?: unknown[] } | null;
      return Array.isArray(group?.values) ? group.values.flatMap(leaves) : [node as Filter];
    };
    return leaves(cohort.criteria).some((leaf) => undecided(leaf, project, properties, unresolved));
  }
  try {
    matchFeatureFlagProperty(filter as FeatureFlagProperty, properties);
    return false;
  } catch (error) {
    if (error instanceof InconclusiveMatchError) return true;
    throw error;
  }
}

/** The name of the documented difference (see the header) a flag's evaluation falls under, if any. */
function documentedDifference(
  project: GeneratedProject,
  key: string,
  person: GeneratedPerson,
  ours: EngineOutcome,
  unresolved: Record<string, string>,
): string | undefined {
  const { reason, conditionIndex } = ours;
  if (reason === "missing_dependency") return "broken dependency";
  const filters = project.flags.find((flag) => flag.key === key)!.filters as Record<string, unknown>;
  if (reason === "condition_match" && conditionIndex !== null) {
    const condition = (filters["groups"] as Array<{ properties: Filter[] }>)[conditionIndex]!;
    const properties = { distinct_id: person.distinctId, ...person.properties };
    if (condition.properties.some((filter) => undecided(filter, project, properties, unresolved))) {
      return "decided by a later condition";
    }
  }
  const aggregation = filters["aggregation_group_type_index"];
  const group = typeof aggregation === "number" ? project.groupTypeMapping[String(aggregation)] : undefined;
  if (reason === "holdout_condition_value" && group !== undefined && person.groups[group] === undefined) {
    return "held out without its group";
  }
  return undefined;
}

/** What a run saw, by kind. */
interface Tally {
  compared: number;
  matched: number;
  /** posthog-node's reasons for leaving flags to the server. */
  skipped: Map<string, number>;
  /** Documented differences (see the header) by name. */
  differences: Map<string, number>;
}

function count(tally: Map<string, number>, name: string): void {
  tally.set(name, (tally.get(name) ?? 0) + 1);
}

/** Keys of the flags `key`'s conditions depend on. */
function dependenciesOf(project: GeneratedProject, key: string): string[] {
  const filters = project.flags.find((flag) => flag.key === key)!.filters as {
    groups: Array<{ properties: Filter[] }>;
  };
  return filters.groups.flatMap((group) =>
    group.properties.flatMap((filter) =>
      filter["type"] === "flag" ? [`flag-${String(filter["key"])}`] : [],
    ),
  );
}

/**
 * Compares every flag of `project` for one person: flags posthog-node decided must have the same
 * value and payload, unless a documented difference explains it (directly, or through a dependency
 * that differs for a documented reason).
 */
function comparePerson(
  project: GeneratedProject,
  person: GeneratedPerson,
  ours: Map<string, EngineOutcome>,
  theirs: LocalOutcomes,
  tally: Tally,
): void {
  const mismatched = new Map<string, [FlagOutcome, FlagOutcome | undefined]>();
  for (const { key } of project.flags) {
    const inconclusive = theirs.unresolved[key];
    if (inconclusive !== undefined) {
      count(tally.skipped, inconclusive);
      continue;
    }
    const { value, payload } = ours.get(key)!;
    const other = theirs.decided.get(key);
    if (!isDeepStrictEqual({ value, payload }, other)) {
      mismatched.set(key, [{ value, payload }, other]);
      continue;
    }
    tally.compared++;
    if (value !== false) tally.matched++;
  }
  const explained = new Map<string, string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const key of mismatched.keys()) {
      if (explained.has(key)) continue;
      const reason =
        documentedDifference(project, key, person, ours.get(key)!, theirs.unresolved) ??
        (dependenciesOf(project, key).some((dependency) => explained.has(dependency))
          ? "depends on a documented difference"
          : undefined);
      if (reason !== undefined) {
        explained.set(key, reason);
        changed = true;
      }
    }
  }
  for (const [key, [mine, other]] of mismatched) {
    const reason = explained.get(key);
    if (reason !== undefined) count(tally.differences, reason);
    else
      expect({ key, distinctId: person.distinctId, ...mine }).toEqual({
        key,
        distinctId: person.distinctId,
        ...other,
      });
  }
}

describe("our engine and posthog-node's local evaluator", () => {
  // posthog-node measures relative dates (`-7d`) from the clock; both sides get the same instant.
  // Its warnings about flags it cannot evaluate locally are what the test counts; they are silenced.
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(NOW);
    vi.spyOn(console, "warn").mockImplementation(() => {});
  });
  afterAll(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("give every flag posthog-node decides the same value and payload", async () => {
    const tally: Tally = { compared: 0, matched: 0, skipped: new Map(), differences: new Map() };
    await fc.assert(
      fc.asyncProperty(
        projectArbitrary(),
        fc.array(personArbitrary, { minLength: 1, maxLength: 6 }),
        async (project, persons) => {
          const loaded = projectDefinitionsOf(project);
          const compiled = compileDefinitions(loaded.definitions);
          const local = await localEvaluator(loaded.localEvaluation(true));
          try {
            for (const person of persons) {
              comparePerson(
                project,
                person,
                engineOutcomes(compiled, person, NOW),
                await local.evaluate(person),
                tally,
              );
            }
            expect(local.otherRequests).toEqual([]);
          } finally {
            await local.close();
          }
        },
      ),
      propertyRuns(600),
    );
    const left = [...tally.skipped.values()].reduce((a, b) => a + b, 0);
    console.info(
      `parity: ${tally.compared} flag evaluations identical (${tally.matched} true or a variant); ` +
        `${left} left to the server by posthog-node ${JSON.stringify(Object.fromEntries(tally.skipped))}; ` +
        `documented differences ${JSON.stringify(Object.fromEntries(tally.differences))}`,
    );
    expect(tally.compared).toBeGreaterThan(2 * left);
    expect(tally.matched).toBeGreaterThan(tally.compared / 5);
  });
});
