/**
 * Placeholders of a HogQLQuery replaced in the AST, never in the text (query-and-experiments.md 1a,
 * PostHog `posthog/hogql/variables.py`, `placeholders.py`): the query is parsed first, and each
 * `{...}` node becomes a constant node, which the printer binds as a parameter. A value such as
 * `'x' OR 1=1` stays one string constant.
 *
 * - `{variables.<code_name>}`: the entry of the query's `variables` map with that `code_name`;
 *   `isNull` → NULL; a list → an array; a relative date string (`-7d`, `mStart`, `-1wEnd`) → that
 *   instant in the project's timezone, resolved by the database at run time ([newer] PostHog does
 *   this for Date variables; our variables carry no type, so any value of that exact form is a date).
 *   A variable without a value (we keep no InsightVariable defaults) is missing:
 *   `Set a value or a default for each query variable. Missing: a, b.` ([newest] wording).
 * - `{name}`: `values[name]`, else `Placeholder {name} is not available in this context. ...`.
 * - `{filters}`: the HogQLQuery's `filters`, printed over the SELECT's events table (TRUE when none).
 */
import { ValidationError } from "../../core/errors.js";
import { closeMatches } from "./close-match.js";
import type { HogQLNode } from "./parser.js";
import { parseRelativeDate } from "./relative-dates.js";

/** A HogQLQuery variable (`{variableId, code_name, value, isNull}`), keyed by its id in `variables`. */
export interface HogQLVariable {
  variableId?: string;
  code_name: string;
  value?: unknown;
  isNull?: boolean | null;
}

/** What placeholders are replaced with. */
export interface PlaceholderInputs {
  variables?: Record<string, HogQLVariable> | null;
  values?: Record<string, unknown> | null;
}

function constant(value: unknown): HogQLNode {
  return { node: "Constant", value };
}

/** The AST node of a JSON value given for a placeholder. */
function valueNode(value: unknown, what: string): HogQLNode {
  if (value === null || value === undefined) return constant(null);
  if (typeof value === "string") {
    if (parseRelativeDate(value)) return { node: "RelativeDate", text: value };
    return constant(value);
  }
  if (typeof value === "number" || typeof value === "boolean") return constant(value);
  if (Array.isArray(value)) {
    return {
      node: "Array",
      exprs: value.map((item) => {
        if (item !== null && typeof item === "object") {
          throw new ValidationError(`${what} must be a string, number, boolean or a list of them.`);
        }
        return valueNode(item, what);
      }),
    };
  }
  throw new ValidationError(`${what} must be a string, number, boolean or a list of them.`);
}

function placeholderChain(node: HogQLNode): string[] {
  const expr = node["expr"] as HogQLNode | undefined;
  if (expr?.node !== "Field")
    throw new ValidationError("Placeholders can only contain names: {name} or {variables.name}.");
  return (expr["chain"] as unknown[]).map(String);
}

/** Every `{variables.x}` code the query uses. */
function usedVariableCodes(node: unknown, codes: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) usedVariableCodes(item, codes);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as HogQLNode;
  if (record.node === "Placeholder") {
    const chain = placeholderChain(record);
    if (chain[0] === "variables" && chain.length === 2) codes.add(chain[1]!);
    return;
  }
  for (const value of Object.values(record)) usedVariableCodes(value, codes);
}

/**
 * The AST with every placeholder replaced.
 * @throws ValidationError for missing variables (with PostHog's "Did you mean" hint), unknown
 *   `{name}` values, other placeholder shapes, and values that are objects.
 */
export function replacePlaceholders(ast: HogQLNode, inputs: PlaceholderInputs): HogQLNode {
  const byCode = new Map<string, HogQLVariable>();
  for (const variable of Object.values(inputs.variables ?? {})) {
    if (variable && typeof variable.code_name === "string") byCode.set(variable.code_name, variable);
  }
  const used = new Set<string>();
  usedVariableCodes(ast, used);
  const missing = [...used].filter((code) => {
    const variable = byCode.get(code);
    return !variable || (!variable.isNull && (variable.value === undefined || variable.value === null));
  });
  if (missing.length > 0) {
    const hints = missing.flatMap((code) => closeMatches(code, byCode.keys()));
    const hint = hints.length > 0 ? ` Did you mean: ${[...new Set(hints)].join(", ")}?` : "";
    throw new ValidationError(
      `Set a value or a default for each query variable. Missing: ${missing.join(", ")}.${hint}`,
    );
  }
  const values = inputs.values ?? {};

  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== "object") return node;
    const record = node as HogQLNode;
    if (record.node === "Placeholder") {
      const chain = placeholderChain(record);
      if (chain[0] === "variables" && chain.length === 2) {
        const variable = byCode.get(chain[1]!)!;
        return variable.isNull ? constant(null) : valueNode(variable.value, `Variable ${chain[1]}`);
      }
      if (chain.length === 1 && chain[0] === "filters") return { node: "FiltersExpr" };
      if (chain.length === 1 && Object.hasOwn(values, chain[0]!)) {
        return valueNode(values[chain[0]!], `Placeholder {${chain[0]}}`);
      }
      const available = ["{filters}", ...Object.keys(values).map((name) => `{${name}}`)];
      if (chain.length === 1) {
        throw new ValidationError(
          `Placeholder {${chain[0]}} is not available in this context. You can use the following: ${available.join(", ")}`,
        );
      }
      throw new ValidationError(`Unresolved placeholder: {${chain.join(".")}}`);
    }
    const copy: HogQLNode = { node: record.node };
    for (const [key, value] of Object.entries(record)) copy[key] = visit(value);
    return copy;
  };
  return visit(ast) as HogQLNode;
}
