/**
 * The engine figure of `npm run bench` (issue 8): flag evaluations per second of our engine
 * (`evaluateFlags` on definitions compiled once) and of posthog-node 5.70's local evaluator (a real
 * client in local-evaluation mode, `getAllFlagsAndPayloads(..., {onlyEvaluateLocally: true})`; see
 * test/support/flag-parity.ts), over the same flags and persons, in this one process.
 *
 * The flags and persons are generated (test/support/flag-arbitraries.ts, fixed seed): `BENCH_ENGINE_FLAGS`
 * flags of every shape over `BENCH_ENGINE_PERSONS` persons. Kept are the flags posthog-node decides for
 * every person and where the two references agree (test/feature-flags/evaluation/parity.property.test.ts
 * documents the others), and then only flags whose dependencies were kept. Before timing, every kept
 * flag's value and payload is checked identical for every person: a difference stops the bench.
 *
 * One evaluation is one flag for one person. Each side runs over the persons, one person at a time
 * (posthog-node's call is async; it is awaited as its users await it), for `BENCH_SECONDS` per round,
 * ours and theirs back to back; the figures are the median round and the median of the rounds' ratios.
 *
 * Environment: BENCH_SECONDS (default 3), BENCH_ROUNDS (default 3), BENCH_ONLY (runs when it names
 * `engine`), BENCH_ENGINE_FLAGS (default 40), BENCH_ENGINE_PERSONS (default 1000).
 */

import os from "node:os";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { compileDefinitions, evaluateFlags } from "../../src/feature-flags/evaluation/engine/evaluate.js";
import type { ProjectDefinitions } from "../../src/feature-flags/evaluation/project-definitions.js";
import {
  type GeneratedPerson,
  type GeneratedProject,
  personArbitrary,
  projectArbitrary,
} from "../support/flag-arbitraries.js";
import {
  engineOutcomes,
  type LocalEvaluator,
  localEvaluator,
  projectDefinitionsOf,
  subjectOf,
} from "../support/flag-parity.js";

const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 3);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
const ONLY = process.env["BENCH_ONLY"]?.split(",").map((name) => name.trim());
const FLAGS = Number(process.env["BENCH_ENGINE_FLAGS"] ?? 40);
const PERSONS = Number(process.env["BENCH_ENGINE_PERSONS"] ?? 1000);
const SEED = 20251106;

/** The keys of the flags a flag's conditions depend on. */
function dependencyKeys(filters: unknown): string[] {
  const groups =
    (filters as { groups?: Array<{ properties?: Array<Record<string, unknown>> }> }).groups ?? [];
  return groups.flatMap((group) =>
    (group.properties ?? []).flatMap((filter) =>
      filter["type"] === "flag" ? [`flag-${String(filter["key"])}`] : [],
    ),
  );
}

/** The project without `dropped` flags, and without the flags that depend on them (at any depth). */
function without(project: GeneratedProject, dropped: Set<string>): GeneratedProject {
  let flags = project.flags.filter((flag) => !dropped.has(flag.key));
  for (let changed = true; changed; ) {
    const kept = new Set(flags.map((flag) => flag.key));
    const next = flags.filter((flag) => dependencyKeys(flag.filters).every((key) => kept.has(key)));
    changed = next.length !== flags.length;
    flags = next;
  }
  return { ...project, flags };
}

/** The flags either side cannot agree on for some person: undecided by posthog-node, or different. */
async function disagreements(
  project: GeneratedProject,
  loaded: ProjectDefinitions,
  persons: GeneratedPerson[],
  local: LocalEvaluator,
): Promise<Set<string>> {
  const compiled = compileDefinitions(loaded.definitions);
  const out = new Set<string>();
  const now = new Date();
  for (const person of persons) {
    const ours = engineOutcomes(compiled, person, now);
    const theirs = await local.evaluate(person);
    for (const { key } of project.flags) {
      const mine = ours.get(key)!;
      if (!isDeepStrictEqual({ value: mine.value, payload: mine.payload }, theirs.decided.get(key)))
        out.add(key);
    }
  }
  return out;
}

/** Evaluations per second of `evaluateOne` (one person's flags, `flagCount` of them) over `persons` for `SECONDS`. */
async function measure(
  persons: GeneratedPerson[],
  flagCount: number,
  evaluateOne: (person: GeneratedPerson) => unknown,
): Promise<number> {
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  let done = 0;
  while (performance.now() < deadline) {
    for (let i = 0; i < 100; i++) await evaluateOne(persons[(done + i) % persons.length]!);
    done += 100;
  }
  return (done * flagCount) / ((performance.now() - started) / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  if (ONLY && !ONLY.includes("engine")) return;
  const [generated] = fc.sample(projectArbitrary(FLAGS, FLAGS), { seed: SEED, numRuns: 1 });
  const persons = fc.sample(personArbitrary, { seed: SEED, numRuns: PERSONS });
  let project = generated!;
  // posthog-node warns of every flag it cannot evaluate locally: those are the ones dropped here.
  console.warn = () => {};
  // Drop what cannot be compared until nothing more is dropped (dropping a flag drops its dependents).
  for (;;) {
    const loaded = projectDefinitionsOf(project);
    const local = await localEvaluator(loaded.localEvaluation(true));
    const dropped = await disagreements(project, loaded, persons, local);
    await local.close();
    if (dropped.size === 0) break;
    project = without(project, dropped);
  }
  const flagCount = project.flags.length;
  const loaded = projectDefinitionsOf(project);
  const compiled = compileDefinitions(loaded.definitions);
  const local = await localEvaluator(loaded.localEvaluation(true));
  console.log(
    `\nengine: ${flagCount} of ${FLAGS} generated flags (those posthog-node decides for all ${PERSONS} persons), ` +
      `values and payloads identical for every person; load ${os.loadavg()[0]!.toFixed(2)}`,
  );
  const ours: number[] = [];
  const theirs: number[] = [];
  const ratios: number[] = [];
  await measure(persons, flagCount, (person) =>
    evaluateFlags(compiled, subjectOf(person), { now: new Date() }),
  );
  await measure(persons, flagCount, (person) => local.evaluateAll(person));
  for (let round = 0; round < ROUNDS; round++) {
    const a = await measure(persons, flagCount, (person) =>
      evaluateFlags(compiled, subjectOf(person), { now: new Date() }),
    );
    const b = await measure(persons, flagCount, (person) => local.evaluateAll(person));
    ours.push(a);
    theirs.push(b);
    ratios.push(a / b);
  }
  await local.close();
  const format = (perSecond: number) =>
    `${Math.round(perSecond).toLocaleString("en-US").padStart(12)} evaluations/s`;
  console.log(`${"our engine".padEnd(34)} ${format(median(ours))}`);
  console.log(`${"posthog-node local evaluation".padEnd(34)} ${format(median(theirs))}`);
  console.log(`${"ratio".padEnd(34)} ${median(ratios).toFixed(2)}× posthog-node's (goal ≥ 2×)`);
}

await main();
