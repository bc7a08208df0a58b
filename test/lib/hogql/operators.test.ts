/**
 * The HogQL printer's operator rules (src/lib/hogql/operators.ts), without a database: the lookup
 * that reads a table's own keys only, the function spellings of operators (`and(a, b)`,
 * `equals(a, b)`, `plus(a, b)`) and the arities that make them operators, and window frame bounds
 * as PostgreSQL writes them. Rules from PostHog's `posthog/hogql/printer.py` (operator calls,
 * frames) and `posthog/hogql/constants.py`; printer-run.test.ts runs the printed SQL.
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/core/errors.js";
import {
  COMPARE_SQL,
  frameBound,
  JOIN_TYPES,
  lookup,
  operatorCall,
  WINDOW_FUNCTIONS,
} from "../../../src/lib/hogql/operators.js";
import type { HogQLNode } from "../../../src/lib/hogql/parser.js";

const a: HogQLNode = { node: "Constant", value: 1 };
const b: HogQLNode = { node: "Constant", value: 2 };
const c: HogQLNode = { node: "Constant", value: 3 };

describe("lookup", () => {
  it("answers a table's own keys, never what Object.prototype has", () => {
    expect(lookup(COMPARE_SQL, "==")).toBe("=");
    expect(lookup(JOIN_TYPES, "LEFT OUTER JOIN")).toBe("LEFT JOIN");
    expect(lookup(WINDOW_FUNCTIONS, "lagInFrame")).toBe("lag");
    expect(lookup(COMPARE_SQL, "toString")).toBeUndefined();
    expect(lookup(COMPARE_SQL, "constructor")).toBeUndefined();
    expect(lookup(COMPARE_SQL, "<=>")).toBeUndefined();
  });
});

describe("operatorCall", () => {
  it("reads and(...) and or(...) of one or more arguments as And and Or, in any case", () => {
    expect(operatorCall("and", [a, b, c])).toEqual({ node: "And", exprs: [a, b, c] });
    expect(operatorCall("or", [a, b])).toEqual({ node: "Or", exprs: [a, b] });
    expect(operatorCall("or", [a])).toEqual({ node: "Or", exprs: [a] });
    expect(operatorCall("AND", [a])).toEqual({ node: "And", exprs: [a] });
    expect(operatorCall("Or", [a, b])).toEqual({ node: "Or", exprs: [a, b] });
  });

  it("leaves and() and or() without arguments to the function lookup, which refuses them", () => {
    expect(operatorCall("and", [])).toBeNull();
    expect(operatorCall("or", [])).toBeNull();
  });

  it("reads not(x) of exactly one argument as Not, in any case", () => {
    expect(operatorCall("not", [a])).toEqual({ node: "Not", expr: a });
    expect(operatorCall("NOT", [b])).toEqual({ node: "Not", expr: b });
    expect(operatorCall("not", [])).toBeNull();
    expect(operatorCall("not", [a, b])).toBeNull();
  });

  it("reads the comparison functions of two arguments as their operators", () => {
    const ops = {
      equals: "==",
      notEquals: "!=",
      less: "<",
      lessOrEquals: "<=",
      greater: ">",
      greaterOrEquals: ">=",
      notLike: "not like",
      notILike: "not ilike",
      in: "in",
      notIn: "not in",
    };
    for (const [name, op] of Object.entries(ops)) {
      expect(operatorCall(name, [a, b])).toEqual({ node: "CompareOperation", op, left: a, right: b });
      expect(operatorCall(name, [a])).toBeNull();
      expect(operatorCall(name, [a, b, c])).toBeNull();
    }
  });

  it("reads the arithmetic functions of two arguments as their operators", () => {
    const ops = { plus: "+", minus: "-", multiply: "*", divide: "/", modulo: "%" };
    for (const [name, op] of Object.entries(ops)) {
      expect(operatorCall(name, [a, b])).toEqual({ node: "ArithmeticOperation", op, left: a, right: b });
      expect(operatorCall(name, [a])).toBeNull();
      expect(operatorCall(name, [a, b, c])).toBeNull();
    }
  });

  it("answers null for any other function, and for names only Object.prototype has", () => {
    expect(operatorCall("count", [a])).toBeNull();
    expect(operatorCall("concat", [a, b])).toBeNull();
    expect(operatorCall("toString", [a, b])).toBeNull();
    expect(operatorCall("constructor", [a, b])).toBeNull();
  });
});

describe("frameBound", () => {
  const bound = (frame_type: string, frame_value?: unknown): HogQLNode => ({
    node: "WindowFrameExpr",
    frame_type,
    ...(frame_value === undefined ? {} : { frame_value }),
  });

  it("prints a missing bound as UNBOUNDED PRECEDING", () => {
    expect(frameBound(null)).toBe("UNBOUNDED PRECEDING");
  });

  it("prints CURRENT ROW, and an offset before or after it", () => {
    expect(frameBound(bound("CURRENT ROW"))).toBe("CURRENT ROW");
    expect(frameBound(bound("PRECEDING", 3))).toBe("3 PRECEDING");
    expect(frameBound(bound("FOLLOWING", 2))).toBe("2 FOLLOWING");
    expect(frameBound(bound("FOLLOWING", 0))).toBe("0 FOLLOWING");
  });

  it("prints a bound without an offset, or with a null one, as UNBOUNDED", () => {
    expect(frameBound(bound("PRECEDING"))).toBe("UNBOUNDED PRECEDING");
    expect(frameBound(bound("FOLLOWING"))).toBe("UNBOUNDED FOLLOWING");
    expect(frameBound(bound("PRECEDING", null))).toBe("UNBOUNDED PRECEDING");
    expect(frameBound(bound("FOLLOWING", null))).toBe("UNBOUNDED FOLLOWING");
  });

  it("refuses another frame kind", () => {
    expect(() => frameBound(bound("SOMETIMES", 1))).toThrow(
      new ValidationError("Unsupported window frame: SOMETIMES."),
    );
    expect(() => frameBound(bound("preceding", 1))).toThrow("Unsupported window frame: preceding.");
  });

  it("refuses an offset that is not a non-negative integer", () => {
    for (const offset of [-1, 1.5, "2", Number.NaN, 2 ** 53]) {
      expect(() => frameBound(bound("PRECEDING", offset))).toThrow(
        new ValidationError("Window frame offsets must be non-negative integers."),
      );
    }
  });
});
