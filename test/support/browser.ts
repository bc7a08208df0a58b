/**
 * What the real-browser test needs beside our server: a Chromium to drive (Debian's `chromium`
 * package; `.ci/run` installs it), a page server of the test's own (not a route of our app, so the
 * page is cross-origin to our server, as a customer's site is), posthog-js's browser bundle from
 * node_modules, and OpenFeature's web SDK with its OFREP provider bundled for the page by esbuild.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";

const require = createRequire(import.meta.url);

/** Where a Chromium may be: `CHROMIUM_PATH`, then Debian's and other distributions' paths. */
const CHROMIUM_CANDIDATES = [
  process.env["CHROMIUM_PATH"],
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
];

/** The first Chromium found (see `CHROMIUM_CANDIDATES`), or null where none is installed. */
export function findChromium(): string | null {
  return CHROMIUM_CANDIDATES.find((path): path is string => !!path && existsSync(path)) ?? null;
}

/**
 * posthog-js's full browser bundle (`dist/array.full.js`: the snippet build with every extension
 * included, so the page loads nothing else from a CDN), which defines `window.posthog`.
 */
export async function posthogJsBundle(): Promise<string> {
  return readFile(require.resolve("posthog-js/dist/array.full.js"), "utf8");
}

/**
 * `@openfeature/web-sdk` and `@openfeature/ofrep-web-provider` bundled for the page as one script.
 * It defines `window.resolveWithOpenFeature(baseUrl, token, context, flagKey)`: sets the OFREP web
 * provider (the project token as a Bearer) with `context`, and resolves `flagKey` as a string with
 * the SDK's details; then `window.changeOpenFeatureContext(context)` re-evaluates with a new context.
 */
export async function openFeatureBundle(): Promise<string> {
  const entry = `
    import { OpenFeature } from "@openfeature/web-sdk";
    import { OFREPWebProvider } from "@openfeature/ofrep-web-provider";
    window.resolveWithOpenFeature = async (baseUrl, token, context, flagKey) => {
      await OpenFeature.setContext(context);
      await OpenFeature.setProviderAndWait(
        new OFREPWebProvider({ baseUrl, headers: [["Authorization", "Bearer " + token]] }),
      );
      return OpenFeature.getClient().getStringDetails(flagKey, "no-variant");
    };
    window.changeOpenFeatureContext = async (context, flagKey) => {
      await OpenFeature.setContext(context);
      return OpenFeature.getClient().getStringDetails(flagKey, "no-variant");
    };
  `;
  const result = await build({
    stdin: { contents: entry, resolveDir: process.cwd(), sourcefile: "openfeature-entry.js" },
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

/** A static page server: path → body and media type. */
export interface PageServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/** Serves `files` on a port of its own (404 for anything else). */
export async function servePages(
  files: Readonly<Record<string, { body: string; type: string }>>,
): Promise<PageServer> {
  const server = createServer((request, response) => {
    const file = files[new URL(request.url ?? "/", "http://page.invalid").pathname];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": file.type }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
