/**
 * Which flags an SDK request evaluates, as PostHog's flags service filters them before evaluating
 * (rust/feature-flags/src/handler/flags.rs `fetch_and_filter`):
 * 1. by evaluation runtime: the runtime the SDK states (`evaluation_runtime`), else the one its
 *    headers suggest (`detectRuntime`); a `server` or `client` flag is evaluated only in that
 *    runtime, an `all` flag everywhere, and a request of unknown runtime gets only `all` flags;
 * 2. by evaluation tags: when the request names environment tags (`evaluation_contexts`), a flag
 *    with evaluation tags is evaluated only if one of them is named.
 * Flags filtered out are absent from the answer, as if they did not exist. Pure.
 */
import { type EvaluationRuntime, readRuntime } from "../evaluation.schemas.js";

/** The request headers the runtime is read from (lower-case names). */
export type RuntimeHeaders = Readonly<Record<string, string | string[] | undefined>>;

const BROWSER_MARKERS = ["Mozilla/", "Chrome/", "Safari/", "Firefox/", "Edge/"];
const SERVER_SDK_PREFIXES = [
  "posthog-python/",
  "posthog-ruby/",
  "posthog-php/",
  "posthog-java/",
  "posthog-go/",
  "posthog-node/",
  "posthog-dotnet/",
  "posthog-elixir/",
];
const SERVER_MARKERS = ["python-requests/", "curl/"];
const MOBILE_SDK_PREFIXES = ["posthog-android/", "posthog-ios/", "posthog-react-native/", "posthog-flutter/"];

function header(headers: RuntimeHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The runtime of a request: the stated one; else `client` for a browser or mobile SDK user agent,
 * `server` for a server SDK's (or curl, python-requests), `client` when browser headers (`Origin`,
 * `Referer`, `Sec-Fetch-*`) are present; null when nothing tells (flags.rs
 * `detect_evaluation_runtime_from_request`).
 */
export function detectRuntime(
  stated: EvaluationRuntime | null,
  headers: RuntimeHeaders,
): EvaluationRuntime | null {
  if (stated !== null) return stated;
  const agent = header(headers, "user-agent");
  if (agent !== undefined) {
    if (BROWSER_MARKERS.some((marker) => agent.includes(marker))) return "client";
    if (SERVER_SDK_PREFIXES.some((prefix) => agent.startsWith(prefix))) return "server";
    if (SERVER_MARKERS.some((marker) => agent.includes(marker))) return "server";
    if (MOBILE_SDK_PREFIXES.some((prefix) => agent.startsWith(prefix))) return "client";
  }
  const browserHeaders = ["origin", "referer", "sec-fetch-mode", "sec-fetch-site"];
  return browserHeaders.some((name) => header(headers, name) !== undefined) ? "client" : null;
}

/** Whether a flag stored with `flagRuntime` is evaluated for a request of `runtime` (see the module comment). */
export function runsIn(flagRuntime: string, runtime: EvaluationRuntime | null): boolean {
  if (runtime === "all") return true;
  const own = readRuntime(flagRuntime);
  return own === "all" || own === runtime;
}

/** Whether a flag with `evaluationTags` is evaluated for a request naming `contexts` (see the module comment). */
export function matchesContexts(evaluationTags: readonly string[], contexts: readonly string[]): boolean {
  if (contexts.length === 0 || evaluationTags.length === 0) return true;
  return evaluationTags.some((tag) => contexts.includes(tag));
}
