/**
 * HogQL text to PostHog's AST, with PostHog's own parser (`@posthog/hogql-parser`, the same C++
 * ANTLR grammar as `posthog/hogql/parser.py`, compiled to WebAssembly). Everything that reads HogQL
 * (endpoint validation, the printer to PostgreSQL) parses here, never with a parser of our own.
 *
 * The WebAssembly module is instantiated once per thread, on first use. Its C++ stack is small:
 * deep input makes it trap (`RuntimeError: table index is out of bounds`, or output cut short),
 * and an instance that trapped is left broken (the next parse may fail or spin). So a parse that
 * throws or answers something other than JSON drops the instance (the next parse makes a new one)
 * and throws `HogQLParserTrap`; the query worker then ends its thread (src/queries/query-worker.ts).
 * Callers keep the input small enough not to trap (./text-limits.ts).
 */
import createHogQLParser, { type HogQLParser } from "@posthog/hogql-parser";
import { ValidationError } from "../../core/errors.js";

/**
 * A node of PostHog's HogQL AST as the parser emits it (`posthog/hogql/ast.py`): `node` names the
 * class (`SelectQuery`, `Field`, `Call`, `Constant`, `Placeholder`, ...), the other keys are its
 * fields in snake_case. Positions are left out.
 */
export interface HogQLNode {
  node: string;
  [field: string]: unknown;
}

/** The parser's failure object (`{error: true, type, message}`). */
interface ParserFailure {
  error: true;
  type: "SyntaxError" | "ParsingError" | "NotImplementedError";
  message: string;
}

/** The parser's WebAssembly instance failed on an input; that instance has been dropped. */
export class HogQLParserTrap extends Error {
  constructor(cause: unknown) {
    super(`The HogQL parser trapped: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "HogQLParserTrap";
  }
}

let parser: Promise<HogQLParser> | null = null;

/** The thread's parser, instantiated on first call. */
export function hogqlParser(): Promise<HogQLParser> {
  parser ??= createHogQLParser();
  return parser as Promise<HogQLParser>;
}

/**
 * Parses a HogQL `SELECT` (with `UNION ALL`, CTEs, subqueries and `{placeholders}`) into PostHog's AST.
 * @param text The query text, e.g. `SELECT count() FROM events WHERE event = {variables.name}`.
 * @param attr The input field the text came from, named in the error (`query` by default).
 * @throws ValidationError `Invalid HogQL query: <parser message>` (posthog-behavior.md §4.3), with `attr`;
 *   HogQLParserTrap when the WebAssembly parser failed (its instance is dropped).
 */
export async function parseHogQLSelect(text: string, attr = "query"): Promise<HogQLNode> {
  const instance = await hogqlParser();
  let parsed: HogQLNode | ParserFailure;
  try {
    parsed = JSON.parse(instance.parseSelect(text, true)) as HogQLNode | ParserFailure;
  } catch (error) {
    parser = null;
    throw new HogQLParserTrap(error);
  }
  if ("error" in parsed && parsed.error === true) {
    throw new ValidationError(`Invalid HogQL query: ${(parsed as ParserFailure).message}`, { attr });
  }
  return parsed as HogQLNode;
}
