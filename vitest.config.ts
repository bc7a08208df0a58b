import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Closing the workers after the run: a worker that does not end in time is reported, not awaited.
    teardownTimeout: 30_000,
    // A file that runs past TEST_FILE_TIME_LIMIT_MS ends the run, naming it (a worker stuck in
    // synchronous work never runs the timeouts above: test/support/file-time-limit.ts). What failed is
    // also written, a line each, to CI_FAILURES_FILE for .ci/run's summary (test/support/failure-summary.ts).
    reporters: ["default", "./test/support/file-time-limit.ts", "./test/support/failure-summary.ts"],
  },
});
