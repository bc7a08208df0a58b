/**
 * Mutation testing (issue 13, item 7): `npm run test:mutation` mutates the modules below and runs
 * the unit tests of vitest.mutation.config.ts against each mutant. Not part of `npm test` nor CI:
 * a run takes minutes to tens of minutes per module. One module at a time:
 * `npm run test:mutation -- --mutate 'src/feature-flags/rules/**'`.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts" },
  coverageAnalysis: "perTest",
  // A static mutant (a module-level constant) re-runs every test: they cost most of a run for a
  // few mutants, so they are left out; `--ignoreStatic false` runs them.
  ignoreStatic: true,
  mutate: [
    "src/core/auth/**/*.ts",
    "src/feature-flags/rules/**/*.ts",
    "src/feature-flags/evaluation/engine/**/*.ts",
    "src/lib/hogql/printer.ts",
    "src/lib/hogql/resolver.ts",
    "src/lib/hogql/print-shared.ts",
    "src/lib/hogql/operators.ts",
    "src/lib/hogql/coercion.ts",
  ],
  // What the sandbox need not copy: builds, data directories, reports.
  ignorePatterns: ["dist", "data", "coverage", "reports", "test/generated"],
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  concurrency: 1,
  // Re-runs only the mutants whose code or covering tests changed since the last run.
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  // A mutant that makes a test loop is a timeout (killed); a busy machine must not look like one.
  timeoutMS: 15_000,
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  thresholds: { high: 90, low: 80, break: null },
};
