import { statSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type Reporter, type TestSpecification, type Vitest } from "vitest/node";

/**
 * The unit tests Stryker runs against each mutant (stryker.config.mjs, `npm run test:mutation`): only
 * the unit tests of the mutated modules, so that a mutant costs seconds: pure functions, and for
 * the key lookup and the HogQL printer's SQL one PGlite database on a copy of the migrated template
 * (the global setup's).
 */
// Stryker runs the tests in worker threads, where setting TZ inside a test changes no Date's zone:
// the whole run uses a zone away from UTC, so that a date read in local time cannot pass for UTC.
process.env["TZ"] = "America/New_York";

/**
 * A test file whose own hook fails (a file-level `beforeAll` past `hookTimeout`) has all its tests
 * skipped, and Stryker's vitest runner takes a skipped test for neither failed nor covering: the
 * dry run "succeeds" without the file's coverage, and a mutant run survives. Stryker also reads a
 * file's coverage in an `afterAll` that runs after the file's own, so a failing `afterAll` (closing
 * a database the `beforeAll` never opened) loses it too. Passed on as an error outside the tests,
 * such a failure stops the dry run, and makes a mutant a run error (not in the score), never a
 * survivor.
 */
function hookFailuresAsErrors(): Reporter {
  let vitest: Vitest | undefined;
  return {
    onInit(ctx) {
      vitest = ctx;
    },
    onTestModuleEnd(module) {
      // A plain Error: Stryker prints what it catches with String(), which a serialized error refuses.
      for (const error of module.errors()) {
        vitest?.state.catchError(new Error(`${module.moduleId}: ${error.message}`), "Unhandled Error");
      }
    },
  };
}

/**
 * Test files smallest first. Stryker ends a mutant's run at its first failing test (bail), so a
 * mutant the pure unit tests kill (small files: operators.test.ts, coercion.test.ts) is killed
 * before a file that opens a database (printer-run.test.ts, the largest: seconds of setup) starts.
 */
class SmallestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const size = (file: TestSpecification) => statSync(file.moduleId).size;
    return Promise.resolve([...files].sort((a, b) => size(a) - size(b)));
  }
}

export default defineConfig({
  test: {
    include: [
      "test/core/auth/**/*.test.ts",
      "test/feature-flags/rules/**/*.test.ts",
      "test/feature-flags/evaluation/*.test.ts",
      "test/lib/hogql/operators.test.ts",
      "test/lib/hogql/coercion.test.ts",
      "test/lib/hogql/printer.test.ts",
      "test/lib/hogql/printer-run.test.ts",
    ],
    pool: "forks",
    globalSetup: ["test/support/global-setup.ts"],
    reporters: ["default", hookFailuresAsErrors()],
    sequence: { sequencer: SmallestFirst },
    // The machine may be busy (the runs are niced): generous, as the main config. Hooks too: a test
    // file's `beforeAll` opens a database (the printer's: a PGlite process loaded from the template,
    // then rows), which on a busy machine took longer than vitest's default 10 s.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
