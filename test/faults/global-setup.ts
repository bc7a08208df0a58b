/**
 * Runs once before the fault suite: compiles src/ (test/support/compiled-server.ts) and gives the
 * suite its `main.js`. The suite restarts servers dozens of times, and a process that loads compiled
 * files starts several seconds sooner than one compiling the TypeScript through tsx's loader.
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { COMPILED_SERVERS_DIR, compileServer } from "../support/compiled-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The compiled src/main.ts the fault suite runs as `signalbox`. */
    faultsServerMain: string;
  }
}

export default async function setup(project: TestProject) {
  // Per run: another fault run beside this one compiles its own.
  const name = `signalbox-faults-${process.pid}`;
  project.provide("faultsServerMain", await compileServer(name));
  return () => fs.rm(path.join(COMPILED_SERVERS_DIR, name), { recursive: true, force: true });
}
