/**
 * Runs once before the fault suite: compiles src/ to JavaScript with esbuild (each file on its own,
 * as tsc's build lays it out, in about a second) under node_modules/.cache/, and gives the suite
 * its `main.js`. The suite restarts servers dozens of times, and a process that loads compiled
 * files starts several seconds sooner than one compiling ~500 TypeScript files through tsx's loader;
 * compiling here, from the sources as they are, never runs a stale dist/.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { build } from "esbuild";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The compiled src/main.ts the fault suite runs as `signalbox`. */
    faultsServerMain: string;
  }
}

const ROOT = path.resolve(import.meta.dirname, "../..");
/** Inside the package, so that the compiled files find node_modules and prisma/ as dist/src/ does. */
const OUT = path.join(ROOT, "node_modules", ".cache", "signalbox-faults");

export default async function setup(project: TestProject) {
  await fs.rm(OUT, { recursive: true, force: true });
  const sources = (await fs.readdir(path.join(ROOT, "src"), { recursive: true }))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => path.join(ROOT, "src", file));
  await build({
    entryPoints: sources,
    outbase: ROOT,
    outdir: OUT,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
  project.provide("faultsServerMain", path.join(OUT, "src", "main.js"));
}
