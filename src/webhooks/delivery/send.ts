/**
 * One POST of a delivery, with the limits that keep a receiver from harming the server: the target
 * checked after resolution and connected to by that address only (./ssrf.ts), no redirect followed
 * (a 3xx is an answer like any non-2xx: a failure), one time limit from connecting to the end of the
 * answer, and at most `maxResponseBytes` of the answer's body read (the rest is dropped with the socket).
 * What an attempt came to is said without the address connected to (Node's messages name it,
 * `connect ECONNREFUSED 10.1.2.3:443`): the delivery log must not map the URL's name to an address.
 */
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import type { WebhookSettings } from "../../config.js";
import { type CheckedAddress, RefusedTargetError, resolveTarget } from "./ssrf.js";

/** What one attempt came to. */
export interface SendOutcome {
  /** The answer's status; null when none came (refused target, network error, time limit). */
  statusCode: number | null;
  /** From the start of the attempt (before resolution) to the answer's end or the failure, in ms. */
  responseTimeMs: number;
  /**
   * Why it failed, for the delivery log; null for a 2xx answer. One of: a refusal (./ssrf.ts),
   * `receiver answered <status>`, `timed out after <n> ms`, `connection failed: <Node's error code>`.
   */
  error: string | null;
  /** The target was refused before any connection (not worth retrying: the URL must change). */
  refused: boolean;
}

/**
 * A connection's failure as the delivery log says it: Node's error code (`ECONNREFUSED`,
 * `ERR_TLS_CERT_ALTNAME_INVALID`, ...), never Node's message, which names the address.
 */
function connectionFailure(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return `connection failed: ${code && /^[A-Z0-9_]+$/.test(code) ? code : "error"}`;
}

/** A `lookup` for http.request that answers `checked` whatever the name: no second resolution. */
function pinnedLookup(checked: CheckedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: checked.address, family: checked.family },
      ]);
    } else callback(null, checked.address, checked.family);
  };
}

/** POSTs `body` to `url` with `headers` under `settings`' limits; never throws. */
export async function sendWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  settings: WebhookSettings,
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(url);
  let checked: CheckedAddress;
  try {
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      throw new RefusedTargetError(`refused target: scheme ${target.protocol} is not http or https`);
    }
    checked = await resolveTarget(target.hostname, settings.allowLoopback);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { statusCode: null, responseTimeMs: elapsed(), error: message, refused: true };
  }
  const secure = target.protocol === "https:";
  const hostname = target.hostname.replace(/^\[|\]$/g, "");
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, "responseTimeMs" | "refused">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, responseTimeMs: elapsed(), refused: false });
    };
    const request = (secure ? https : http).request({
      protocol: target.protocol,
      hostname,
      port: target.port || (secure ? 443 : 80),
      path: `${target.pathname}${target.search}`,
      method: "POST",
      lookup: pinnedLookup(checked),
      // TLS checks the certificate against the URL's name, not the address connected to.
      ...(secure && !isIP(hostname) ? { servername: hostname } : {}),
      agent: false,
      headers: {
        ...headers,
        host: target.host,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "user-agent": "Signalbox-Webhooks/1",
      },
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(new Error("time limit"));
    }, settings.timeoutMs);
    request.on("response", (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      let read = 0;
      const done = () =>
        finish({
          statusCode: status,
          error: status >= 200 && status < 300 ? null : `receiver answered ${status}`,
        });
      response.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > settings.maxResponseBytes) {
          // Enough: the status is known, the rest of a large answer is not read.
          response.destroy();
          done();
        }
      });
      response.on("end", done);
      response.on("error", () => done());
      response.on("close", done);
    });
    request.on("error", (error: Error) =>
      finish({
        statusCode: null,
        error: timedOut ? `timed out after ${settings.timeoutMs} ms` : connectionFailure(error),
      }),
    );
    request.end(body);
  });
}
