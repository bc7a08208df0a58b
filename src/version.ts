/**
 * What build of Signalbox this process runs: the package's version (package.json, found from this
 * module whether it runs from `src/` under tsx or from `dist/src/`) and the commit, from
 * `SIGNALBOX_COMMIT` when the deployment sets it (an image built without `.git`), else from the
 * checkout's `git rev-parse --short HEAD`, else null. Read once, when first asked.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The build: `version` (semver, package.json) and `commit` (short hash, or null when unknown). */
export interface BuildInfo {
  version: string;
  commit: string | null;
}

/** The directory holding Signalbox's package.json, above this module, and the version it names. */
function findPackage(): { root: string; version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, "package.json");
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version: string };
      if (manifest.name === "signalbox") return { root: dir, version: manifest.version };
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("Signalbox's package.json was not found above src/version.ts");
    dir = parent;
  }
}

/** The checkout's short commit hash, or null (no git, not a checkout). */
function gitCommit(root: string): string | null {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2000,
    }).trim();
  } catch {
    return null;
  }
}

let cached: BuildInfo | null = null;

/** This process's build (see the module comment). */
export function buildInfo(): BuildInfo {
  if (cached) return cached;
  const { root, version } = findPackage();
  cached = { version, commit: process.env["SIGNALBOX_COMMIT"] || gitCommit(root) };
  return cached;
}
