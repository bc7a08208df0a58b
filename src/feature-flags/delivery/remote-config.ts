/**
 * A project's remote config: what posthog-js loads at start (`GET /array/:token/config` as JSON,
 * `GET /array/:token/config.js` as a script) and what `/flags?config=true` adds to its answer. The
 * shape is PostHog's `RemoteConfig.build_config` (posthog/models/remote_config.py), with the values a
 * new PostHog project has (posthog/models/team/team.py defaults: performance capture on, web vitals,
 * exception autocapture, dead clicks and heatmaps off, autocapture on) and with what this service
 * does not provide switched off: session recording, surveys, site apps, error-tracking rules.
 * Pure; the token is the project's public one.
 */

/** The config JSON (`build_config`), minus what the public answers strip (`siteAppsJS`). */
export function remoteConfig(token: string, hasFeatureFlags: boolean): Record<string, unknown> {
  return {
    token,
    supportedCompression: ["gzip", "gzip-js"],
    hasFeatureFlags,
    captureDeadClicks: false,
    capturePerformance: { network_timing: true, web_vitals: false, web_vitals_allowed_metrics: null },
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    // Capture's v0 path (src/ingestion/ingestion.sdk.ts serves it), PostHog's NEW_ANALYTICS_CAPTURE_ENDPOINT.
    analytics: { endpoint: "/i/v0/e/" },
    elementsChainAsString: true,
    errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
    sessionRecording: false,
    heatmaps: false,
    surveys: false,
    defaultIdentifiedOnly: true,
    siteApps: [],
  };
}

/**
 * The fields `/flags?config=true` and `/decide` add beside the remote config, from the older decide
 * answer the flags service still sends (rust/feature-flags/src/api/endpoint.rs
 * `get_minimal_flags_response`, types.rs `ConfigResponse::fallback`).
 */
export function flagsConfig(token: string, hasFeatureFlags: boolean): Record<string, unknown> {
  return {
    ...remoteConfig(token, hasFeatureFlags),
    config: { enable_collect_everything: true },
    toolbarParams: {},
    isAuthenticated: false,
  };
}

/**
 * The config as a script (`RemoteConfig.get_config_js_via_token`): it registers the config under the
 * token in `window._POSTHOG_REMOTE_CONFIG`, with no site apps, for posthog-js's remote-config loader.
 */
export function remoteConfigScript(token: string, hasFeatureFlags: boolean): string {
  const { siteApps: _siteApps, ...config } = remoteConfig(token, hasFeatureFlags);
  return [
    "(function() {",
    "  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};",
    `  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}] = {`,
    `    config: ${JSON.stringify(config)},`,
    "    siteApps: []",
    "  }",
    "})();",
  ].join("\n");
}
