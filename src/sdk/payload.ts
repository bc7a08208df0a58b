/**
 * From an SDK request's bytes to its JSON payload, as PostHog's capture service reads the many
 * shapes SDKs have sent over the years (rust/capture/src/payload/common.rs `extract_payload_bytes`,
 * rust/capture/src/payload/decompression.rs `decompress_payload`):
 * 1. the payload is the query's `data` when given (GET from old clients), else the body;
 * 2. a body that is wholly base64 (`?compression=base64`, or none said) is decoded;
 * 3. a form body (`application/x-www-form-urlencoded`) carries it in its `data` field (base64 whose
 *    `+` the form decoding turned into spaces is repaired), and may name its `compression`;
 * 4. compression comes from the query, the form, or `Content-Encoding`: `gzip`/`gzip-js` (or a body
 *    starting with gzip's magic bytes, whatever was said) is gunzipped, `lz64`/`lz-string` is
 *    lz-string's base64 form (older posthog-js), anything else is UTF-8 text;
 * 5. text still wholly base64 is decoded once more; then it is parsed as JSON.
 * `text/plain` bodies (posthog-js's `sendBeacon`) are read like any other. The payload as sent (a
 * body, or the query's `data`) and every decoded or decompressed form of it may be no larger than
 * the route's limit (413, as capture's `EventTooBig`); decompression stops at the limit, so a
 * decompression bomb costs no more than the limit to refuse.
 */
import { gunzipSync } from "node:zlib";
import { ParseError, PayloadTooLargeError } from "../core/errors.js";
import { parseJson } from "../core/json-input.js";
import { decompressLz64 } from "./lz64.js";

const FORM_MIME_TYPE = "application/x-www-form-urlencoded";
const GZIP_MAGIC = [0x1f, 0x8b, 0x08];
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** A form body starts with a field name and `=` (`data=...`, `compression=...&data=...`). */
const FORM_LIKE = /^[A-Za-z0-9_$.-]+=/;

/** The compressions capture knows (rust/capture/src/payload/types.rs `Compression`). */
type Compression = "gzip" | "lz64" | "none";

/** What the door hands to decoding: the bytes and what the request says about them. */
export interface RawPayload {
  body: Buffer;
  query: URLSearchParams;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** The largest decoded text accepted, in bytes. */
  limitBytes: number;
}

function decodingError(reason: string): ParseError {
  return new ParseError(`failed to decode request: ${reason}`);
}

function compressionOf(hint: string | null | undefined): Compression | null {
  switch (hint?.trim().toLowerCase()) {
    case "gzip":
    case "gzip-js":
      return "gzip";
    case "lz64":
    case "lz-string":
      return "lz64";
    case undefined:
    case "":
      return null;
    default:
      return "none";
  }
}

function isLikelyBase64(text: string): boolean {
  return text.length > 0 && text.length % 4 === 0 && BASE64.test(text);
}

/** Base64 text decoded, or null when it decodes to nothing. */
function unwrapBase64(text: string): Buffer | null {
  const bytes = Buffer.from(text, "base64");
  return bytes.length > 0 ? bytes : null;
}

/**
 * Text that is still wholly base64 after decompression, decoded once more (gunzipped when it holds
 * gzip); kept as it was when that gives no UTF-8 text, as capture keeps it.
 */
function unwrapDecodedText(text: string, limitBytes: number): string {
  const trimmed = text.trim();
  if (!isLikelyBase64(trimmed)) return text;
  const bytes = unwrapBase64(trimmed);
  if (!bytes) return text;
  try {
    return utf8(hasGzipMagic(bytes) ? gunzip(bytes, limitBytes) : bytes, limitBytes);
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw error;
    return text;
  }
}

function hasGzipMagic(bytes: Buffer): boolean {
  return GZIP_MAGIC.every((byte, index) => bytes[index] === byte);
}

function utf8(bytes: Buffer, limitBytes: number): string {
  if (bytes.length > limitBytes) throw new PayloadTooLargeError(limitBytes);
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  try {
    return text.decode(bytes);
  } catch {
    throw decodingError("invalid UTF8 in request payload");
  }
}

function gunzip(bytes: Buffer, limitBytes: number): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: limitBytes });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
      throw new PayloadTooLargeError(limitBytes);
    throw decodingError("invalid gzip data");
  }
}

/** lz-string's base64 form decompressed, no longer than `limitBytes` at any point (./lz64.ts). */
function lz64(bytes: Buffer, limitBytes: number): string {
  const decompressed = decompressLz64(bytes.toString("latin1"), limitBytes);
  if (!decompressed) throw decodingError("decompress_lz64: failed decompress to UTF16");
  if (Buffer.byteLength(decompressed) > limitBytes) throw new PayloadTooLargeError(limitBytes);
  return decompressed;
}

/**
 * The JSON payload of an SDK request (see the module comment for the steps).
 * @throws ParseError `failed to decode request: ...` for an empty payload, a form without data,
 *   corrupt gzip or lz64 data, or text that is not UTF-8; `failed to parse request: ...` for text
 *   that is not JSON.
 * @throws PayloadTooLargeError when the decoded text is larger than `limitBytes`.
 */
export function decodePayload(raw: RawPayload): unknown {
  const fromQuery = raw.query.get("data");
  let bytes = fromQuery ? Buffer.from(fromQuery, "utf8") : raw.body;
  if (bytes.length === 0) throw decodingError("request missing data payload");
  // A body is bounded by the server before it gets here; the query's `data` is bounded here.
  if (bytes.length > raw.limitBytes) throw new PayloadTooLargeError(raw.limitBytes);
  let compression =
    compressionOf(raw.query.get("compression")) ??
    (raw.contentEncoding?.toLowerCase().includes("gzip") ? "gzip" : null);

  const head = bytes.subarray(0, 64).toString("latin1");
  // lz-string's output is itself base64 text: with an lz64 hint the body is left for step 4.
  const wholeBase64 =
    compression !== "lz64" &&
    !FORM_LIKE.test(head) &&
    !hasGzipMagic(bytes) &&
    isLikelyBase64(bytes.toString("latin1").trim());
  if (wholeBase64) {
    bytes = unwrapBase64(bytes.toString("latin1").trim()) ?? bytes;
  }
  if (raw.contentType?.split(";")[0]?.trim().toLowerCase() === FORM_MIME_TYPE) {
    if (!FORM_LIKE.test(bytes.subarray(0, 64).toString("latin1"))) {
      throw decodingError("expected form data in POST request payload");
    }
    const form = new URLSearchParams(bytes.toString("utf8"));
    const data = form.get("data");
    if (!data) throw decodingError("missing data field");
    compression = compressionOf(form.get("compression")) ?? compression;
    const repaired = data.replaceAll(" ", "+");
    bytes = Buffer.from(isLikelyBase64(repaired) ? repaired : data, "utf8");
  }

  let text: string;
  if (compression === "gzip" || hasGzipMagic(bytes))
    text = utf8(gunzip(bytes, raw.limitBytes), raw.limitBytes);
  else if (compression === "lz64") text = lz64(bytes, raw.limitBytes);
  else text = utf8(bytes, raw.limitBytes);

  text = unwrapDecodedText(text, raw.limitBytes);
  try {
    return parseJson(text);
  } catch (error) {
    throw new ParseError(`failed to parse request: ${(error as Error).message}`);
  }
}
