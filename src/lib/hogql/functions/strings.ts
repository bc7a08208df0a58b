/**
 * HogQL functions, family strings (PostHog `posthog/hogql/functions/mapping.py`). Strings: lengths and substrings in characters (not bytes: docs/hogql.md, "Functions"), case, trimming,
 * search, regular expressions (PostgreSQL's ARE, not re2), `concat` (NULL with a NULL argument),
 * `extract` (`''` without a match).
 */
import { anyNullable, asText, type FunctionDef, join, out, simple, sql } from "./shared.js";

/** Strings, by HogQL name. */
export const STRINGS: ReadonlyArray<[string, FunctionDef]> = [
  ["lower", simple("lower", 1, 1, "String")],
  ["upper", simple("upper", 1, 1, "String")],
  ["trim", simple("btrim", 1, 1, "String")],
  ["trimLeft", simple("ltrim", 1, 1, "String")],
  ["trimRight", simple("rtrim", 1, 1, "String")],
  ["reverse", simple("reverse", 1, 1, "String")],
  [
    "length",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([x]) =>
        x!.type === "Array"
          ? out(sql`COALESCE(cardinality(${x!.sql}), 0)::bigint`, "UInt64", false)
          : out(sql`char_length(${asText(x!)})::bigint`, "UInt64", x!.nullable),
    },
  ],
  [
    "empty",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([x]) =>
        x!.type === "Array"
          ? out(sql`(COALESCE(cardinality(${x!.sql}), 0) = 0)`, "Bool", false)
          : out(sql`(${asText(x!)} = '')`, "Bool", x!.nullable),
    },
  ],
  [
    "notEmpty",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([x]) =>
        x!.type === "Array"
          ? out(sql`(COALESCE(cardinality(${x!.sql}), 0) > 0)`, "Bool", false)
          : out(sql`(${asText(x!)} <> '')`, "Bool", x!.nullable),
    },
  ],
  [
    "concat",
    {
      minArgs: 1,
      maxArgs: 99,
      print: (args) =>
        out(
          sql`(${join(
            args.map((a) => sql`${asText(a)}`),
            " || ",
          )})`,
          "String",
          anyNullable(args),
        ),
    },
  ],
  [
    "substring",
    {
      minArgs: 2,
      maxArgs: 3,
      print: ([s, o, l]) =>
        out(
          l
            ? sql`substr(${asText(s!)}, (${o!.sql})::int, (${l.sql})::int)`
            : sql`substr(${asText(s!)}, (${o!.sql})::int)`,
          "String",
          anyNullable([s!, o!, ...(l ? [l] : [])]),
        ),
    },
  ],
  [
    "position",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([h, n]) =>
        out(sql`strpos(${asText(h!)}, ${asText(n!)})::bigint`, "UInt64", anyNullable([h!, n!])),
    },
  ],
  [
    "startsWith",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, p]) => out(sql`starts_with(${asText(s!)}, ${asText(p!)})`, "Bool", anyNullable([s!, p!])),
    },
  ],
  [
    "endsWith",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, p]) =>
        out(
          sql`(right(${asText(s!)}, char_length(${asText(p!)})) = ${asText(p!)})`,
          "Bool",
          anyNullable([s!, p!]),
        ),
    },
  ],
  [
    "replaceAll",
    {
      minArgs: 3,
      maxArgs: 3,
      print: ([s, a, b]) =>
        out(sql`replace(${asText(s!)}, ${asText(a!)}, ${asText(b!)})`, "String", anyNullable([s!, a!, b!])),
    },
  ],
  [
    "replaceRegexpAll",
    {
      minArgs: 3,
      maxArgs: 3,
      print: ([s, re, r]) =>
        out(
          sql`regexp_replace(${asText(s!)}, ${asText(re!)}, ${asText(r!)}, 'g')`,
          "String",
          anyNullable([s!, re!, r!]),
        ),
    },
  ],
  [
    "replaceRegexpOne",
    {
      minArgs: 3,
      maxArgs: 3,
      print: ([s, re, r]) =>
        out(
          sql`regexp_replace(${asText(s!)}, ${asText(re!)}, ${asText(r!)})`,
          "String",
          anyNullable([s!, re!, r!]),
        ),
    },
  ],
  [
    "splitByChar",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([sep, s]) => out(sql`string_to_array(${asText(s!)}, ${asText(sep!)})`, "Array", s!.nullable),
    },
  ],
  [
    "splitByString",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([sep, s]) => out(sql`string_to_array(${asText(s!)}, ${asText(sep!)})`, "Array", s!.nullable),
    },
  ],
  [
    "match",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, re]) => out(sql`(${asText(s!)} ~ ${asText(re!)})`, "Bool", anyNullable([s!, re!])),
    },
  ],
  [
    "extract",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, re]) =>
        out(sql`COALESCE((regexp_match(${asText(s!)}, ${asText(re!)}))[1], '')`, "String", s!.nullable),
    },
  ],
  [
    "like",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, p]) => out(sql`(${asText(s!)} LIKE ${asText(p!)})`, "Bool", anyNullable([s!, p!])),
    },
  ],
  [
    "ilike",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, p]) => out(sql`(${asText(s!)} ILIKE ${asText(p!)})`, "Bool", anyNullable([s!, p!])),
    },
  ],
];
