/**
 * Cohort membership for flag conditions (posthog-behavior.md §3.5 "Cohort", §3.6): a static cohort is
 * its member list (`subject.staticCohortIds`); a dynamic one is its criteria tree evaluated against
 * the person's properties: AND/OR groups nested to any depth (`"property"` reads as AND, an empty
 * AND matches, an empty OR does not), each filter negated by its `negation`, cohorts inside cohorts
 * with `in`/`not_in`. This is posthog-node's `matchPropertyGroup`/`matchCohort`; the Rust service
 * (`rust/feature-flags/src/cohorts/cohort_operations.rs`) reads the same trees but ignores
 * `negation` on a cohort filter inside an OR, which the engine does not copy (posthog-node decides
 * those, and SDKs must agree with us).
 *
 * A cohort the engine cannot evaluate is "unusable": one that is missing from the definitions, that
 * has no criteria and is not static, that holds a behavioral criterion (events-based membership is
 * not built), a group type other than AND/OR/property, or that reaches an unusable cohort or a
 * cycle of cohorts. A flag filter on an unusable cohort is false for `in` and `not_in` alike (the
 * Rust service fails such a flag with an error; never including anyone by mistake is the closest
 * answer without one). A `flag` filter inside a cohort is false before its negation (Rust).
 */

import { cohortIdOf } from "../../../lib/property-filters/property-filters.js";
import { compilePropertyTest, type PropertyTest } from "./operators.js";
import type { EvaluationCohort } from "./types.js";
import type { Properties } from "./values.js";

/** A node of a compiled criteria tree. */
type CohortNode =
  | { kind: "group"; all: boolean; children: CohortNode[] }
  | { kind: "property"; test: PropertyTest; negate: boolean }
  | { kind: "cohort"; id: number; notIn: boolean; negate: boolean }
  | { kind: "constant"; value: boolean };

/** A cohort as compiled: static, or a usable tree, or unusable (`root` null and not static). */
interface CompiledCohort {
  isStatic: boolean;
  root: CohortNode | null;
}

/** Every cohort of the definitions, compiled; unusable ones are absent. */
export type CohortTable = ReadonlyMap<number, CompiledCohort>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The cohorts a raw tree names (as ids) and whether it is readable at all. */
function compileNode(raw: unknown, refs: Set<number>): CohortNode | null {
  if (!isRecord(raw)) return null;
  const type = raw["type"];
  if (Array.isArray(raw["values"])) {
    if (type !== "AND" && type !== "OR" && type !== "property") return null;
    const children: CohortNode[] = [];
    for (const value of raw["values"]) {
      const child = compileNode(value, refs);
      if (child === null) return null;
      children.push(child);
    }
    return { kind: "group", all: type !== "OR", children };
  }
  const negate = raw["negation"] === true;
  switch (type) {
    case "cohort": {
      const id = cohortIdOf(raw["value"]);
      if (id === null) return null;
      refs.add(id);
      return { kind: "cohort", id, notIn: raw["operator"] === "not_in", negate };
    }
    case "flag":
      return { kind: "constant", value: negate };
    case "behavioral":
    case "AND":
    case "OR":
    case "property":
      return null;
    default:
      return { kind: "property", test: compilePropertyTest(raw), negate };
  }
}

/**
 * Compiles every cohort once per project revision, leaving out the unusable ones (see the header);
 * cycles are found here, so evaluation never recurses without end.
 */
export function compileCohorts(cohorts: ReadonlyMap<number, EvaluationCohort>): CohortTable {
  const parsed = new Map<number, { cohort: EvaluationCohort; root: CohortNode | null; refs: Set<number> }>();
  for (const [id, cohort] of cohorts) {
    const refs = new Set<number>();
    const root = cohort.isStatic ? null : compileNode(cohort.criteria, refs);
    parsed.set(id, { cohort, root, refs });
  }
  const usable = new Map<number, boolean>();
  const visiting = new Set<number>();
  const isUsable = (id: number): boolean => {
    const known = usable.get(id);
    if (known !== undefined) return known;
    const entry = parsed.get(id);
    if (!entry || visiting.has(id)) return false;
    if (entry.cohort.isStatic) {
      usable.set(id, true);
      return true;
    }
    visiting.add(id);
    let ok = entry.root !== null;
    for (const ref of entry.refs) if (ok && !isUsable(ref)) ok = false;
    visiting.delete(id);
    usable.set(id, ok);
    return ok;
  };
  const table = new Map<number, CompiledCohort>();
  for (const [id, entry] of parsed) {
    if (isUsable(id)) table.set(id, { isStatic: entry.cohort.isStatic, root: entry.root });
  }
  return table;
}

/** Membership answers for one subject, each cohort evaluated at most once. */
export class CohortMembership {
  readonly #table: CohortTable;
  readonly #person: Properties;
  readonly #staticIds: ReadonlySet<number>;
  readonly #now: Date;
  readonly #answers = new Map<number, boolean>();

  constructor(table: CohortTable, person: Properties, staticIds: ReadonlySet<number>, now: Date) {
    this.#table = table;
    this.#person = person;
    this.#staticIds = staticIds;
    this.#now = now;
  }

  /** True when the person is in cohort `id`; null when the cohort is unusable (see the header). */
  isMember(id: number): boolean | null {
    const cohort = this.#table.get(id);
    if (!cohort) return null;
    if (cohort.isStatic) return this.#staticIds.has(id);
    let answer = this.#answers.get(id);
    if (answer === undefined) {
      answer = this.#matches(cohort.root!);
      this.#answers.set(id, answer);
    }
    return answer;
  }

  #matches(node: CohortNode): boolean {
    switch (node.kind) {
      case "group":
        return node.all
          ? node.children.every((child) => this.#matches(child))
          : node.children.some((child) => this.#matches(child));
      case "property":
        return node.test(this.#person, this.#now) !== node.negate;
      case "cohort":
        // Usable cohorts only name usable cohorts (compileCohorts), so this is never null.
        return (this.isMember(node.id) !== node.notIn) !== node.negate;
      default:
        return node.value;
    }
  }
}
