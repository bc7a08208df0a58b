/**
 * The SDK routes as the SDK route tables declare them (src/composition.ts `SDK_MODULES`): the paths
 * authenticated by a project's public token rather than a personal API key. The auth matrix leaves
 * them to their own tests (test/ingestion/), which walk each of them.
 */
import { createServices, SDK_MODULES } from "../../src/composition.js";
import { loadConfig } from "../../src/config.js";
import { flagsSdkRoutes } from "../../src/feature-flags/delivery/flags.sdk.js";
import { ingestionSdkRoutes } from "../../src/ingestion/ingestion.sdk.js";
import type { SdkRoute } from "../../src/sdk/route.js";

/** Every route of every SDK module, in registration order. */
export const SDK_ROUTES: readonly SdkRoute[] = SDK_MODULES.flatMap((module) =>
  module(createServices(), loadConfig({}).limits),
);

/** Capture's routes (`/e/`, `/batch/`, ...), walked by test/ingestion/. */
export const CAPTURE_ROUTES: readonly SdkRoute[] = ingestionSdkRoutes(
  createServices(),
  loadConfig({}).limits,
);

/** The flag routes (`/flags/`, `/decide/`, the remote config), walked by test/feature-flags/. */
export const FLAG_ROUTES: readonly SdkRoute[] = flagsSdkRoutes(createServices(), loadConfig({}).limits);
