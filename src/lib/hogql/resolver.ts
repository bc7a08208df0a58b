/**
 * Name resolution for the HogQL printer (./printer.ts), as PostHog's `posthog/hogql/resolver.py`
 * does it: scopes, the tables of FROM and its joins, CTEs, expression aliases, and field chains
 * resolved to columns, JSON properties (typed by the project's property definitions,
 * ./property-types.ts) and the lazy `person` join; `*` expanded; aliases numbered across the query.
 * Resolution and printing are one pass: what the resolver needs printed (subqueries, ON
 * constraints, aliased expressions, column CTEs) it hands back to the printer (`ExpressionPrinter`).
 *
 * Every table reference reads a view that holds `project_id = <project>` inside it (./tables.ts):
 * the tables' views, a lazy `person` join's source, or a subquery or CTE printed the same way.
 *
 * Scoping and its errors are the same for every dialect; what a dialect prints here (quoted names,
 * the tables' guarded sources, the lazy person join, property access) is its `ResolverDialect`:
 * PostgreSQL's is `POSTGRES_RESOLVER` below, ClickHouse's ./clickhouse/tables.ts `clickHouseResolver`.
 */
import { Prisma } from "../../generated/prisma/client.js";
import { out } from "./functions/shared.js";
import { hogqlText } from "./hogql-text.js";
import { JOIN_TYPES, lookup } from "./operators.js";
import type { HogQLNode } from "./parser.js";
import { fail, nodes, quoteIdent } from "./print-shared.js";
import type { PropertyTypes } from "./property-types.js";
import {
  HOGQL_TABLES,
  type HogQLTable,
  PERSON_FIELDS,
  personJoinSource,
  type TableColumn,
} from "./tables.js";
import type { Printed, PrintedColumn, PrintedQuery } from "./types.js";

const sql = Prisma.sql;
const raw = Prisma.raw;
const join = Prisma.join;

/** PostHog's bound on nested CTE expansions (posthog/hogql/resolver.py `cte_counter > 50`). */
const MAX_CTE_EXPANSIONS = 50;

/** What resolving needs besides the AST (part of the printer's `PrintOptions`). */
export interface ResolveOptions {
  projectId: number;
  propertyTypes: PropertyTypes;
  /**
   * The `{filters}` expression over an events row (`event`) and its current person (`person`, whose
   * `id` is the internal person id), SQL aliases fixed by the printer; absent when no filters were given.
   */
  filters?: (targets: { event: string; person: string }) => Prisma.Sql;
}

/** A table reference in a SELECT's FROM, by the name HogQL fields use for it. */
export interface TableRef {
  sqlAlias: string;
  columns: ReadonlyMap<string, TableColumn>;
  table?: HogQLTable;
  /** SQL alias of the lazy `person` join, once a field used it. */
  personJoin?: string;
  /** SQL alias of the person row `{filters}` reads (internal id as `id`), once used. */
  filterPersonJoin?: string;
  /** The columns of `table` the query reads (a lazy join reads the columns it joins on). */
  used?: Set<string>;
}

/**
 * A CTE visible by name: a subquery CTE (printed once in `WITH` as `sqlName`, read like a table) or
 * a column CTE (`WITH expr AS name`, whose expression is printed wherever `name` is used).
 */
export type CteDef =
  | { kind: "subquery"; sqlName: string; columns: PrintedColumn[] }
  | { kind: "column"; expr: HogQLNode };

/** The names visible inside one SELECT (PostHog's `SelectQueryType`). */
export interface Scope {
  /** The FROM chain's table references by the name fields use (alias, else table or CTE name). */
  tables: Map<string, TableRef>;
  /** Every table reference in FROM order (unnamed subqueries included). */
  order: TableRef[];
  /**
   * The expression aliases defined so far, printed (PostHog's resolver, posthog/hogql/resolver.py
   * `visit_alias`): visible from their definition on, in the resolver's order (FROM and its ON
   * constraints, the SELECT list, WHERE, PREWHERE, HAVING, GROUP BY, ORDER BY, LIMIT, OFFSET,
   * WINDOW), wherever they are written, even inside an expression; never redefined.
   */
  aliases: Map<string, Printed>;
  ctes: Map<string, CteDef>;
}

/**
 * What a dialect prints for the resolver: quoted identifiers, the guarded source of each table,
 * the lazy joins of an events row, and `properties.a.b` typed by its property definition.
 */
export interface ResolverDialect {
  /** A quoted identifier (a column name after `t1.`, a USING column). */
  quote(name: string): Prisma.Sql;
  /**
   * The guarded subquery (without alias) reading the project's rows of `table`, printed once the
   * query is resolved: `used` holds the columns the query reads from this reference (ClickHouse
   * leaves out the work of the ones it does not read).
   */
  tableSource(table: HogQLTable, projectId: number, used: ReadonlySet<string>): Prisma.Sql;
  /**
   * The lazy join of the events row `eventsAlias` to its current person, as `joinAlias`
   * (` LEFT JOIN ... AS joinAlias ON ...`): `person` for `person.*` fields (./tables.ts
   * `PERSON_FIELDS`), `filters` for the `{filters}` person (internal id as `id`).
   */
  lazyJoin(kind: "person" | "filters", eventsAlias: string, joinAlias: string, projectId: number): Prisma.Sql;
  /**
   * `base.a.b` for JSON column `base` (`keys` = `[a, b]`): the value as text (NULL when missing or
   * JSON null), typed by `definition` (`Numeric`, `Boolean`, `DateTime`; text when undefined).
   */
  property(base: Prisma.Sql, keys: string[], definition: string | undefined): Printed;
}

/** PostgreSQL's names and tables (./tables.ts), `->>` for properties. */
export const POSTGRES_RESOLVER: ResolverDialect = {
  quote: quoteIdent,
  tableSource: (table, projectId) => table.source(projectId),
  lazyJoin(kind, eventsAlias, joinAlias, projectId) {
    const source = personJoinSource(projectId);
    return kind === "person"
      ? sql` LEFT JOIN ${source} AS ${raw(joinAlias)} ON ${raw(joinAlias)}.distinct_id = ${raw(eventsAlias)}.distinct_id`
      : sql` LEFT JOIN (SELECT distinct_id, pk AS id, properties FROM ${source} AS fp) AS ${raw(joinAlias)} ON ${raw(joinAlias)}.distinct_id = ${raw(eventsAlias)}.distinct_id`;
  },
  property(base, keys, definition) {
    const path = keys.slice(0, -1).reduce((acc, key) => sql`(${acc} -> ${key}::text)`, base);
    const text = sql`(${path} ->> ${keys[keys.length - 1]!}::text)`;
    switch (definition) {
      case "Numeric":
        return out(sql`hogql_to_float(${text})`, "Float64", true);
      case "Boolean":
        return out(sql`(CASE ${text} WHEN 'true' THEN true WHEN 'false' THEN false END)`, "Bool", true);
      case "DateTime":
        return out(sql`hogql_to_timestamptz(${text})`, "DateTime", true);
      default:
        return out(text, "String", true);
    }
  },
};

/** What the resolver has the printer (./printer.ts) print: queries and expressions, in a scope. */
export interface ExpressionPrinter {
  /** A SELECT or set of SELECTs, with the CTEs visible from where it stands. */
  query(node: HogQLNode, ctes: ReadonlyMap<string, CteDef>): PrintedQuery;
  /** Any expression, nested and measured. */
  expr(node: HogQLNode, scope: Scope): Printed;
  /** A join's ON condition (ClickHouse needs its equalities bare to find the join keys). */
  joinConstraint(node: HogQLNode, scope: Scope): Prisma.Sql;
}

/** One output column of a SELECT list item: its HogQL name and its printed expression. */
export interface SelectColumn {
  name: string;
  printed: Printed;
}

/**
 * The resolver of one query (aliases are numbered across the whole query), owned by its printer.
 * Its methods throw ValidationError (PostHog's wording where it has one) for unknown tables and
 * fields, ambiguous fields, duplicate table aliases, redefined aliases and CTE loops.
 */
export class Resolver {
  private aliasCount = 0;
  private cteCount = 0;
  /** Column CTEs being expanded, one inside the other. */
  private cteExpansions = 0;
  /** The guarded source (a view, a CTE's name or a subquery) of each table reference, printed last. */
  private readonly sources = new Map<TableRef, () => Prisma.Sql>();

  constructor(
    private readonly options: ResolveOptions,
    private readonly printer: ExpressionPrinter,
    private readonly dialect: ResolverDialect = POSTGRES_RESOLVER,
  ) {}

  private nextAlias(prefix = "t"): string {
    this.aliasCount += 1;
    return `${prefix}${this.aliasCount}`;
  }

  /**
   * The scope of a SELECT before its FROM: the CTEs of `outerCtes` and of the SELECT's own `WITH`
   * (column CTEs kept as expressions, subquery CTEs printed as `c1`, `c2`, ...), and the parts of
   * its `WITH` clause.
   * @throws ValidationError for a recursive CTE.
   */
  selectScope(
    node: HogQLNode,
    outerCtes: ReadonlyMap<string, CteDef>,
  ): { scope: Scope; withParts: Prisma.Sql[] } {
    const ctes = new Map(outerCtes);
    const withParts: Prisma.Sql[] = [];
    for (const cte of nodes(node["ctes"])) {
      const name = String(cte["name"]);
      if (cte["cte_type"] === "column") {
        ctes.set(name, { kind: "column", expr: cte["expr"] as HogQLNode });
        continue;
      }
      if (cte["using_key"] || cte["recursive"]) fail("Recursive CTEs are not supported.");
      const printed = this.printer.query(cte["expr"] as HogQLNode, ctes);
      this.cteCount += 1;
      const sqlName = `c${this.cteCount}`;
      withParts.push(sql`${raw(sqlName)} AS (${printed.sql})`);
      ctes.set(name, { kind: "subquery", sqlName, columns: printed.columns });
    }
    const scope: Scope = {
      tables: new Map(),
      order: [],
      aliases: new Map(),
      ctes,
    };
    return { scope, withParts };
  }

  /**
   * Registers the FROM chain's tables in `scope` and returns, per entry, a function printing it
   * (called after every expression is printed, so that lazy person joins are known).
   * @throws ValidationError for SAMPLE, FINAL, table functions, unknown join types, a CROSS JOIN
   *   with a constraint or another join without one, and USING over anything but column names.
   */
  fromEntries(first: HogQLNode | null, scope: Scope): Array<() => Prisma.Sql> {
    const entries: Array<() => Prisma.Sql> = [];
    let current: HogQLNode | null = first;
    let index = 0;
    const constraints: Array<{ ref: TableRef; joinType: string; constraint: HogQLNode | null }> = [];
    while (current) {
      if (current.node !== "JoinExpr") fail(`Unsupported HogQL construct: ${current.node} in FROM.`);
      if (current["sample"]) fail("SAMPLE is not supported.");
      if (current["table_final"]) fail("FINAL is not supported.");
      if (current["table_args"]) fail("Table functions are not supported.");
      const joinNode: HogQLNode = current;
      const ref = this.tableRef(joinNode, scope);
      // The parser names every join after the first, with single spaces (`,` is "CROSS JOIN").
      const joinType = index === 0 ? "" : (lookup(JOIN_TYPES, String(joinNode["join_type"])) ?? "");
      if (index > 0 && !joinType) fail(`Unsupported join type: ${String(joinNode["join_type"])}.`);
      constraints.push({ ref, joinType, constraint: (joinNode["constraint"] as HogQLNode | null) ?? null });
      current = (joinNode["next_join"] as HogQLNode | null) ?? null;
      index += 1;
    }
    // ON constraints are printed once every table is in scope.
    const printedConstraints = constraints.map(({ joinType, constraint }) => {
      if (!joinType || joinType === "CROSS JOIN") {
        if (constraint) fail("A CROSS JOIN takes no constraint.");
        return Prisma.empty;
      }
      if (!constraint) fail(`${joinType} needs an ON or USING constraint.`);
      const expr = constraint["expr"] as HogQLNode;
      if (constraint["constraint_type"] === "USING") {
        const fields = expr.node === "Tuple" ? nodes(expr["exprs"]) : [expr];
        const names = fields.map((field) => {
          const chain = field["chain"] as unknown[] | undefined;
          if (field.node !== "Field" || chain?.length !== 1) fail("USING takes column names.");
          for (const { ref } of constraints) ref.used?.add(String(chain[0]));
          return this.dialect.quote(String(chain[0]));
        });
        return sql` USING (${join(names, ", ")})`;
      }
      return sql` ON ${this.printer.joinConstraint(expr, scope)}`;
    });
    constraints.forEach(({ ref, joinType }, i) => {
      entries.push(() => {
        const source = this.sources.get(ref)!();
        const head = joinType ? sql`${raw(joinType)} ` : Prisma.empty;
        return sql`${head}${source} AS ${raw(ref.sqlAlias)}${printedConstraints[i]!}${this.lazyJoins(ref)}`;
      });
    });
    return entries;
  }

  private lazyJoins(ref: TableRef): Prisma.Sql {
    const parts: Prisma.Sql[] = [];
    const { projectId } = this.options;
    if (ref.personJoin) parts.push(this.dialect.lazyJoin("person", ref.sqlAlias, ref.personJoin, projectId));
    if (ref.filterPersonJoin) {
      parts.push(this.dialect.lazyJoin("filters", ref.sqlAlias, ref.filterPersonJoin, projectId));
    }
    return parts.length > 0 ? join(parts, "") : Prisma.empty;
  }

  private tableRef(joinNode: HogQLNode, scope: Scope): TableRef {
    const table = joinNode["table"] as HogQLNode;
    const sqlAlias = this.nextAlias();
    let ref: TableRef;
    let name: string | null = joinNode["alias"] ? String(joinNode["alias"]) : null;
    if (table.node === "Field") {
      const chain = table["chain"] as unknown[];
      const tableName = chain.map(String).join(".");
      name ??= tableName;
      const cte = chain.length === 1 ? scope.ctes.get(tableName) : undefined;
      if (cte?.kind === "subquery") {
        ref = { sqlAlias, columns: columnsOf(cte.columns) };
        this.sources.set(ref, () => raw(cte.sqlName));
      } else {
        const hogqlTable = HOGQL_TABLES.get(tableName);
        if (!hogqlTable) fail(`Unknown table \`${tableName}\`.`);
        const used = new Set<string>();
        ref = { sqlAlias, columns: hogqlTable.columns, table: hogqlTable, used };
        this.sources.set(ref, () => this.dialect.tableSource(hogqlTable, this.options.projectId, used));
      }
    } else if (table.node === "SelectQuery" || table.node === "SelectSetQuery") {
      const printed = this.printer.query(table, scope.ctes);
      ref = { sqlAlias, columns: columnsOf(printed.columns) };
      this.sources.set(ref, () => sql`(${printed.sql})`);
    } else if (table.node === "Placeholder") {
      return fail("Unresolved placeholder in FROM.");
    } else {
      return fail(
        `Unsupported table expression: ${table.node}. Only tables, CTEs and subqueries can be selected from.`,
      );
    }
    if (name !== null) {
      if (scope.tables.has(name)) fail(`Duplicate table alias: ${name}.`);
      scope.tables.set(name, ref);
    }
    scope.order.push(ref);
    return ref;
  }

  /**
   * One SELECT list item: its output columns (several for `*`), named by the field's last part,
   * the alias, or else the item's HogQL text.
   */
  selectItem(item: HogQLNode, scope: Scope): SelectColumn[] {
    if (item.node === "Field") {
      const chain = (item["chain"] as unknown[]).map(String);
      if (chain[chain.length - 1] === "*") return this.star(chain.slice(0, -1), scope);
      return [{ name: chain[chain.length - 1]!, printed: this.printer.expr(item, scope) }];
    }
    if (item.node === "Alias") return [{ name: String(item["alias"]), printed: this.alias(item, scope) }];
    return [{ name: hogqlText(item), printed: this.printer.expr(item, scope) }];
  }

  private star(prefix: string[], scope: Scope): SelectColumn[] {
    let refs: TableRef[];
    if (prefix.length === 0) refs = scope.order;
    else {
      const ref = scope.tables.get(prefix.join("."));
      if (!ref) fail(`Unable to resolve field: ${[...prefix, "*"].join(".")}`);
      refs = [ref];
    }
    if (refs.length === 0) fail("SELECT * needs a FROM.");
    const columns: SelectColumn[] = [];
    for (const ref of refs) {
      for (const [name, column] of ref.columns) {
        if (column.hidden) continue;
        ref.used?.add(name);
        columns.push({
          name,
          printed: out(sql`${raw(ref.sqlAlias)}.${this.dialect.quote(name)}`, column.type, column.nullable),
        });
      }
    }
    return columns;
  }

  /**
   * `expr AS name`: the expression, which `name` then stands for in the rest of the query.
   * @throws ValidationError "Cannot redefine an alias with the name: …" for a name already defined
   *   (posthog/hogql/resolver.py `visit_alias`).
   */
  alias(node: HogQLNode, scope: Scope): Printed {
    const name = String(node["alias"]);
    if (scope.aliases.has(name)) fail(`Cannot redefine an alias with the name: ${name}`);
    const printed = this.printer.expr(node["expr"] as HogQLNode, scope);
    scope.aliases.set(name, printed);
    return printed;
  }

  /**
   * A field chain (`event`, `e.properties.$browser`, `person.properties.email`, a column CTE's
   * name, an alias) as the expression it stands for.
   * @throws ValidationError `Unable to resolve field: …`, `Ambiguous query. Found multiple sources
   *   for field: …` (posthog/hogql/resolver.py), and for `*` outside the SELECT list and count(*).
   */
  field(chain: string[], scope: Scope): Printed {
    const [head, ...rest] = chain;
    if (head === undefined) return fail("Empty field.");
    if (head === "*") return fail("* is supported only in the SELECT list and in count(*).");
    const alias = rest.length === 0 ? scope.aliases.get(head) : undefined;
    if (alias) return alias;
    const cte = scope.ctes.get(head);
    if (rest.length === 0 && cte?.kind === "column") return this.expandCte(cte.expr, scope);
    const byAlias = scope.tables.get(head);
    if (byAlias && rest.length > 0) return this.fieldOn(byAlias, rest, chain);
    const candidates = scope.order.filter(
      (ref) => ref.columns.has(head) || (head === "person" && ref.table?.hasPersonJoin === true),
    );
    if (candidates.length === 0) fail(`Unable to resolve field: ${chain.join(".")}`);
    if (candidates.length > 1) fail(`Ambiguous query. Found multiple sources for field: ${chain.join(".")}`);
    return this.fieldOn(candidates[0]!, chain, chain);
  }

  /**
   * `properties['$browser']`, an array access by a constant string key over a field chain, as the
   * field `properties.$browser`; null for any other array access (the printer prints it).
   * @throws ValidationError as `field` does.
   */
  arrayAccessField(node: HogQLNode, scope: Scope): Printed | null {
    const property = node["property"] as HogQLNode;
    const chain = fieldChainOf(node["array"] as HogQLNode);
    if (chain && property.node === "Constant" && typeof property["value"] === "string") {
      return this.field([...chain, property["value"] as string], scope);
    }
    return null;
  }

  /**
   * A column CTE's expression where its name is used (PostHog's resolver expands it there).
   * @throws ValidationError `Too many CTE expansions (50+). Probably a CTE loop.` (`WITH x + 1 AS x`).
   */
  private expandCte(expr: HogQLNode, scope: Scope): Printed {
    if (this.cteExpansions >= MAX_CTE_EXPANSIONS) {
      fail(`Too many CTE expansions (${MAX_CTE_EXPANSIONS}+). Probably a CTE loop.`);
    }
    this.cteExpansions += 1;
    try {
      return this.printer.expr(expr, scope);
    } finally {
      this.cteExpansions -= 1;
    }
  }

  private fieldOn(ref: TableRef, path: string[], chain: string[]): Printed {
    const [name, ...rest] = path as [string, ...string[]];
    if (name === "person" && ref.table?.hasPersonJoin && rest.length > 0) {
      ref.personJoin ??= `${ref.sqlAlias}_person`;
      ref.used?.add("distinct_id").add("person_id");
      return this.columnPath(ref.personJoin, PERSON_FIELDS, rest, chain, "person", true);
    }
    ref.used?.add(name);
    return this.columnPath(
      ref.sqlAlias,
      ref.columns,
      path,
      chain,
      ref.table?.name === "persons" ? "person" : ref.table?.name === "events" ? "event" : null,
      false,
    );
  }

  private columnPath(
    alias: string,
    columns: ReadonlyMap<string, TableColumn>,
    path: string[],
    chain: string[],
    propertyKind: "event" | "person" | null,
    joined: boolean,
  ): Printed {
    const [name, ...keys] = path as [string, ...string[]];
    const column = columns.get(name);
    if (!column) fail(`Unable to resolve field: ${chain.join(".")}`);
    const base = sql`${raw(alias)}.${this.dialect.quote(name)}`;
    if (keys.length === 0) return out(base, column.type, column.nullable || joined);
    if (column.type !== "JSON") fail(`Unable to resolve field: ${chain.join(".")}`);
    return this.property(base, keys, name === "properties" ? propertyKind : null);
  }

  /** `properties.a.b`: the JSON value as text (NULL when missing or JSON null), typed by its definition. */
  private property(base: Prisma.Sql, keys: string[], kind: "event" | "person" | null): Printed {
    const definition = kind && keys.length === 1 ? this.options.propertyTypes[kind].get(keys[0]!) : undefined;
    return this.dialect.property(base, keys, definition);
  }

  /**
   * `{filters}` over the first events table of the SELECT (TRUE when no filters were given).
   * @throws ValidationError when the SELECT reads no events table.
   */
  filters(scope: Scope): Printed {
    if (!this.options.filters) return out(sql`TRUE`, "Bool", false);
    const events = scope.order.find((ref) => ref.table?.name === "events");
    if (!events) fail("The {filters} placeholder needs the events table in FROM.");
    events.filterPersonJoin ??= `${events.sqlAlias}_fperson`;
    events.used?.add("distinct_id");
    return out(
      sql`(${this.options.filters({ event: events.sqlAlias, person: events.filterPersonJoin })})`,
      "Bool",
      false,
    );
  }
}

/**
 * The field chain an expression names: a Field's chain, or an ArrayAccess by constant string keys
 * over one (`properties['$browser']` is `properties.$browser`); null for anything else.
 */
function fieldChainOf(node: HogQLNode): string[] | null {
  if (node.node === "Field") return (node["chain"] as unknown[]).map(String);
  if (node.node === "ArrayAccess") {
    const property = node["property"] as HogQLNode;
    const inner = fieldChainOf(node["array"] as HogQLNode);
    if (inner && property.node === "Constant" && typeof property["value"] === "string")
      return [...inner, property["value"] as string];
  }
  return null;
}

function columnsOf(columns: PrintedColumn[]): Map<string, TableColumn> {
  return new Map(columns.map((column) => [column.name, { type: column.type, nullable: column.nullable }]));
}
