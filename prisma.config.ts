// Prisma CLI configuration. The CLI checks for its native schema engine before anything else and
// tries to download it; pointing PRISMA_SCHEMA_ENGINE_BINARY at our stub lets `prisma generate`
// run offline. Migrations are applied by src/db/ through the WebAssembly schema engine.
import path from "node:path";
import { defineConfig } from "prisma/config";

process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(import.meta.dirname, "prisma", "schema-engine-stub.sh");

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
