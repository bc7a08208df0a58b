/**
 * fast-check arbitraries for bad input, shared by the REST and GraphQL property tests: strings with
 * Unicode edge cases, any JSON value (keys from a vocabulary of real field names, so values reach the
 * validation of those fields), values nested far deeper than any stored shape, huge strings,
 * prototype-polluting keys, and hostile request bodies (cut multipart, endless part headers, bad or
 * bomb compression, NUL in form fields, clients gone mid-body). Also the run parameters: deterministic by default, the seed printed on
 * failure by fast-check, a fixed number of runs per property so each file stays well under a minute.
 */
import { deflateSync, gzipSync } from "node:zlib";
import fc from "fast-check";

/**
 * The seed of every property: `FAST_CHECK_SEED` when set (to replay or explore), else a fixed one so
 * the suite is deterministic. fast-check prints the seed and the shrunk counterexample on failure.
 */
const PROPERTY_SEED = Number(process.env["FAST_CHECK_SEED"] ?? 20251106);

/**
 * fast-check parameters for a property of `numRuns` cases; `seedOffset` gives each of a family of
 * properties (one per route) cases of its own, still deterministic.
 */
export function propertyRuns(numRuns: number, seedOffset = 0): fc.Parameters<unknown> {
  return { seed: PROPERTY_SEED + seedOffset, numRuns, verbose: 1 };
}

/**
 * Characters that break naive handling: NUL (PostgreSQL refuses it in text and jsonb), lone high and
 * low surrogates (not valid UTF-16 alone), right-to-left mark and override, BOM, zero-width joiner,
 * a combining accent, emoji with and without joiners, a Unicode line separator, backslash and quote.
 */
const EDGE_CHARACTERS = [
  "\u0000",
  "\ud800",
  "\udfff",
  "\u200f",
  "\u202e",
  "\ufeff",
  "\u200d",
  "\u0301",
  "😀",
  "👩‍👩‍👧‍👦",
  "\u2028",
  "\\",
  '"',
] as const;

/** A string mixing any code points with the edge characters. */
export const edgeString: fc.Arbitrary<string> = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...EDGE_CHARACTERS),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  ),
  maxLength: 40,
});

/** A string with at least one NUL character in it. */
export const stringWithNul: fc.Arbitrary<string> = fc
  .tuple(edgeString, edgeString)
  .map(([before, after]) => `${before}\u0000${after}`);

/** A string of 10,000 to 300,000 characters. */
export const hugeString: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 10_000, max: 300_000 }), fc.constantFrom("x", "é", "😀", "\u202e"))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)));

/** Any JSON value, with object keys drawn mostly from `vocabulary` and strings from `edgeString`. */
export function jsonValue(vocabulary: readonly string[]): fc.Arbitrary<unknown> {
  const key = vocabulary.length ? fc.oneof(fc.constantFrom(...vocabulary), edgeString) : edgeString;
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(-1, 0, 2 ** 31, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER + 2, 1e308, 0.5),
      edgeString,
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(key, tie("value"), { maxKeys: 4 }),
    ),
  })).value;
}

/**
 * The JSON text of a value nested `depth` levels deep: arrays, objects, or both in turn, around `1`.
 * Built as text: `JSON.stringify` itself recurses and overflows the stack long before 20,000 levels.
 */
function nestedJson(depth: number, shape: "array" | "object" | "mixed"): string {
  const opens: string[] = [];
  const closes: string[] = [];
  for (let i = 0; i < depth; i++) {
    const asArray = shape === "array" || (shape === "mixed" && i % 2 === 0);
    opens.push(asArray ? "[" : '{"value":');
    closes.push(asArray ? "]" : "}");
  }
  return `${opens.join("")}1${closes.reverse().join("")}`;
}

/**
 * A value nested 2,000 to 20,000 levels deep, as JSON text: deeper than any stored shape needs, and
 * deeper than Python's JSON decoder goes (its recursion limit is about 1,000), so PostHog cannot store it either.
 */
export const deeplyNestedJson: fc.Arbitrary<RawJson> = fc
  .tuple(
    fc.integer({ min: 2_000, max: 20_000 }),
    fc.constantFrom<"array" | "object" | "mixed">("array", "object", "mixed"),
  )
  .map(([depth, shape]) => new RawJson(nestedJson(depth, shape)));

/** Keys that pollute prototypes when a parser or a merge treats them naively. */
export const PROTOTYPE_KEYS = ["__proto__", "constructor", "prototype"] as const;

/**
 * The JSON text of `body` (an object) with `extra` prototype keys added as own members: written as
 * text, since an object literal's `__proto__` sets the prototype instead of adding a key.
 */
export function withPrototypeKeys(body: Record<string, unknown>, extra: Array<[string, unknown]>): string {
  const members = [
    ...extra.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`),
    ...Object.entries(body).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`),
  ];
  return `{${members.join(",")}}`;
}

/** Every object key anywhere in `value` (a JSON value), e.g. the field names of a record. */
export function keysIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keysIn(item, into);
  else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      into.add(key);
      keysIn(item, into);
    }
  }
  return into;
}

/**
 * A JSON value given as its text, which `jsonText` embeds as is (for values too deep for
 * JSON.stringify). fast-check prints it shortened, so a counterexample stays readable.
 */
export class RawJson {
  constructor(readonly text: string) {}

  [fc.toStringMethod](): string {
    return `RawJson(${JSON.stringify(this.text.slice(0, 24))}… ${this.text.length} characters)`;
  }
}

/** The JSON text of `value`, with `RawJson` parts embedded verbatim and `undefined` members left out. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(",")}]`;
  if (value && typeof value === "object") {
    const members = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => `${JSON.stringify(key)}:${jsonText(item)}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * A request body built to break a body parser, as it is sent: its headers (a content type, a
 * `Content-Encoding`), its bytes, and for a client that goes away mid-body, how many of them it
 * sends (all are declared in `Content-Length`).
 */
export interface HostileBody {
  /** What it is, for failure messages. */
  label: string;
  headers: Record<string, string>;
  body: Buffer;
  /** When set, only this many bytes are sent before the connection closes. */
  cutAfter?: number;
  [fc.toStringMethod](): string;
}

function hostile(
  label: string,
  headers: Record<string, string>,
  body: Buffer,
  cutAfter?: number,
): HostileBody {
  return {
    label,
    headers,
    body,
    ...(cutAfter === undefined ? {} : { cutAfter }),
    [fc.toStringMethod]: () =>
      `${label} (${JSON.stringify(headers)}, ${body.length} bytes${cutAfter === undefined ? "" : `, cut after ${cutAfter}`})`,
  };
}

/** A multipart boundary as clients write them. */
const boundary = fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,40}$/);

/** One multipart part: a field, or a file when `filename` is set. */
interface Part {
  name: string;
  value: string;
  filename?: string;
}

function multipartText(separator: string, parts: readonly Part[]): string {
  const body = parts
    .map((part) => {
      const file = part.filename === undefined ? "" : `; filename="${part.filename}"`;
      return `--${separator}\r\nContent-Disposition: form-data; name="${part.name}"${file}\r\n\r\n${part.value}\r\n`;
    })
    .join("");
  return `${body}--${separator}--\r\n`;
}

/** Parts named from `names`, with edge-case values; some of them files. */
function parts(names: readonly string[], value: fc.Arbitrary<string>): fc.Arbitrary<Part[]> {
  const part = fc.record(
    {
      name: fc.constantFrom(...names),
      value,
      filename: fc.option(fc.constantFrom("a.csv", "x"), { nil: undefined }),
    },
    { requiredKeys: ["name", "value"] },
  );
  return fc.array(part, { minLength: 1, maxLength: 4 });
}

/**
 * A well-formed multipart body cut inside one of its parts (its headers or its content, a file's or
 * a field's), so that the closing boundary never comes.
 */
function truncatedMultipart(names: readonly string[]): fc.Arbitrary<HostileBody> {
  return fc.tuple(boundary, parts(names, edgeString)).chain(([separator, fields]) => {
    const type = { "content-type": `multipart/form-data; boundary=${separator}` };
    const text = multipartText(separator, fields);
    const starts = fields.map(
      (_, index) =>
        Buffer.byteLength(multipartText(separator, fields.slice(0, index))) - separator.length - 6,
    );
    return fc.nat({ max: fields.length - 1 }).chain((index) => {
      const start = starts[index]!;
      const end =
        index + 1 < fields.length ? starts[index + 1]! : Buffer.byteLength(text) - separator.length - 6;
      return fc
        .integer({ min: start + 1, max: end - 1 })
        .map((cut) => hostile("multipart cut short", type, Buffer.from(text).subarray(0, cut)));
    });
  });
}

/** A multipart part whose headers go on for up to 300 kB and never end. */
const endlessPartHeaders: fc.Arbitrary<HostileBody> = fc
  .tuple(boundary, fc.integer({ min: 100, max: 300_000 }), fc.boolean())
  .map(([separator, length, closed]) => {
    const text = `--${separator}\r\nContent-Disposition: form-data; name="f"; filename="a"\r\nX-Endless: ${"h".repeat(length)}${closed ? `\r\n--${separator}--` : ""}`;
    return hostile(
      "endless part headers",
      { "content-type": `multipart/form-data; boundary=${separator}` },
      Buffer.from(text),
    );
  });

/** Well-formed forms (urlencoded or multipart) whose values hold a NUL. */
function formWithNul(names: readonly string[]): fc.Arbitrary<HostileBody> {
  return fc
    .tuple(boundary, parts(names, stringWithNul), fc.boolean())
    .map(([separator, fields, asMultipart]) =>
      asMultipart
        ? hostile(
            "multipart with NUL",
            { "content-type": `multipart/form-data; boundary=${separator}` },
            Buffer.from(
              multipartText(
                separator,
                fields.map((f) => ({ ...f, filename: undefined })),
              ),
            ),
          )
        : hostile(
            "form with NUL",
            { "content-type": "application/x-www-form-urlencoded" },
            Buffer.from(new URLSearchParams(fields.map((field) => [field.name, field.value])).toString()),
          ),
    );
}

/** `Content-Encoding`s clients send, real and not. */
const ENCODINGS = ["gzip", "deflate", "br", "gzip, deflate", "x-unknown"] as const;

/** Bodies that say they are compressed and are not, or are cut short, or lie about the method. */
const badCompression: fc.Arbitrary<HostileBody> = fc
  .tuple(
    fc.constantFrom(...ENCODINGS),
    fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
      fc.integer({ min: 1, max: 30 }).map((cut) => gzipSync('{"key": "gzipped"}').subarray(0, cut)),
      fc.constant(Buffer.from('{"key": "not compressed at all"}')),
      fc.constant(deflateSync('{"key": "deflated"}')),
    ),
  )
  .map(([encoding, body]) =>
    hostile("bad compression", { "content-type": "application/json", "content-encoding": encoding }, body),
  );

/** 4 MB of spaces, gzipped and deflated (about 4 kB each): computed once, when first used. */
let bombs: Array<[string, Buffer]> | undefined;
const compressionBombs = () => {
  bombs ??= [
    ["gzip", gzipSync(Buffer.alloc(4_000_000, " "))],
    ["deflate", deflateSync(Buffer.alloc(4_000_000, " "))],
  ];
  return bombs;
};

/** A small body that inflates to 4 MB, sent as JSON with its `Content-Encoding` or with none. */
const compressionBomb: fc.Arbitrary<HostileBody> = fc
  .tuple(fc.constantFrom(0, 1), fc.boolean())
  .map(([which, announced]) => {
    const [encoding, body] = compressionBombs()[which]!;
    return hostile(
      "decompression bomb",
      { "content-type": "application/json", ...(announced ? { "content-encoding": encoding } : {}) },
      body,
    );
  });

/** A JSON or multipart body whose client goes away after any number of its bytes. */
function cutByClient(names: readonly string[]): fc.Arbitrary<HostileBody> {
  const whole = fc.oneof(
    jsonValue(names).map((value) =>
      hostile("JSON", { "content-type": "application/json" }, Buffer.from(JSON.stringify(value) ?? "null")),
    ),
    fc
      .tuple(boundary, parts(names, edgeString))
      .map(([separator, fields]) =>
        hostile(
          "multipart",
          { "content-type": `multipart/form-data; boundary=${separator}` },
          Buffer.from(multipartText(separator, fields)),
        ),
      ),
  );
  return whole.chain((body) =>
    fc
      .integer({ min: 0, max: body.body.length - 1 })
      .map((cut) => hostile(`${body.label} cut by the client`, body.headers, body.body, cut)),
  );
}

/** Any hostile body (see `HostileBody`), with form field names drawn from `names`. */
export function hostileBody(names: readonly string[]): fc.Arbitrary<HostileBody> {
  return fc.oneof(
    truncatedMultipart(names),
    endlessPartHeaders,
    formWithNul(names),
    badCompression,
    compressionBomb,
    cutByClient(names),
  );
}
