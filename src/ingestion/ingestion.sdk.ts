/**
 * Capture's SDK paths (rust/capture/src/router.rs): `/e/`, `/i/v0/e/`, `/capture/`, `/track/`,
 * `/engage/` (2 MB bodies) and `/batch/` (20 MB), each POST and GET (old clients send `?data=`).
 * Success is capture's `{"status": "Ok"}` (rust/capture/src/api.rs `CaptureResponse`, whose
 * `CaptureResponseCode::Ok` serde writes as `"Ok"`; the older Django capture answered
 * `{"status": 1}`, and no SDK reads the body), or an empty 204 for `?beacon=1` (capture's
 * `NoContent`, for `navigator.sendBeacon`, whose answer nobody reads).
 */
import type { SdkModule, SdkRoute } from "../sdk/route.js";
import { countCapturedEvents } from "./capture-metrics.js";

const EVENT_PATHS = ["/e/", "/i/v0/e/", "/capture/", "/track/", "/engage/"] as const;

/** Capture's SDK routes. */
export const ingestionSdkRoutes: SdkModule = (services, limits) => {
  const route = (path: string, bodyLimitBytes: number): SdkRoute => ({
    methods: ["GET", "POST"],
    rateScope: "capture",
    path,
    summary:
      path === "/batch/"
        ? "Capture a batch of events ({api_key, batch, sent_at})"
        : "Capture events: one event, a list, or a batch, as PostHog's SDKs send them",
    bodyLimitBytes,
    handler: async ({ projectId, payload, query, path: routePath }) => {
      const outcome = await services.ingestion.capture(projectId, payload, {
        path: routePath,
        query,
        maxJsonDepth: limits.maxJsonDepth,
      });
      countCapturedEvents(outcome.received, outcome.stored);
      if (query.get("beacon") === "1" || query.get("beacon") === "true")
        return { status: 204, body: undefined };
      return { body: { status: "Ok" } };
    },
  });
  return [
    ...EVENT_PATHS.map((path) => route(path, limits.captureBodyLimitBytes)),
    route("/batch/", limits.captureBatchBodyLimitBytes),
  ];
};
