import { defineConfig } from "vitest/config";

/**
 * The unit tests Stryker runs against each mutant (stryker.config.mjs, `npm run test:mutation`): only
 * the pure, database-free tests of the mutated modules, so that a mutant costs seconds. No global
 * setup: none of these tests opens a database or a server.
 */
export default defineConfig({
  test: {
    include: [
      "test/core/auth/**/*.test.ts",
      "test/feature-flags/rules/**/*.test.ts",
      "test/feature-flags/evaluation/*.test.ts",
      "test/queries/hogql/printer.test.ts",
    ],
    pool: "forks",
    // The machine may be busy (the runs are niced): generous, as the main config.
    testTimeout: 60_000,
  },
});
