/**
 * `npm run docs:config`: writes docs/configuration.md, every setting's variable, default and meaning
 * (src/config-settings.ts `configurationDoc`), checked in; test/cli/config.test.ts fails when it is stale.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { configurationDoc } from "../config-settings.js";

const target = path.join(import.meta.dirname, "..", "..", "docs", "configuration.md");
await fs.writeFile(target, configurationDoc());
process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
