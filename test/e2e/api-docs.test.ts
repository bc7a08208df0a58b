/**
 * The REST reference at `GET /api/docs/` (src/rest/api-docs.ts): Scalar's page over our OpenAPI
 * document, served offline. Over plain HTTP: the page is public HTML under its
 * Content-Security-Policy and names no other origin; Scalar's bundle comes from our server with
 * year-long caching, an ETag (304 on `If-None-Match`) and brotli or gzip, its bytes those of the
 * installed package. In a real browser (Debian's `chromium`, driven by playwright-core): Scalar
 * renders the document's tags and operations, no request leaves the server's origin, and the page
 * logs no error. One PGlite server: the page reads no data, so the backend changes nothing. The
 * browser half is skipped, with the reason printed, only where no Chromium is installed.
 */
import { readFile } from "node:fs/promises";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import zlib from "node:zlib";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChromium } from "../support/browser.js";
import { startTestServer, type TestServer } from "../support/server.js";

const CHROMIUM = findChromium();
if (!CHROMIUM) {
  console.warn(
    "SKIPPED the browser tests of test/e2e/api-docs.test.ts: no Chromium found (set CHROMIUM_PATH, or apt-get install chromium; .ci/run installs it)",
  );
}

/** The list operation of the feature flags, as the document summarises it. */
const FLAGS_LIST_SUMMARY = "List the project's flags without soft-deleted ones";

const LONG_LIVED = "public, max-age=31536000, immutable";

/** A response with its body exactly as sent (node:http, which unlike fetch does not decode it). */
interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function rawRequest(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end();
  });
}

/** The bundle's path as the page links it. */
function bundlePath(html: string): string {
  const found = /<script src="(\/api\/docs\/scalar\.[0-9a-f]{16}\.js)"><\/script>/.exec(html);
  if (!found) throw new Error(`the page links no bundle:\n${html}`);
  return found[1]!;
}

/** The standalone bundle of the installed `@scalar/api-reference`, as the server reads it. */
async function installedBundle(): Promise<Buffer> {
  const main = createRequire(import.meta.url).resolve("@scalar/api-reference");
  return readFile(path.join(path.dirname(main), "browser", "standalone.js"));
}

describe("the REST reference at /api/docs/", () => {
  let server: TestServer;
  let browser: Browser | undefined;
  let page: Page;
  /** Every URL the browser's page requested, in order. */
  const requested: string[] = [];
  /** The page's console messages of type error, and its uncaught errors. */
  const errors: string[] = [];
  beforeAll(async () => {
    server = await startTestServer("pglite");
    if (!CHROMIUM) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-dev-shm-usage"],
    });
    page = await (await browser.newContext()).newPage();
    page.on("request", (request) => requested.push(request.url()));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => errors.push(`page: ${error.message}`));
    await page.goto(`${server.baseUrl}/api/docs/`);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  describe("over HTTP", () => {
    it("answers a public HTML page under a same-origin policy that names no other origin", async () => {
      for (const url of ["/api/docs/", "/api/docs"]) {
        const answer = await server.request("GET", url, { key: null });
        expect(answer.status, `${url}: ${answer.text}`).toBe(200);
        expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(answer.headers.get("cache-control")).toBe("no-cache");
        const policy = answer.headers.get("content-security-policy") ?? "";
        expect(policy).toContain("default-src 'self'");
        expect(policy).toContain("script-src 'self'");
        expect(answer.text).not.toMatch(/https?:\/\//);
        expect(answer.text).toContain('data-url="/api/schema/"');
        expect(answer.text).toContain("&quot;withDefaultFonts&quot;:false");
        // The only scripts: the configuration as a data block, then the bundle.
        expect([...answer.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([
          expect.stringContaining('<script id="api-reference" type="application/json"'),
          `<script src="${bundlePath(answer.text)}">`,
        ]);
      }
    });

    it("serves the installed bundle with year-long caching, an ETag and compressed variants", async () => {
      const url = `${server.baseUrl}${bundlePath((await server.request("GET", "/api/docs/", { key: null })).text)}`;
      const plain = await rawRequest(url);
      expect(plain.status).toBe(200);
      expect(plain.headers["content-type"]).toBe("text/javascript; charset=utf-8");
      expect(plain.headers["cache-control"]).toBe(LONG_LIVED);
      expect(plain.headers["vary"]).toBe("Accept-Encoding");
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(plain.headers["etag"]).toMatch(/^"[0-9a-f]{16}"$/);
      expect(url).toContain(`scalar.${plain.headers["etag"]!.slice(1, -1)}.js`);
      expect(plain.body.equals(await installedBundle())).toBe(true);

      const again = await rawRequest(url, { "if-none-match": plain.headers["etag"]! });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);

      const br = await rawRequest(url, { "accept-encoding": "gzip, br" });
      expect(br.headers["content-encoding"]).toBe("br");
      expect(br.headers["etag"]).toBe(`${plain.headers["etag"]!.slice(0, -1)}-br"`);
      expect(br.body.length).toBeLessThan(plain.body.length / 3);
      expect(zlib.brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      const gzip = await rawRequest(url, { "accept-encoding": "gzip" });
      expect(gzip.headers["content-encoding"]).toBe("gzip");
      expect(zlib.gunzipSync(gzip.body).equals(plain.body)).toBe(true);
      expect(
        (await rawRequest(url, { "accept-encoding": "gzip", "if-none-match": gzip.headers["etag"]! })).status,
      ).toBe(304);
    });

    it("answers 404 for any other file under /api/docs/", async () => {
      for (const file of ["scalar.js", "scalar.0000000000000000.js", "standalone.js.map"]) {
        const answer = await server.request("GET", `/api/docs/${file}`, { key: null });
        expect(answer.status, file).toBe(404);
      }
    });
  });

  describe.skipIf(!CHROMIUM)("in headless Chromium", () => {
    it("renders the document's tags and, opened, the feature flags' operations", async () => {
      const document = await server.request("GET", "/api/schema/", { key: null });
      const tags = (document.body.tags as Array<{ name: string }>).map((tag) => tag.name);
      expect(tags).toContain("feature_flags");
      const sidebar = page.getByRole("button", { name: "Open Group - feature_flags" });
      await sidebar.waitFor({ timeout: 30_000 });
      const text = await page.locator("body").innerText();
      for (const tag of tags) expect(text, tag).toContain(tag);
      await expect(page.getByText("Signalbox", { exact: true }).first().isVisible()).resolves.toBe(true);

      await sidebar.click();
      await page.getByText(FLAGS_LIST_SUMMARY).first().waitFor({ timeout: 30_000 });
      await expect(page.getByText(FLAGS_LIST_SUMMARY).first().isVisible()).resolves.toBe(true);
    });

    it("requested nothing outside the server's origin and logged no error", async () => {
      const origin = new URL(server.baseUrl).origin;
      expect(requested).toEqual(
        expect.arrayContaining([
          `${origin}/api/docs/`,
          `${origin}/api/schema/`,
          expect.stringMatching(/\/api\/docs\/scalar\.[0-9a-f]{16}\.js$/),
        ]),
      );
      expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
      expect(errors).toEqual([]);
    });
  });
});
