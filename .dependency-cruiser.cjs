/**
 * The layering of src/, checked by `npm run lint` (docs/architecture.md, "Layers"):
 *   main.ts → app.ts → composition.ts → domains → rest/, graphql/, sdk/ → lib/ → core/ → db/
 * Nothing points back up. A domain may use another domain's service, never its adapters. lib/ holds
 * the shared kernels (property filters, HogQL): pure of any domain, as PostHog's posthog/hogql/ is.
 */
const DOMAIN = "^src/(?!core/|db/|lib/|rest/|graphql/|sdk/|cli/|generated/)[^/]+/";
const ROOT = "^src/(main|app|composition)\\.ts$";
/** Scripts run on their own (npm scripts), above the root like main.ts. */
const ENTRY_SCRIPTS = "^src/cli/write-openapi\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "doors-import-no-domain",
      comment:
        "rest/, graphql/ and sdk/ are generic: they are handed services, routes and types by the composition root.",
      severity: "error",
      from: { path: "^src/(rest|graphql|sdk)/" },
      to: { path: [DOMAIN, ROOT, "^src/cli/"] },
    },
    {
      name: "config-imports-nothing-of-ours",
      comment: "config.ts turns the environment into typed settings: every layer reads it, it reads none.",
      severity: "error",
      from: { path: "^src/config\\.ts$" },
      to: { path: "^src/", pathNot: "^src/config\\.ts$" },
    },
    {
      name: "lib-imports-no-domain-nor-door",
      comment: "lib/ (shared kernels: property filters, HogQL) knows no domain, door or root; domains use it.",
      severity: "error",
      from: { path: "^src/lib/" },
      to: { path: [DOMAIN, ROOT, "^src/(rest|graphql|sdk|cli)/"] },
    },
    {
      name: "sdk-door-imports-no-rest-door",
      comment: "The SDK door stands on its own: what it shares with the REST door (PostHog's error body) lives in core/.",
      severity: "error",
      from: { path: "^src/sdk/" },
      to: { path: "^src/rest/" },
    },
    {
      name: "core-and-db-import-no-domain-nor-door",
      comment: "core/ and db/ sit below the doors and every domain.",
      severity: "error",
      from: { path: "^src/(core|db)/" },
      to: { path: [DOMAIN, ROOT, "^src/(lib|rest|graphql|sdk|cli)/"] },
    },
    {
      name: "db-imports-no-core",
      comment: "Storage is the bottom layer.",
      severity: "error",
      from: { path: "^src/db/" },
      to: { path: "^src/core/" },
    },
    {
      name: "domains-use-no-other-domains-adapters",
      comment:
        "A domain may call another domain's service; its REST and GraphQL modules are its own, but for the GraphQL refs it publishes (graphql/refs.ts).",
      severity: "error",
      from: { path: "^src/([^/]+)/" },
      to: {
        path: "^src/[^/]+/(.+\\.(rest|graphql)\\.ts|graphql/)",
        pathNot: ["^src/$1/", "^src/graphql/", "^src/[^/]+/graphql/refs\\.ts$"],
      },
    },
    {
      name: "only-the-top-imports-the-root",
      comment: "app.ts and composition.ts are imported only from above them: main.ts and entry scripts.",
      severity: "error",
      from: { path: "^src/", pathNot: [ROOT, ENTRY_SCRIPTS] },
      to: { path: ROOT },
    },
    {
      name: "no-cycles",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/generated/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
