/**
 * The folder holding the package's package.json, found upward from this file (src/db/ under tsx,
 * dist/src/db/ once built): where `prisma/` is, whichever way the service runs.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

function packageRoot(): string {
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${start}`);
  }
}

/** The package's root folder (see the module comment). */
export const PACKAGE_ROOT: string = packageRoot();
