/**
 * Cheap checks of HogQL text before any parsing, on the request thread: one pass over the
 * characters, no allocation per token. They refuse text whose parse would be too costly or would
 * break PostHog's parser (its WebAssembly build traps past about 250 nested expressions: a chain of
 * 400 `+` is enough), with a 400 naming the limit:
 *
 * - length: characters of the text (`HOGQL_MAX_QUERY_LENGTH`; ClickHouse's `max_query_size`,
 *   262,144 bytes, is the engine's own bound on the same thing);
 * - tokens: words, numbers, strings, operators and punctuation (`HOGQL_MAX_TOKENS`; the parser
 *   spends up to about 0.4 ms per token);
 * - nesting: brackets `(` `[` `{`, `CASE … END` and template strings open inside each other
 *   (`HOGQL_MAX_NESTING`; the parser's time grows with the square of it);
 * - expression depth: an upper bound of the depth of the parsed expression tree, where each
 *   operator of a chain (`a + b + c` is left-deep: 2), each call or index, and each bracket counts a
 *   level (`HOGQL_MAX_EXPRESSION_DEPTH`). Commas and clause keywords (`SELECT`, `WHERE`, ...) start
 *   a new expression, so list length does not count. The parser's stack holds about 370 levels of
 *   `+`, `AND` or `::` and fewer of some constructs, which count more (measured on
 *   `@posthog/hogql-parser` 1.3.87): `NOT` 2 (traps past 241 levels), `??` 2 (past 186), a lambda's
 *   `->` 4 (past 94). Operators are summed, not split by precedence: a bound that trusted
 *   precedence would undercount where lambdas or `NOT` interleave with other operators. In a FROM
 *   clause each join (`JOIN`, or a comma) is a level too, the constraints adding up (the parser
 *   traps past 340 joins); and each part of a field chain past the fourth counts two (parsing
 *   `a.b.c…` takes time growing with the square of its length: 100 parts, 0.9 s; 200, 2.8 s).
 *
 * The scan follows the lexer's rules (posthog/hogql/grammar/HogQLLexer.common.g4) for strings,
 * quoted identifiers, comments (`--`, `//`, `/* *\/`) and `f'…{expr}…'` templates; where it is
 * unsure it counts more, never less.
 */
import { ValidationError } from "../../core/errors.js";

/** The text limits (src/config.ts `HOGQL_MAX_*`). */
export interface HogQLTextLimits {
  /** Most characters. */
  maxLength: number;
  /** Most tokens. */
  maxTokens: number;
  /** Deepest bracket nesting. */
  maxNesting: number;
  /** Deepest expression, as estimated (see the module comment). */
  maxExpressionDepth: number;
}

/** Operators of several characters, longest first (maximal munch, as the lexer). */
const LONG_OPERATORS = [
  "=~*",
  "!~*",
  "->",
  "::",
  ":=",
  "||",
  "==",
  "!=",
  "<>",
  ">=",
  "<=",
  "=~",
  "!~",
  "~*",
  "?.",
  "??",
  "</",
  "/>",
];
/** Words that join or wrap expressions, and the levels each counts. */
const OPERATOR_WORDS: ReadonlyMap<string, number> = new Map([
  ["and", 1],
  ["or", 1],
  ["not", 2],
  ["is", 1],
  ["in", 1],
  ["like", 1],
  ["ilike", 1],
  ["between", 1],
  ["as", 1],
  ["interval", 1],
  ["global", 1],
  ["cohort", 1],
]);
/** Symbol operators that count more than one level. */
const HEAVY_OPERATORS: ReadonlyMap<string, number> = new Map([
  ["->", 4],
  ["??", 2],
]);
/** A number literal (decimal with fraction and exponent, hexadecimal, binary). */
const NUMBER = /0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?/y;
/** The index of a tuple access (`t.1.2`: each part is one integer, not `1.2`). */
const INTEGER = /[0-9]+/y;
/** Words that start a new expression (a clause, or a branch of `CASE`). */
const SEPARATOR_WORDS = new Set([
  "select",
  "from",
  "where",
  "prewhere",
  "group",
  "having",
  "order",
  "limit",
  "offset",
  "union",
  "intersect",
  "except",
  "with",
  "window",
  "settings",
  "qualify",
  "by",
  "when",
  "then",
  "else",
]);
/** Words of a FROM clause's joins: in one, a join is a level and its constraint adds to it. */
const JOIN_WORDS = new Set(["join", "on", "using"]);
/** Parts of a field chain that count nothing (`person.properties.a.b`); each further part counts two. */
const FREE_CHAIN_PARTS = 4;
const CLOSERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/** An open bracket (or the whole text, or a template string) and the expressions seen inside it. */
interface Frame {
  /** What closes it: `)`, `]`, `}`, `end`, `'` (a template string), or null for the whole text. */
  closer: string | null;
  /** Operators of the current expression. */
  operators: number;
  /** Deepest closed group inside the current expression. */
  inner: number;
  /** Deepest expression finished so far. */
  deepest: number;
  /** Whether the text is in this bracket's FROM clause. */
  inFrom: boolean;
}

function frame(closer: string | null): Frame {
  return { closer, operators: 0, inner: 0, deepest: 0, inFrom: false };
}

/** Ends the current expression of `f`: its depth is its operators plus its deepest group. */
function endExpression(f: Frame): void {
  f.deepest = Math.max(f.deepest, f.operators + f.inner);
  f.operators = 0;
  f.inner = 0;
}

/** Index after the quoted run starting at `start` (quote `q`; `\x` and doubled quotes escape). */
function skipQuoted(text: string, start: number, q: string): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\") i += 2;
    else if (c === q) {
      if (text[i + 1] === q) i += 2;
      else return i + 1;
    } else i += 1;
  }
  return i;
}

/**
 * Checks HogQL `text` against `limits` (see the module comment), cheapest first.
 * @param attr The input field named in the error (`query`).
 * @throws ValidationError `max_length`, `max_tokens` or `max_depth`, whose detail names the limit.
 */
export function checkHogQLText(text: string, limits: HogQLTextLimits, attr = "query"): void {
  if (text.length > limits.maxLength) {
    throw new ValidationError(
      `HogQL queries may be at most ${limits.maxLength} characters long; this one has ${text.length}.`,
      { attr, code: "max_length" },
    );
  }
  const stack: Frame[] = [frame(null)];
  let top = stack[0]!;
  let tokens = 0;
  // Whether the last token ends an operand, so that a following `(` or `[` is a call or an index.
  let afterOperand = false;
  // Whether the last token is a field chain's `.`, and the parts of the chain read so far.
  let afterDot = false;
  let chainParts = 0;
  /** An identifier (plain or quoted): one more part when it follows a chain's `.`. */
  const identifier = (dotBefore: boolean) => {
    chainParts = dotBefore ? chainParts + 1 : 1;
    if (chainParts > FREE_CHAIN_PARTS) top.operators += 2;
    afterOperand = true;
  };
  const push = (closer: string) => {
    if (stack.length > limits.maxNesting) {
      throw new ValidationError(`HogQL queries may nest brackets at most ${limits.maxNesting} levels deep.`, {
        attr,
        code: "max_depth",
      });
    }
    top = frame(closer);
    stack.push(top);
  };
  const pop = () => {
    endExpression(top);
    const depth = top.deepest + 1;
    stack.pop();
    top = stack[stack.length - 1]!;
    top.inner = Math.max(top.inner, depth);
  };
  let i = 0;
  while (i < text.length) {
    if (top.closer === "'") {
      // Inside a template string: text up to `{expr}` or the closing quote.
      const c = text[i];
      if (c === "\\" || (c === "'" && text[i + 1] === "'")) i += 2;
      else if (c === "'") {
        i += 1;
        pop();
        afterOperand = true;
      } else if (c === "{") {
        i += 1;
        push("}");
      } else i += 1;
      continue;
    }
    const c = text[i]!;
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    if ((c === "-" && text[i + 1] === "-") || (c === "/" && text[i + 1] === "/")) {
      const end = text.indexOf("\n", i);
      i = end === -1 ? text.length : end + 1;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 2;
      continue;
    }
    tokens += 1;
    const dotBefore = afterDot;
    afterDot = false;
    if (tokens > limits.maxTokens) {
      throw new ValidationError(`HogQL queries may hold at most ${limits.maxTokens} tokens.`, {
        attr,
        code: "max_tokens",
      });
    }
    if (c === "f" && text[i + 1] === "'") {
      i += 2;
      push("'");
      continue;
    }
    if (c === "'") {
      i = skipQuoted(text, i, c);
      afterOperand = true;
      continue;
    }
    if (c === '"' || c === "`") {
      i = skipQuoted(text, i, c);
      identifier(dotBefore);
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      let end = i + 1;
      while (end < text.length && /[A-Za-z0-9_$]/.test(text[end]!)) end += 1;
      const word = text.slice(i, end).toLowerCase();
      i = end;
      afterOperand = false;
      if (word === "case") push("end");
      else if (word === "end" && top.closer === "end") {
        pop();
        afterOperand = true;
      } else if (JOIN_WORDS.has(word) && top.inFrom) {
        if (word === "join") top.operators += 1;
      } else if (SEPARATOR_WORDS.has(word) || JOIN_WORDS.has(word)) {
        endExpression(top);
        top.inFrom = word === "from";
      } else if (OPERATOR_WORDS.has(word)) top.operators += OPERATOR_WORDS.get(word)!;
      else identifier(dotBefore);
      continue;
    }
    if (/[0-9]/.test(c)) {
      const pattern = text[i - 1] === "." ? INTEGER : NUMBER;
      pattern.lastIndex = i;
      pattern.test(text);
      i = pattern.lastIndex;
      afterOperand = true;
      continue;
    }
    const closer = CLOSERS[c];
    if (closer !== undefined) {
      // A call `f(…)` or an index `a[…]` is a level of its own besides the bracket.
      if (afterOperand) top.operators += 1;
      i += 1;
      push(closer);
      afterOperand = false;
      continue;
    }
    if (c === top.closer) {
      i += 1;
      pop();
      afterOperand = true;
      continue;
    }
    if (c === ",") {
      i += 1;
      if (top.inFrom) top.operators += 1;
      else endExpression(top);
      afterOperand = false;
      continue;
    }
    const operator = LONG_OPERATORS.find((op) => text.startsWith(op, i)) ?? c;
    i += operator.length;
    afterOperand = false;
    // A field chain (`properties.$browser`) is one node; a tuple access (`t.1`) is a level.
    if (operator === "." && !/[0-9]/.test(text[i] ?? "")) {
      afterDot = true;
      continue;
    }
    top.operators += HEAVY_OPERATORS.get(operator) ?? 1;
  }
  while (stack.length > 1) pop();
  endExpression(top);
  if (top.deepest > limits.maxExpressionDepth) {
    throw new ValidationError(
      `HogQL expressions may nest at most ${limits.maxExpressionDepth} levels deep (each operator of a chain, call and bracket counts one); this query reaches ${top.deepest}.`,
      { attr, code: "max_depth" },
    );
  }
}
