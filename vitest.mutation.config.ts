import { defineConfig } from "vitest/config";

/**
 * The unit tests Stryker runs against each mutant (stryker.config.mjs, `npm run test:mutation`): only
 * the unit tests of the mutated modules, so that a mutant costs seconds: pure functions, and for
 * the key lookup and the HogQL printer's SQL one in-memory PGlite copied from the migrated template
 * (the global setup's).
 */
// Stryker runs the tests in worker threads, where setting TZ inside a test changes no Date's zone:
// the whole run uses a zone away from UTC, so that a date read in local time cannot pass for UTC.
process.env["TZ"] = "America/New_York";

export default defineConfig({
  test: {
    include: [
      "test/core/auth/**/*.test.ts",
      "test/feature-flags/rules/**/*.test.ts",
      "test/feature-flags/evaluation/*.test.ts",
      "test/lib/hogql/printer.test.ts",
      "test/lib/hogql/printer-run.test.ts",
    ],
    pool: "forks",
    globalSetup: ["test/support/global-setup.ts"],
    // The machine may be busy (the runs are niced): generous, as the main config.
    testTimeout: 60_000,
  },
});
