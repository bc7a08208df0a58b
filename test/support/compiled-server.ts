/**
 * src/ compiled to JavaScript with esbuild (each file on its own, as tsc's build lays it out, in
 * about a second) for tests that start the real server as a process: one that loads compiled files
 * starts several seconds sooner than one compiling ~600 TypeScript files through tsx's loader, and
 * compiling from the sources as they are never runs a stale dist/.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { build } from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** A compiled src/: its `main.js`, and how to remove it once the run is over. */
export interface CompiledServer {
  main: string;
  remove(): Promise<void>;
}

/**
 * Compiles src/ into `node_modules/.cache/<name>-<pid>/` (inside the package, so that the compiled
 * files find node_modules and prisma/ as dist/src/ does; a folder per process, so that a run beside
 * this one, a second vitest or the mutation run, never overwrites it).
 */
export async function compileServer(name: string): Promise<CompiledServer> {
  const out = path.join(ROOT, "node_modules", ".cache", `${name}-${process.pid}`);
  await fs.rm(out, { recursive: true, force: true });
  const sources = (await fs.readdir(path.join(ROOT, "src"), { recursive: true }))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => path.join(ROOT, "src", file));
  await build({
    entryPoints: sources,
    outbase: ROOT,
    outdir: out,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
  return {
    main: path.join(out, "src", "main.js"),
    remove: () => fs.rm(out, { recursive: true, force: true }),
  };
}
