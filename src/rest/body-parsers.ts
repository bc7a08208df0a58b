/**
 * Request bodies as Django REST Framework's default parsers take them (`DEFAULT_PARSER_CLASSES`:
 * `JSONParser`, `FormParser`, `MultiPartParser`; `rest_framework/request.py` `Request._parse`):
 * - an empty body is no data (`{}`), whatever its `Content-Type`;
 * - `application/json` is parsed as Python's `json` would, with prototype-poisoning keys dropped;
 * - `application/x-www-form-urlencoded` and `multipart/form-data` become a `FormBody`, which
 *   `parseInput` reads by the schema's field types; uploaded files are kept apart (`FormBody.file`). Only
 *   routes whose config has `formBodies` (the REST door's) take them: elsewhere (GraphQL) they stay
 *   a 415, as before;
 * - any other type (`text/plain`, none at all) is a 415 `Unsupported media type "<type>" in request.`
 * Bodies are read whole within the server's `bodyLimit` (413 beyond) before they are parsed.
 */
import type { IncomingHttpHeaders } from "node:http";
import { Busboy, type BusboyHeaders, type BusboyInstance } from "@fastify/busboy";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Limits } from "../config.js";
import { ParseError, UnsupportedMediaTypeError } from "../core/errors.js";
import { FormBody } from "../core/form-body.js";
import { parseJsonKeepingSource } from "../core/json-input.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route takes form and multipart bodies (as a `FormBody`). */
    formBodies?: boolean;
  }
}

/** Route config of the routes that take form bodies: the REST door's, as DRF's parsers do. */
export const FORM_BODY_ROUTE_CONFIG = { formBodies: true } as const;

/** 415 unless the route takes form bodies. */
function checkFormRoute(request: FastifyRequest): void {
  if (!request.routeOptions.config.formBodies) {
    throw new UnsupportedMediaTypeError(request.headers["content-type"] ?? "");
  }
}

/** DRF `JSONParser`: an empty body is `{}`; malformed JSON is DRF's `JSON parse error - <reason>`. */
function parseJsonBody(text: string): unknown {
  if (text === "") return {};
  try {
    return parseJsonKeepingSource(text);
  } catch (error) {
    throw new ParseError(`JSON parse error - ${(error as Error).message}`);
  }
}

/**
 * DRF `MultiPartParser` (through @fastify/busboy): the text fields, in order, and the uploaded
 * files' contents by field name (Django's `request.FILES`; a cohort's `csv`). The body is already
 * read whole within the server's `bodyLimit`, so a field or file may be as large as the body
 * (busboy's own 1 MB field default would cut it silently); a part's headers keep busboy's bound
 * (80 KiB kept, the rest dropped). Every failure of the parser or of a file's
 * stream (no boundary, a body cut short in a part or in its headers) is the request's 400, never an
 * `error` event nobody hears (which would end the process).
 * @throws ParseError `Multipart form parse error - <reason>`.
 */
function parseMultipartBody(headers: IncomingHttpHeaders, body: Buffer, limits: Limits): Promise<FormBody> {
  if (body.length === 0) return Promise.resolve(new FormBody([]));
  return new Promise((resolve, reject) => {
    const fields: Array<[string, string]> = [];
    const files: Array<[string, Buffer]> = [];
    let settled = false;
    let finished = false;
    let openFiles = 0;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(new ParseError(`Multipart form parse error - ${(error as Error).message}`));
    };
    // Done once the parser has finished and every file stream has ended, in whichever order.
    const settle = () => {
      if (settled || !finished || openFiles > 0) return;
      settled = true;
      resolve(new FormBody(fields, files));
    };
    let parser: BusboyInstance;
    try {
      parser = new Busboy({
        headers: headers as BusboyHeaders,
        limits: { fieldSize: limits.bodyLimitBytes },
      });
    } catch (error) {
      fail(error);
      return;
    }
    parser.on("field", (name, value) => fields.push([name, value]));
    parser.on("file", (name, stream) => {
      openFiles++;
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", fail);
      stream.on("end", () => {
        openFiles--;
        files.push([name, Buffer.concat(chunks)]);
        settle();
      });
    });
    parser.on("error", fail);
    parser.on("finish", () => {
      finished = true;
      settle();
    });
    parser.end(body);
  });
}

/**
 * Replaces fastify's body parsers (JSON and plain text) with DRF's three, and a catch-all for every
 * other media type (or none): an empty body is no data, anything else a 415 naming the type as sent.
 */
export function registerBodyParsers(app: FastifyInstance, limits: Limits): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "application/json",
    { parseAs: "string" },
    async (_request: FastifyRequest, text: string) => parseJsonBody(text),
  );
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string" },
    async (request: FastifyRequest, text: string) => {
      checkFormRoute(request);
      return new FormBody(new URLSearchParams(text));
    },
  );
  app.addContentTypeParser(
    "multipart/form-data",
    { parseAs: "buffer" },
    async (request: FastifyRequest, body: Buffer) => {
      checkFormRoute(request);
      return parseMultipartBody(request.headers, body, limits);
    },
  );
  app.addContentTypeParser("*", { parseAs: "buffer" }, async (request: FastifyRequest, body: Buffer) => {
    if (body.length === 0) return {};
    throw new UnsupportedMediaTypeError(request.headers["content-type"] ?? "");
  });
}
