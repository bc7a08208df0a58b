/**
 * The tasks of the query worker (./query-worker.ts) and what they answer, shared by the worker and
 * the request thread (./query-workers.ts). They cross the thread boundary by structured clone, so
 * they are plain data: the AST travels as its JSON text (one string copy instead of a walk of
 * thousands of objects), a printed statement as its strings and values, formula series as
 * `Float64Array`s.
 */
import type { LimitPlan } from "../lib/hogql/limits.js";
import type { PlaceholderInputs } from "../lib/hogql/placeholders.js";
import type { PrintedColumn, PrintLimits, PropertyTypes } from "../lib/hogql/printer.js";

/**
 * The value the printer puts where `{filters}` goes; the request thread replaces it with the
 * filters' SQL (which needs the database, so it is prepared there) over these row aliases.
 */
export interface FiltersMarker {
  filtersTargets: { event: string; person: string };
}

/** Whether a printed value is a `FiltersMarker` (constants of a query are never objects). */
export function isFiltersMarker(value: unknown): value is FiltersMarker {
  return typeof value === "object" && value !== null && "filtersTargets" in value;
}

/** What printing a prepared query needs, for either store. */
interface PrintInputs {
  astJson: string;
  projectId: number;
  timezone: string;
  propertyTypes: PropertyTypes;
  /** Whether `{filters}` has SQL (a `FiltersMarker` is printed for it), or is TRUE. */
  filters: boolean;
  limits: PrintLimits;
}

/** A task of the query worker. */
export type QueryTask =
  /** Parse HogQL text (an endpoint's query); answers the AST. */
  | { kind: "parse"; text: string; attr: string }
  /** Parse, replace placeholders and apply the LIMIT rules of a run; answers `PreparedHogQL`. */
  | {
      kind: "prepare";
      text: string;
      placeholders: PlaceholderInputs;
      page: { limit?: number | undefined; offset?: number | undefined };
    }
  /** Print a prepared query; answers `PrintedHogQL`. */
  | ({ kind: "print" } & PrintInputs)
  /**
   * Print a prepared query for ClickHouse (issue 30); answers `PrintedClickHouse`
   * (src/lib/hogql/clickhouse/printer.ts; `{filters}` with filters is refused there). `now`: the
   * instant relative dates resolve from, ms.
   */
  | ({ kind: "print-clickhouse"; now: number } & PrintInputs)
  /** Parse Trends formulas and check them against `seriesCount` series; answers null. */
  | { kind: "check-formulas"; formulas: string[]; seriesCount: number }
  /** Evaluate Trends formulas over series columns; answers one `Float64Array` per formula. */
  | { kind: "evaluate-formulas"; formulas: string[]; series: Float64Array[] };

/** A HogQL query after the first stage of a run. */
export interface PreparedHogQL {
  /** The AST, placeholders replaced and LIMIT rules applied, as JSON text. */
  astJson: string;
  /** The AST's root node kind (`SelectQuery`, `SelectSetQuery`). */
  root: string;
  /** How the top level was limited. */
  plan: LimitPlan;
  /** Field names and string constants of the AST (`mentionedNames`), for the property types. */
  names: string[];
}

/** A printed HogQL query: the statement as `Prisma.Sql`'s parts, with `FiltersMarker` values. */
export interface PrintedHogQL {
  /** The statement's text around its values (`Prisma.Sql.strings`). */
  strings: string[];
  /** Its bound values (`Prisma.Sql.values`), `FiltersMarker`s among them. */
  values: unknown[];
  /** Its output columns. */
  columns: PrintedColumn[];
  /** Its size as `printedBytes` measures it (a marker counted as 8). */
  bytes: number;
  /** The query as HogQL text (the response's `hogql`). */
  hogql: string;
}

/** What a task answers. */
export type QueryTaskResult =
  | { ok: true; value: unknown }
  | { ok: false; error: { detail: string; code: string; attr: string | null } };
