/**
 * The smallest adapter between chdb (the ClickHouse engine, embedded) and the product's ClickHouse
 * client (`@clickhouse/client` over HTTP, src/analytics/clickhouse/client.ts): a `node:http` server
 * speaking the part of ClickHouse's HTTP interface that client uses, so the suite runs the product's
 * own client, unchanged, on the real engine. Run as a process of its own (test/support/clickhouse.ts
 * starts one per test file): `node --import tsx test/clickhouse/chdb-http.ts --path DIR [--sessions N]`; it prints
 * `listening <url>` once it answers, and ends on SIGTERM.
 *
 * What it serves (https://clickhouse.com/docs/interfaces/http):
 * - `GET /ping` → `Ok.`;
 * - a query in `?query=` and/or the body; `param_<name>` values for `{name:Type}` placeholders;
 *   `database`; `default_format`; any other key is a setting for that query alone;
 * - `INSERT ... FORMAT <f>` with the rows in the (optionally gzip) body;
 * - errors as the server sends them: status 500, `Code: N. DB::Exception: ...` and
 *   `X-ClickHouse-Exception-Code`, which the client turns into a `ClickHouseError`.
 *
 * What chdb 3.4.0 needs worked around (found by probing it):
 * - parameter values arrive escaped as the server expects them; chdb's public `queryBind` escapes
 *   them again, so they go to the native entry point raw;
 * - parameterised queries race inside libchdb (wrong values, code 456), so they run one at a time;
 * - a session keeps `SET`/`USE` state and runs one query at a time, so each request takes a session
 *   of a pool (all on one data directory: chdb opens one per process), with `USE` and its settings in
 *   front and the settings reset after.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { Session } from "chdb";

/** chdb's native calls (its loader's, not in its exports map: pinned in ./package.json). */
interface NativeChdb {
  QueryAsyncConnection(
    connection: unknown,
    sql: string,
    format: string,
    params?: Record<string, string>,
  ): Promise<{ bytes: Uint8Array; rowsRead: number; bytesRead: number; elapsed: number }>;
  InsertRawAsyncConnection(
    connection: unknown,
    sql: string,
    body: Buffer,
    lineFormat: boolean,
  ): Promise<{ rowsWritten: number; bytesWritten: number; elapsed: number }>;
}

const require = createRequire(import.meta.url);
const native = createRequire(require.resolve("chdb"))("./dist/loader.js").loadNative() as NativeChdb;
const gunzip = promisify(zlib.gunzip);

/** URL keys that are not settings, and the HTTP server's own settings the engine does not know. */
const NOT_SETTINGS = new Set([
  "query",
  "query_id",
  "database",
  "default_format",
  "session_id",
  "session_timeout",
  "session_check",
  "role",
  "user",
  "password",
  "quota_key",
  "compress",
  "decompress",
  "buffer_size",
  "wait_end_of_query",
  "enable_http_compression",
  "http_zlib_compression_level",
  "send_progress_in_http_headers",
  "http_headers_progress_interval_ms",
  "add_http_cors_header",
  "stacktrace",
  "client_protocol_version",
]);
/** Formats of one row per line, which chdb's raw insert reads line by line. */
const LINE_FORMATS = /^(JSONEachRow|JSONCompactEachRow|JSONStringsEachRow|TSV|TabSeparated)$/i;
const INSERT_FORMAT = /^\s*INSERT\s[\s\S]*?\bFORMAT\s+(\w+)\s*$/i;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An error as the ClickHouse server words it. */
class ClickHouseHttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const quoteSetting = (value: string) => `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/** Serves chdb on `path` at `port` (0: any free one); resolves once it answers. */
export async function serveChdb(options: { path: string; port: number; sessions?: number }) {
  const size = options.sessions ?? 4;
  const free = Array.from({ length: size }, () => new Session(options.path));
  const waiting: ((session: Session) => void)[] = [];
  const acquire = () =>
    free.length > 0 ? Promise.resolve(free.pop()!) : new Promise<Session>((resolve) => waiting.push(resolve));
  const release = (session: Session) => {
    const next = waiting.shift();
    if (next) next(session);
    else free.push(session);
  };
  let parameterised: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(run: () => Promise<T>): Promise<T> => {
    const done = parameterised.then(run);
    parameterised = done.catch(() => undefined);
    return done;
  };
  const connection = (session: Session) => (session as unknown as { connection: unknown }).connection;

  const run = async (url: URL, body: Buffer) => {
    const query = url.searchParams;
    const params: Record<string, string> = {};
    const settings: [string, string][] = [];
    for (const [key, value] of query) {
      if (key.startsWith("param_")) params[key.slice(6)] = value;
      else if (!NOT_SETTINGS.has(key)) {
        if (!IDENTIFIER.test(key))
          throw new ClickHouseHttpError(115, `Unknown setting ${key}. (UNKNOWN_SETTING)`);
        settings.push([key, value]);
      }
    }
    const database = query.get("database") || "default";
    const format = query.get("default_format") || "TabSeparated";
    const prelude =
      `USE \`${database.replace(/[`\\]/g, "\\$&")}\`; ` +
      settings.map(([key, value]) => `SET ${key} = ${quoteSetting(value)}; `).join("");
    const hasParams = Object.keys(params).length > 0;
    let sql = query.get("query") ?? "";
    const insert = sql && body.length > 0 && !hasParams ? INSERT_FORMAT.exec(sql) : null;
    if (!insert)
      sql = sql ? (body.length > 0 ? `${sql}\n${body.toString("utf8")}` : sql) : body.toString("utf8");
    if (!sql.trim()) throw new ClickHouseHttpError(62, "Empty query. (SYNTAX_ERROR)");

    const session = await acquire();
    try {
      if (insert) {
        const written = await native.InsertRawAsyncConnection(
          connection(session),
          prelude + sql,
          body,
          LINE_FORMATS.test(insert[1]!),
        );
        return { bytes: Buffer.alloc(0), format, written: written.rowsWritten, read: 0 };
      }
      const call = () =>
        hasParams
          ? native.QueryAsyncConnection(connection(session), prelude + sql, format, params)
          : native.QueryAsyncConnection(connection(session), prelude + sql, format);
      const result = await (hasParams ? oneAtATime(call) : call());
      const bytes = Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength);
      return { bytes, format, written: 0, read: result.rowsRead };
    } finally {
      if (settings.length > 0) {
        const reset = settings.map(([key]) => `SET ${key} = DEFAULT`).join("; ");
        await native.QueryAsyncConnection(connection(session), reset, "TabSeparated").catch(() => undefined);
      }
      release(session);
    }
  };

  let version = "unknown";
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://chdb");
    const queryId = url.searchParams.get("query_id") || randomUUID();
    try {
      if (url.pathname === "/ping" || (request.method === "GET" && !url.searchParams.has("query"))) {
        response.writeHead(200, { "Content-Type": "text/plain; charset=UTF-8" }).end("Ok.\n");
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      let body = Buffer.concat(chunks);
      if (/gzip/i.test(request.headers["content-encoding"] ?? "")) body = await gunzip(body);
      const out = await run(url, body);
      response
        .writeHead(200, {
          "Content-Type": /JSON/i.test(out.format)
            ? "application/json; charset=UTF-8"
            : "text/plain; charset=UTF-8",
          "X-ClickHouse-Query-Id": queryId,
          "X-ClickHouse-Format": out.format,
          "X-ClickHouse-Timezone": "UTC",
          "X-ClickHouse-Summary": JSON.stringify({
            read_rows: String(out.read),
            written_rows: String(out.written),
            result_rows: String(out.read),
          }),
        })
        .end(out.bytes);
    } catch (error) {
      const { code, text } = errorText(error, version);
      response
        .writeHead(500, {
          "Content-Type": "text/plain; charset=UTF-8",
          "X-ClickHouse-Query-Id": queryId,
          "X-ClickHouse-Exception-Code": String(code),
        })
        .end(text);
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port, "127.0.0.1", resolve));
  const first = await native.QueryAsyncConnection(connection(free[0]!), "SELECT version()", "TSVRaw");
  version = Buffer.from(first.bytes).toString().trim();
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    version,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      for (const session of free.splice(0)) session.close();
    },
  };
}

/** The server's error text of `error`: chdb's own when it has a code, else a `STD_EXCEPTION`. */
function errorText(error: unknown, version: string): { code: number; text: string } {
  if (error instanceof ClickHouseHttpError) {
    return {
      code: error.code,
      text: `Code: ${error.code}. DB::Exception: ${error.message} (version ${version})\n`,
    };
  }
  const message = String((error as Error)?.message ?? error);
  const at = message.indexOf("Code: ");
  const code = at >= 0 ? /^Code: (\d+)\./.exec(message.slice(at)) : null;
  if (!code)
    return {
      code: 1001,
      text: `Code: 1001. DB::Exception: ${message}. (STD_EXCEPTION) (version ${version})\n`,
    };
  return { code: Number(code[1]), text: `${message.slice(at).trimEnd()} (version ${version})\n` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name: string) => {
    const at = process.argv.indexOf(`--${name}`);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const served = await serveChdb({
    path: option("path") ?? "./chdb-data",
    port: 0,
    sessions: Number(option("sessions") ?? 4),
  });
  process.stdout.write(`listening ${served.url} ${served.version}\n`);
  process.once("SIGTERM", () => void served.close().then(() => process.exit(0)));
}
