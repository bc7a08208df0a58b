/**
 * Names for PostgreSQL prepared statements, so that node-postgres parses each distinct statement
 * once per connection and then only binds and executes it (`@prisma/adapter-pg`'s
 * `statementNameGenerator`; PostgreSQL docs, "Extended Query" protocol). Without names every
 * statement is parsed, analysed and planned again on each execution, and the driver sends and
 * awaits the extra messages: issue 6 §4's profile of the single read showed that cost per statement.
 *
 * Bounded: the first `limit` distinct SQL texts get a name; any later text runs unnamed (the empty
 * name, which node-postgres treats as an unnamed statement), so statements whose text varies
 * without end (e.g. a list of values spelled out) cannot grow the cache of every connection without
 * bound. Safe against schema changes only because migrations run before the server serves.
 */
import type { SqlQuery } from "@prisma/driver-adapter-utils";

/** How many distinct statement texts a process names by default. */
const NAMED_STATEMENTS_LIMIT = 1000;

/**
 * A `statementNameGenerator` for `PrismaPg`: the same name for the same SQL text (`sbx_<n>`), the
 * empty name (unnamed) once `limit` texts are named.
 */
export function statementNames(limit = NAMED_STATEMENTS_LIMIT): (query: Pick<SqlQuery, "sql">) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    if (known !== undefined) return known;
    if (names.size >= limit) return "";
    const name = `sbx_${names.size}`;
    names.set(sql, name);
    return name;
  };
}
