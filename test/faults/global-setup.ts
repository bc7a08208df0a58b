/**
 * Runs once before the fault suite: compiles src/ (test/support/compiled-server.ts) and gives the
 * suite its `main.js`. The suite restarts servers dozens of times, and a process that loads compiled
 * files starts several seconds sooner than one compiling the TypeScript through tsx's loader.
 */
import type { TestProject } from "vitest/node";
import { compileServer } from "../support/compiled-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The compiled src/main.ts the fault suite runs as `signalbox`. */
    faultsServerMain: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await compileServer("signalbox-faults");
  project.provide("faultsServerMain", server.main);
  return server.remove;
}
