/**
 * The flag paths SDKs call with a project's public token (src/sdk/routes.ts serves them: CORS,
 * decoding plain, gzip, base64 or form bodies, the token):
 * - `POST /flags/` (posthog-js, posthog-node and the other SDKs' remote evaluation) and the older
 *   `POST /decide/`, answered in the shape the request asks for (delivery/flags-response.ts) as
 *   PostHog's flags service does (rust/feature-flags/src/api/endpoint.rs `flags`): `/flags` with
 *   neither `v` nor `config` gets `v=2` with the config; `/decide` always gets the config. A GET
 *   with no payload gets the minimal answer (no flags, the minimal config), as PostHog's; one with
 *   a `data` payload (old clients) is evaluated like a POST.
 * - `GET /array/:token/config` and `/array/:token/config.js`, the remote config posthog-js loads at
 *   start (remote-config.ts).
 */
import { randomUUID } from "node:crypto";
import type { SdkModule, SdkReply, SdkRequest, SdkRoute } from "../../sdk/route.js";
import { countFlagRequest, evaluatedCount } from "./delivery-metrics.js";
import {
  type FlagsResponseShape,
  flagsResponseBody,
  flagsResponseBytes,
  responseShape,
} from "./flags-response.js";
import { flagsConfig, remoteConfig, remoteConfigScript } from "./remote-config.js";

/** A query flag as the flags service reads one (`deserialize_optional_bool`): absent, empty or unreadable is null. */
function queryBool(query: URLSearchParams, name: string): boolean | null {
  const value = query.get(name)?.trim().toLowerCase();
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  return null;
}

/** `v` as the flags service reads it: absent or empty is null, text that is not an integer is 1. */
function queryVersion(query: URLSearchParams): number | null {
  const text = query.get("v") ?? query.get("version");
  if (!text) return null;
  const version = Number.parseInt(text, 10);
  return Number.isNaN(version) ? 1 : version;
}

/** The shape and whether to add the config, from the query (endpoint.rs: decide's and the defaults). */
function answerKind(
  fromDecide: boolean,
  query: URLSearchParams,
): { shape: FlagsResponseShape; config: boolean } {
  let version = queryVersion(query);
  let config = queryBool(query, "config");
  if (fromDecide) config ??= true;
  if (version === null && config === null) {
    version = 2;
    config = true;
  }
  return { shape: responseShape(fromDecide, version), config: config === true };
}

/** The media type of an answer written as JSON text, as fastify names JSON it serialises. */
const JSON_TYPE = "application/json; charset=utf-8";

/** The flag routes of the SDK door. */
export const flagsSdkRoutes: SdkModule = (services, limits) => {
  const evaluation = services.flagEvaluation;

  /** The answer of `/flags` (or `/decide` when `fromDecide`) to an evaluation request. */
  const evaluate = async (request: SdkRequest, fromDecide: boolean): Promise<SdkReply> => {
    const { shape, config } = answerKind(fromDecide, request.query);
    const outcome = await evaluation.evaluateForSdk(
      request.projectId,
      request.payload,
      request.headers,
      limits.maxJsonDepth,
    );
    if (outcome.loadError !== null) {
      request.log.error({ err: outcome.loadError }, "flag evaluation could not read stored data");
    }
    countFlagRequest("remote", evaluatedCount(outcome.results));
    return {
      body: flagsResponseBytes(shape, {
        results: outcome.results,
        errorsWhileComputingFlags: outcome.errorsWhileComputingFlags,
        requestId: request.requestId,
        evaluatedAt: request.now(),
        config: config ? flagsConfig(request.token, outcome.hasActiveFlags) : null,
      }),
      contentType: JSON_TYPE,
    };
  };

  /**
   * The minimal answer to a GET without payload, `/decide`'s too: no flags, the minimal config,
   * `v=2` and up in the v2 shape, else v1 (endpoint.rs `get_minimal_flags_response`).
   */
  const minimal = (query: URLSearchParams, now: () => Date): SdkReply => {
    return {
      body: flagsResponseBody(responseShape(false, queryVersion(query) ?? 1), {
        results: [],
        errorsWhileComputingFlags: false,
        requestId: randomUUID(),
        evaluatedAt: now(),
        config: {
          supportedCompression: ["gzip", "gzip-js"],
          config: { enable_collect_everything: true },
          toolbarParams: {},
          isAuthenticated: false,
          sessionRecording: false,
        },
      }),
    };
  };

  const flagsRoute = (path: string, fromDecide: boolean): SdkRoute => ({
    methods: ["GET", "POST"],
    rateScope: "flags",
    path,
    summary: fromDecide
      ? "Evaluate the project's flags for a distinct id (the older /decide shapes, v=1 to 4)"
      : "Evaluate the project's flags for a distinct id (v=1 or v=2 shapes; config=true adds the remote config)",
    bodyLimitBytes: limits.bodyLimitBytes,
    answerWithoutPayload: minimal,
    handler: (request) => evaluate(request, fromDecide),
  });

  const configRoute = (path: string, script: boolean): SdkRoute => ({
    methods: ["GET"],
    path,
    summary: script
      ? "The project's remote config as a script registering it for posthog-js"
      : "The project's remote config (JSON) posthog-js loads at start",
    bodyLimitBytes: limits.bodyLimitBytes,
    tokenIn: "path",
    handler: async ({ projectId, token }) => {
      const hasActiveFlags = await evaluation.hasActiveFlags(projectId);
      return script
        ? { body: remoteConfigScript(token, hasActiveFlags), contentType: "application/javascript" }
        : { body: remoteConfig(token, hasActiveFlags) };
    },
  });

  return [
    flagsRoute("/flags/", false),
    flagsRoute("/decide/", true),
    configRoute("/array/:token/config", false),
    configRoute("/array/:token/config.js", true),
  ];
};
