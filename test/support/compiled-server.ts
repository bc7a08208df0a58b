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

/** Where compiled servers go, one folder each (inside the package: see `compileServer`). */
export const COMPILED_SERVERS_DIR = path.join(ROOT, "node_modules", ".cache");

/**
 * Compiles src/ into `node_modules/.cache/<name>/` (inside the package, so that the compiled files
 * find node_modules and prisma/ as dist/src/ does), replacing what was there; returns its `main.js`.
 */
export async function compileServer(name: string): Promise<string> {
  const out = path.join(COMPILED_SERVERS_DIR, name);
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
  return path.join(out, "src", "main.js");
}
