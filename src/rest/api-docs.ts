/**
 * The REST door's reference at `GET /api/docs/`: Scalar's API reference (the standalone browser
 * bundle of `@scalar/api-reference`) over the OpenAPI document the server serves (openapi.ts), to
 * anyone, as that document is: it holds only the route table, no project's data.
 *
 * Everything comes from this server, so the page works where there is no internet: the bundle is
 * read on first use (`bundleFile`: the build's copy, else the development package) and served at `/api/docs/scalar.<content hash>.js`
 * with year-long immutable caching, a strong ETag (304 on `If-None-Match`) and brotli or gzip by
 * `Accept-Encoding` (each compressed once per process), as GraphiQL's files are
 * (graphql/graphiql.ts). Scalar's calls to its own services are switched off in its configuration
 * (fonts from fonts.scalar.com, its AI agent, MCP and developer-tools upload), and the page's
 * Content-Security-Policy lets it reach nothing but this origin.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { negotiate } from "@fastify/accept-negotiator";
import type { FastifyInstance } from "fastify";
import fresh from "fresh";
import { NotImplementedError } from "../core/errors.js";
import { OPENAPI_PATH } from "./openapi.js";

/** Where the reference page is served. */
const DOCS_PATH = "/api/docs/";

/** Where the build copies the bundle, beside the compiled code (src/cli/write-api-docs-bundle.ts). */
export const BUILT_BUNDLE = fileURLToPath(new URL("../../api-docs/scalar.standalone.js", import.meta.url));

/**
 * The standalone bundle in the installed `@scalar/api-reference` (it defines `window.Scalar` and
 * mounts `#api-reference`): the file its `browser` field names, dist/browser/standalone.js, beside its
 * main entry; null when the package (a development dependency) is not installed.
 */
export function packageBundle(): string | null {
  try {
    const main = createRequire(import.meta.url).resolve("@scalar/api-reference");
    return path.join(path.dirname(main), "browser", "standalone.js");
  } catch {
    return null;
  }
}

/**
 * The bundle served: the copy the build made (a production install prunes the package, 300 MB with
 * its dependencies, for this one 5 MB file), else the package's own (development and tests); null
 * when neither is there.
 */
export function bundleFile(): string | null {
  return existsSync(BUILT_BUNDLE) ? BUILT_BUNDLE : packageBundle();
}

/**
 * Scalar's configuration (`data-configuration`): nothing that calls Scalar's services. The default
 * fonts are fetched from fonts.scalar.com (the system's fonts are used instead); the AI agent, the
 * MCP button and the developer tools (which upload the document for a share link) talk to Scalar's
 * servers; the sidebar's client button opens client.scalar.com (the in-page "Test Request" client
 * stays); telemetry off. The API client sends its requests directly (no `proxyUrl`).
 */
const SCALAR_CONFIGURATION = {
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  hideClientButton: true,
  agent: { disabled: true },
  mcp: { disabled: true },
};

/**
 * The page's policy: scripts only from this origin (the page has no inline script), styles from this
 * origin or inline (the bundle injects its stylesheet and Vue sets styles), images also as `data:`
 * and `blob:` URLs (icons, response previews), everything else (the document, the API client's
 * requests) this origin only; no plugins, no `<base>`, no form posts, no framing.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Immutable for a year: the URL carries the content hash (RFC 8246). */
const CACHE_CONTROL = "public, max-age=31536000, immutable";

/** Encodings offered, best first; `identity` is always acceptable as the last resort. */
const ENCODINGS = ["br", "gzip", "identity"] as const;
type Encoding = (typeof ENCODINGS)[number];

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Compressors at graphql/graphiql.ts's settings: brotli quality 9 (about 0.6 s on the 5 MB bundle), gzip 9. */
const COMPRESS: Record<Exclude<Encoding, "identity">, (raw: Buffer) => Promise<Buffer>> = {
  br: (raw) =>
    brotli(raw, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 9,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      },
    }),
  gzip: (raw) => gzip(raw, { level: 9 }),
};

/** The served bundle. */
interface ScalarBundle {
  /** File name under the docs path: `scalar.<first 16 hex digits of its SHA-256>.js`. */
  file: string;
  /** The uncompressed bytes. */
  raw: Buffer;
  /** Strong ETag of the uncompressed bytes, quoted. */
  etag: string;
  /** Compressed variants, each made once on first request. */
  encoded: Map<Encoding, Promise<Buffer>>;
}

let bundle: Promise<ScalarBundle> | undefined;

/**
 * The bundle (`bundleFile`), read and hashed once per process, on first use.
 * @throws NotImplementedError when it is not installed (a production install not built with it).
 */
function scalarBundle(): Promise<ScalarBundle> {
  const file = bundleFile();
  if (file === null) {
    return Promise.reject(
      new NotImplementedError(
        "The API reference's bundle is not installed: build the service with its development dependencies (npm run build copies it into dist/api-docs/). The OpenAPI document is at /api/schema/.",
      ),
    );
  }
  bundle ??= readFile(file).then((raw) => {
    const hash = createHash("sha256").update(raw).digest("hex").slice(0, 16);
    return { file: `scalar.${hash}.js`, raw, etag: `"${hash}"`, encoded: new Map() };
  });
  return bundle;
}

/** The variant of the bundle in `encoding`, compressing it on first request. */
function variant(b: ScalarBundle, encoding: Encoding): Promise<Buffer> {
  if (encoding === "identity") return Promise.resolve(b.raw);
  let bytes = b.encoded.get(encoding);
  if (!bytes) {
    bytes = COMPRESS[encoding](b.raw);
    b.encoded.set(encoding, bytes);
  }
  return bytes;
}

/** `text` with HTML's special characters escaped, for an attribute value. */
function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

/**
 * The page: Scalar's HTML API, a `#api-reference` data block (not a script, so the policy needs no
 * inline script) naming the document and the configuration, then the bundle, which mounts itself there.
 */
function docsPage(openApiPath: string, bundleUrl: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Signalbox REST API reference</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <noscript>The reference needs JavaScript. The OpenAPI document is at ${escapeHtml(openApiPath)}.</noscript>
    <script id="api-reference" type="application/json" data-url="${escapeHtml(openApiPath)}" data-configuration="${escapeHtml(JSON.stringify(SCALAR_CONFIGURATION))}"></script>
    <script src="${escapeHtml(bundleUrl)}"></script>
  </body>
</html>
`;
}

/**
 * Serves the reference of the OpenAPI document on `app`: the page at `GET /api/docs/` and the bundle
 * at `GET /api/docs/:file` (404, the app's not-found answer, for any other file name).
 */
export function registerApiDocsRoutes(app: FastifyInstance): void {
  app.get(DOCS_PATH, async (_request, reply) => {
    const { file } = await scalarBundle();
    return reply
      .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
      .header("Cache-Control", "no-cache")
      .type("text/html; charset=utf-8")
      .send(docsPage(OPENAPI_PATH, `${DOCS_PATH}${file}`));
  });
  app.get<{ Params: { file: string } }>(`${DOCS_PATH}:file`, async (request, reply) => {
    const b = await scalarBundle();
    if (request.params.file !== b.file) return reply.callNotFound();
    const encoding =
      negotiate(request.headers["accept-encoding"] ?? "identity", [...ENCODINGS]) ?? "identity";
    const etag = encoding === "identity" ? b.etag : `${b.etag.slice(0, -1)}-${encoding}"`;
    reply.header("Cache-Control", CACHE_CONTROL).header("ETag", etag).header("Vary", "Accept-Encoding");
    if (fresh(request.headers, { etag })) return reply.status(304).send();
    const bytes = await variant(b, encoding);
    if (encoding !== "identity") reply.header("Content-Encoding", encoding);
    return reply.type("text/javascript; charset=utf-8").send(bytes);
  });
}
