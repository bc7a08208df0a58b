/**
 * `npm run openapi`: writes the OpenAPI document (the REST door's paths and the SDK paths PostHog documents) to `schema/openapi.json` (checked in;
 * test/rest/openapi.test.ts fails when it differs from what the route table produces). The routes
 * are built without a database: the document depends on the route table only.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { documentedRoutes, openApiDocument } from "../app.js";
import { createServices } from "../composition.js";
import { loadConfig } from "../config.js";
import { printOpenApiDocument } from "../rest/openapi.js";

const target = path.join(import.meta.dirname, "..", "..", "schema", "openapi.json");
const routes = documentedRoutes(createServices(), loadConfig({}).limits);
await fs.writeFile(target, printOpenApiDocument(openApiDocument(routes)));
process.stdout.write(`wrote ${path.relative(process.cwd(), target)} (${routes.length} operations)\n`);
