/**
 * The fault suite (`npm run test:faults`): real `signalbox serve` processes killed and stopped under
 * load (test/faults/*.faults.ts). Kept out of `npm test`'s include, and run one file at a time:
 * each spawns servers of its own, and the kill moments should not compete for the CPU with another file.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/faults/**/*.faults.ts"],
    pool: "forks",
    fileParallelism: false,
    globalSetup: ["test/faults/global-setup.ts"],
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
