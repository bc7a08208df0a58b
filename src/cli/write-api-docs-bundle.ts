/**
 * Part of `npm run build`: copies the API reference's browser bundle (`@scalar/api-reference`, a
 * development dependency) to dist/api-docs/, where src/rest/api-docs.ts serves it from, so that a
 * production install (development dependencies pruned) keeps `/api/docs/` without the package's
 * 300 MB. Run compiled (dist/src/cli/), so that the copy lands beside the compiled code. Exits 1 when
 * the package is not installed.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { BUILT_BUNDLE, packageBundle } from "../rest/api-docs.js";

const source = packageBundle();
if (source === null) {
  process.stderr.write(
    "@scalar/api-reference is not installed: run npm ci (with development dependencies) first\n",
  );
  process.exit(1);
}
await fs.mkdir(path.dirname(BUILT_BUNDLE), { recursive: true });
await fs.copyFile(source, BUILT_BUNDLE);
process.stdout.write(`copied the API reference bundle to ${path.relative(process.cwd(), BUILT_BUNDLE)}\n`);
