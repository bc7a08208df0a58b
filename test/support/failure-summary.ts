/**
 * A vitest reporter that writes what failed, a line each, to the file `CI_FAILURES_FILE` names (when
 * it is set), so that `.ci/run` can print it in its closing summary. CI keeps only the tail of its
 * output, and a failure in the first of several runs is otherwise far above it (stop 34's CI failed
 * on Node 20 with nothing left to say which test).
 *
 * One line per failed test (`file > suite > test: first line of the error`), per file that failed
 * outside its tests (an import or hook error), and per unhandled error; nothing when all passed.
 */
import { appendFileSync } from "node:fs";
import type { Reporter, SerializedError, TestModule } from "vitest/node";

/** Most lines written for one run: a broken setup fails everything, and the summary stays short. */
const MAX_LINES = 40;

/** The first line of an error's message, cut to a readable length. */
function firstLine(error: SerializedError | undefined): string {
  const line = (error?.message ?? String(error)).split("\n")[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** The reporter (vitest.config.ts and vitest.faults.config.ts list it). */
export default class FailureSummary implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const file = process.env["CI_FAILURES_FILE"];
    if (!file) return;
    const lines: string[] = [];
    for (const module of modules) {
      for (const error of module.errors()) lines.push(`${module.moduleId}: ${firstLine(error)}`);
      for (const test of module.children.allTests("failed")) {
        const where = [module.relativeModuleId, test.fullName].join(" > ");
        lines.push(`${where}: ${firstLine(test.result().errors?.[0])}`);
      }
    }
    for (const error of unhandledErrors) lines.push(`unhandled error: ${firstLine(error)}`);
    if (!lines.length) return;
    const shown = lines.slice(0, MAX_LINES);
    if (lines.length > MAX_LINES) shown.push(`… and ${lines.length - MAX_LINES} more`);
    appendFileSync(file, `${shown.join("\n")}\n`);
  }
}
