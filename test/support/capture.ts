/**
 * Sending to the SDK paths of a test server as SDKs do (the project's public token, raw bodies in
 * any encoding, no personal API key), and reading back what capture stored.
 */
import { PostHog, type PostHogOptions } from "posthog-node";
import { readResponse, type TestResponse, type TestServer } from "./server.js";

/** One request to an SDK path. */
export interface SdkRequestOptions {
  method?: "GET" | "POST" | "OPTIONS";
  /** A JSON body (serialised), or raw bytes/text sent as given. */
  json?: unknown;
  raw?: Buffer | string;
  headers?: Record<string, string>;
}

/** The public token of `projectId` (default: the server's project). */
export async function projectToken(s: TestServer, projectId = s.projectId): Promise<string> {
  const project = await s.db.project.findUniqueOrThrow({ where: { id: projectId } });
  return project.apiToken;
}

/**
 * PostHog's Node SDK (unchanged) pointed at `s` with its project's token, sending each call at once
 * (`flushAt: 1`, no timer, no retries); `await client.flush()` waits for what was sent. `options`
 * go over those (e.g. a `personalApiKey` for local evaluation, a larger `flushAt` to batch).
 */
export async function posthogNodeClient(
  s: TestServer,
  options: Partial<PostHogOptions> = {},
): Promise<PostHog> {
  return new PostHog(await projectToken(s), {
    host: s.baseUrl,
    flushAt: 1,
    flushInterval: 0,
    fetchRetryCount: 0,
    ...options,
  });
}

/** Sends one request to `path` (with its query) on `s`'s SDK door. */
export async function sendToSdk(
  s: TestServer,
  path: string,
  options: SdkRequestOptions = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] ??= "application/json";
  } else if (options.raw !== undefined) {
    body = typeof options.raw === "string" ? options.raw : new Uint8Array(options.raw);
  }
  const method = options.method ?? (body === undefined ? "GET" : "POST");
  return readResponse(await fetch(`${s.baseUrl}${path}`, { method, headers, body }));
}

/** A stored event as tests read it. */
export interface StoredEvent {
  uuid: string;
  event: string;
  distinctId: string;
  personId: string | null;
  properties: Record<string, unknown>;
  timestamp: Date;
}

/** The events stored for `projectId`, oldest first (then by uuid). */
export async function storedEvents(s: TestServer, projectId = s.projectId): Promise<StoredEvent[]> {
  const rows = await s.db.event.findMany({
    where: { projectId },
    orderBy: [{ timestamp: "asc" }, { uuid: "asc" }],
  });
  return rows.map((row) => ({
    uuid: row.uuid,
    event: row.event,
    distinctId: row.distinctId,
    personId: row.personId,
    properties: row.properties as Record<string, unknown>,
    timestamp: row.timestamp,
  }));
}
