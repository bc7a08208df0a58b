import { defineConfig } from "vitest/config";

/**
 * Test files that need a process of their own: each loads modules that must be hooked as they load
 * (OpenTelemetry's instrumentations patch http, fastify and pg on first import), which a worker
 * that already ran another file has loaded.
 */
const OWN_PROCESS = ["test/observability/tracing.test.ts"];

export default defineConfig({
  test: {
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
    projects: [
      {
        extends: true,
        test: { name: "shared", include: ["test/**/*.test.ts"], exclude: OWN_PROCESS, isolate: false },
      },
      { extends: true, test: { name: "own-process", include: OWN_PROCESS, isolate: true } },
    ],
  },
});
