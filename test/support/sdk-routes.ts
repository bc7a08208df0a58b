/**
 * The SDK routes as the SDK route tables declare them (src/composition.ts `SDK_MODULES`): the paths
 * authenticated by a project's public token rather than a personal API key. The auth matrix leaves
 * them to their own tests (test/ingestion/), which walk each of them.
 */
import { createServices, SDK_MODULES } from "../../src/composition.js";
import { loadConfig } from "../../src/config.js";
import type { SdkRoute } from "../../src/sdk/routes.js";

/** Every route of every SDK module, in registration order. */
export const SDK_ROUTES: readonly SdkRoute[] = SDK_MODULES.flatMap((module) =>
  module(createServices(), loadConfig({}).limits),
);
