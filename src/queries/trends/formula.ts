/**
 * Trends formulas (`A+2*B`): a small parser and evaluator of PostHog's formula language
 * (`posthog/hogql_queries/utils/formula_ast.py`, which evaluates Python's own AST of the lowered text).
 *
 * Accepted: numbers, series letters (`a`/`A` = the first series...), `+ - * / % **`, unary `-`/`+`,
 * parentheses; Python's precedence (`**` binds tighter than unary minus and is right-associative)
 * and Python's `%` (the sign of the divisor). A missing value counts as 0 (callers pass 0 for it);
 * division or modulo by zero gives 0. Anything else is refused with PostHog's messages (ValidationError, 400):
 * - another operator: `Formulas only support arithmetic ( + - * / % ** ) between series, not <Op>`
 *   with Python's operator class name (`FloorDiv`, `BitAnd`, `Invert`, ...);
 * - a comparison or other construct: `Formulas only support arithmetic between series, not <Node>`;
 * - an unknown series: `Formula references series X, but only N series are defined (A, B)`;
 * - a call: `Formulas only support arithmetic between series (like (A + B) / 2), not F(). ...`.
 * Text that does not parse at all is `Invalid formula: <text>`.
 *
 * Cost: parsing and evaluation recurse once per parenthesis and per term, so formulas are first
 * measured on the request thread (`checkFormulaText`: length and parenthesis depth, configuration
 * `FORMULA_MAX_LENGTH`, `FORMULA_MAX_DEPTH`) and then parsed and evaluated in a query worker
 * (src/queries/query-worker.ts), whose time budget bounds formulas times points.
 */
import { ValidationError } from "../../core/errors.js";

/** A parsed formula. */
export type FormulaNode =
  | { kind: "number"; value: number }
  | { kind: "name"; name: string }
  | { kind: "bool"; value: boolean }
  | { kind: "binary"; op: string; left: FormulaNode; right: FormulaNode }
  | { kind: "unary"; op: string; operand: FormulaNode }
  | { kind: "compare"; left: FormulaNode; right: FormulaNode }
  | { kind: "call"; name: string | null };

const ARITHMETIC = new Set(["+", "-", "*", "/", "%", "**"]);
/** Python's class names of the binary operators it parses. */
const BINARY_NAMES: Record<string, string> = {
  "+": "Add",
  "-": "Sub",
  "*": "Mult",
  "/": "Div",
  "%": "Mod",
  "**": "Pow",
  "//": "FloorDiv",
  "@": "MatMult",
  "&": "BitAnd",
  "|": "BitOr",
  "^": "BitXor",
  "<<": "LShift",
  ">>": "RShift",
};
const UNARY_NAMES: Record<string, string> = { "-": "USub", "+": "UAdd", "~": "Invert" };
/** Binary precedence levels, lowest first (Python's grammar). */
const LEVELS: string[][] = [["|"], ["^"], ["&"], ["<<", ">>"], ["+", "-"], ["*", "/", "//", "%", "@"]];
const COMPARE = ["==", "!=", "<=", ">=", "<", ">"];
const TOKEN =
  /\s*(?:(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|\/\/|<<|>>|==|!=|<=|>=|[-+*/%@&|^~<>(),]))/y;

function invalid(text: string): ValidationError {
  return new ValidationError(`Invalid formula: ${text}`, { attr: "trendsFilter", code: "invalid_formula" });
}

function exposed(message: string): ValidationError {
  return new ValidationError(message, { attr: "trendsFilter", code: "invalid_formula" });
}

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let position = 0;
  while (position < text.length) {
    if (/^\s*$/.test(text.slice(position))) break;
    TOKEN.lastIndex = position;
    const match = TOKEN.exec(text);
    if (!match) throw invalid(text);
    tokens.push(match[1] ?? match[2] ?? match[3]!);
    position = TOKEN.lastIndex;
  }
  return tokens;
}

/** The formula limits (src/config.ts `FORMULA_MAX_LENGTH`, `FORMULA_MAX_DEPTH`). */
export interface FormulaLimits {
  /** Most characters. */
  maxLength: number;
  /** Deepest parenthesis nesting. */
  maxDepth: number;
}

/**
 * Checks a formula's length and parenthesis depth, in one pass, before it is parsed.
 * @throws ValidationError `max_length` or `max_depth` (attr `trendsFilter`) naming the limit.
 */
export function checkFormulaText(text: string, limits: FormulaLimits): void {
  if (text.length > limits.maxLength) {
    throw new ValidationError(`Formulas may be at most ${limits.maxLength} characters long.`, {
      attr: "trendsFilter",
      code: "max_length",
    });
  }
  let depth = 0;
  for (const c of text) {
    if (c === "(") depth += 1;
    else if (c === ")") depth -= 1;
    if (depth > limits.maxDepth) {
      throw new ValidationError(`Formulas may nest parentheses at most ${limits.maxDepth} levels deep.`, {
        attr: "trendsFilter",
        code: "max_depth",
      });
    }
  }
}

/** Parses a formula (lowered first, as PostHog does). @throws ValidationError when it does not parse. */
export function parseFormula(text: string): FormulaNode {
  const tokens = tokenize(text.toLowerCase());
  let i = 0;
  const peek = () => tokens[i];
  const next = () => tokens[i++];

  function atom(): FormulaNode {
    const token = next();
    if (token === undefined) throw invalid(text);
    if (token === "(") {
      const inner = comparison();
      if (next() !== ")") throw invalid(text);
      return inner;
    }
    if (/^[\d.]/.test(token)) return { kind: "number", value: Number(token) };
    if (/^[a-z_]/.test(token)) {
      if (peek() === "(") {
        let depth = 0;
        do {
          const t = next();
          if (t === undefined) throw invalid(text);
          if (t === "(") depth++;
          if (t === ")") depth--;
        } while (depth > 0);
        return { kind: "call", name: token };
      }
      if (token === "true" || token === "false") return { kind: "bool", value: token === "true" };
      return { kind: "name", name: token };
    }
    throw invalid(text);
  }

  function power(): FormulaNode {
    const base = atom();
    if (peek() === "**") {
      next();
      return { kind: "binary", op: "**", left: base, right: unary() };
    }
    return base;
  }

  function unary(): FormulaNode {
    const token = peek();
    if (token === "-" || token === "+" || token === "~") {
      next();
      return { kind: "unary", op: token, operand: unary() };
    }
    return power();
  }

  function level(n: number): FormulaNode {
    if (n === LEVELS.length) return unary();
    let left = level(n + 1);
    while (peek() !== undefined && LEVELS[n]!.includes(peek()!)) {
      const op = next()!;
      left = { kind: "binary", op, left, right: level(n + 1) };
    }
    return left;
  }

  function comparison(): FormulaNode {
    let left = level(0);
    while (peek() !== undefined && COMPARE.includes(peek()!)) {
      next();
      left = { kind: "compare", left, right: level(0) };
    }
    return left;
  }

  const root = comparison();
  if (i !== tokens.length) throw invalid(text);
  return root;
}

/** Python's `%`: the result takes the divisor's sign. */
function pythonMod(a: number, b: number): number {
  return a - b * Math.floor(a / b);
}

function evaluate(node: FormulaNode, values: ReadonlyMap<string, number>): number {
  switch (node.kind) {
    case "number":
      return node.value;
    case "name": {
      const value = values.get(node.name);
      if (value === undefined) {
        const available = [...values.keys()].map((k) => k.toUpperCase()).sort();
        const word = available.length === 1 ? "series is" : "series are";
        throw exposed(
          `Formula references series ${node.name.toUpperCase()}, but only ${available.length} ${word} defined (${available.join(", ") || "none"})`,
        );
      }
      return value;
    }
    case "unary": {
      const operand = evaluate(node.operand, values);
      if (node.op === "-") return -operand;
      if (node.op === "+") return operand;
      throw exposed(
        `Formulas only support arithmetic ( + - * / % ** ) between series, not ${UNARY_NAMES[node.op]}`,
      );
    }
    case "binary": {
      const left = evaluate(node.left, values);
      const right = evaluate(node.right, values);
      if (!ARITHMETIC.has(node.op)) {
        throw exposed(
          `Formulas only support arithmetic ( + - * / % ** ) between series, not ${BINARY_NAMES[node.op]}`,
        );
      }
      switch (node.op) {
        case "+":
          return left + right;
        case "-":
          return left - right;
        case "*":
          return left * right;
        case "/":
          return right === 0 ? 0 : left / right;
        case "%":
          return right === 0 ? 0 : pythonMod(left, right);
        default:
          return left ** right;
      }
    }
    case "call":
      throw exposed(
        `Formulas only support arithmetic between series (like (A + B) / 2), not ${
          node.name ? `${node.name.toUpperCase()}()` : "function calls"
        }. To aggregate a series, set its measurement (for example median or p95) on the series itself.`,
      );
    case "compare":
      throw exposed("Formulas only support arithmetic between series, not Compare");
    default:
      throw exposed("Formulas only support arithmetic between series, not Constant");
  }
}

/** The series letters (`a`, `b`, ...) bound to one point's values. */
function bind(values: ReadonlyArray<number>): Map<string, number> {
  const map = new Map<string, number>();
  for (const [index, value] of values.entries()) map.set(String.fromCharCode(97 + index), value);
  return map;
}

/**
 * Checks a formula against `seriesCount` series once, before any SQL runs (so a bad formula costs
 * no statement): the same errors evaluation would raise.
 * @throws ValidationError as evaluation would (unknown series, operators, calls).
 */
export function checkFormula(node: FormulaNode, seriesCount: number): void {
  evaluate(node, bind(new Array<number>(seriesCount).fill(1)));
}

/**
 * A formula at every point of a set of series: `series[i][p]` is series `i` (the letter `a` + i) at
 * point `p`; all have the same length. Returns the formula's value at each point.
 * @throws ValidationError as `checkFormula`.
 */
export function evaluateFormulaColumns(node: FormulaNode, series: ReadonlyArray<Float64Array>): Float64Array {
  const points = series[0]?.length ?? 0;
  const out = new Float64Array(points);
  const point = new Array<number>(series.length);
  for (let p = 0; p < points; p++) {
    for (let i = 0; i < series.length; i++) point[i] = series[i]![p]!;
    out[p] = evaluate(node, bind(point));
  }
  return out;
}
