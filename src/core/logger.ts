/**
 * The process's logger: pino JSON lines that never carry a credential. Three layers, each for
 * what the one before cannot see:
 * - **by place** (pino's `redact`): credential headers (`Authorization`, `Cookie`, `Set-Cookie`,
 *   `X-API-Key`), credential fields (`personal_api_key`, `api_key`, `token`, `secret`) of any logged
 *   object or one level down (`body`, `query`, a job's `result`), and the raw bytes of a request
 *   Node's parser refused (`err.rawPacket`, request line and headers included);
 * - **by URL** (the `req` serializer): the request line's query string with each credential
 *   parameter's value replaced, whatever the case or percent-encoding of its name;
 * - **by shape** (pino's `streamWrite` hook, on the finished line): anything that looks like a key
 *   or secret this service issues or reads (`phx_…`, `pha_…`, `phc_…`, `whsec_…`), wherever it
 *   is: a message, an error's text or stack, an ORM error quoting its call's arguments.
 */
import tty from "node:tty";
import pino, { type DestinationStream, type Logger } from "pino";
import pretty from "pino-pretty";

/** What a redacted value reads as. */
const CENSOR = "[Redacted]";

/** Request and response headers that carry a credential (lower case, as Node names them). */
const SECRET_HEADERS = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"];

/** Query parameters and body fields that carry a credential (compared in lower case). */
const SECRET_PARAMETERS: ReadonlySet<string> = new Set(["personal_api_key", "api_key", "token", "secret"]);

/**
 * Keys and secrets by their prefix: personal API keys (`phx_`), OAuth tokens (`pha_`), project
 * tokens (`phc_`) and webhook signing secrets (`whsec_`), with the base62/base64 characters that
 * follow, percent-escapes included (a key in a logged URL). A masked key (`phx_...abcd`) is left.
 */
const SECRET_VALUE = /(?:phx|pha|phc|whsec)_[A-Za-z0-9+/=%_-]+/g;

/** pino `redact` paths: each credential header and field, at the top of a logged object and one level down. */
const REDACT_PATHS = [
  ...SECRET_HEADERS.flatMap((name) => [`headers["${name}"]`, `*.headers["${name}"]`]),
  ...[...SECRET_PARAMETERS].flatMap((name) => [name, `*.${name}`]),
  "err.rawPacket",
];

/** `url` (a request target: path and query) with the value of each credential parameter replaced. */
export function redactUrl(url: string): string {
  const mark = url.indexOf("?");
  if (mark === -1) return url;
  const query = url
    .slice(mark + 1)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const rawName = equals === -1 ? pair : pair.slice(0, equals);
      return SECRET_PARAMETERS.has(parameterName(rawName)) ? `${rawName}=${CENSOR}` : pair;
    });
  return `${url.slice(0, mark)}?${query.join("&")}`;
}

/** A query parameter's name as a server reads it (`+` a space, percent-escapes decoded), in lower case. */
function parameterName(raw: string): string {
  const spaced = raw.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced).toLowerCase();
  } catch {
    // A malformed escape: URLSearchParams keeps such bytes as they are.
    return spaced.toLowerCase();
  }
}

/** A finished log line with every `SECRET_VALUE` replaced. */
function redactSecretValues(line: string): string {
  return line.replace(SECRET_VALUE, CENSOR);
}

/** What a request's log lines show of it: fastify's fields, the URL redacted, no headers. */
interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * The process's logger at `level`, writing to `destination` (see the module comment): one JSON
 * object a line, its `time` in ISO 8601 (UTC) and its `level` by name (`info`, `error`, ...).
 * fastify takes its `req` serializer over its own, and child loggers inherit all three layers.
 */
export function createLogger(level: string, destination: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "signalbox" },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      serializers: {
        req: (request: LoggedRequest) => ({
          method: request.method,
          url: request.url === undefined ? undefined : redactUrl(request.url),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        }),
      },
      hooks: { streamWrite: redactSecretValues },
    },
    destination,
  );
}

/**
 * The destination of the process's log on file descriptor `fd` (1 stdout, 2 stderr): pino-pretty's
 * readable lines (colours, local times, the fields indented below) when it is a terminal, JSON lines
 * otherwise. The redaction layers run before either (they see the JSON line).
 */
export function logDestination(fd: 1 | 2): DestinationStream {
  if (!tty.isatty(fd)) return pino.destination(fd);
  return pretty({
    destination: fd,
    // Written as it is logged, so the lines before a process.exit() are all on the terminal.
    sync: true,
    colorize: true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,service",
  });
}
