/**
 * The HogQL tables over ClickHouse's analytics tables (prisma/clickhouse/migrations, PostHog's
 * `posthog/hogql/database/schema/events.py`, `persons.py`, `person_distinct_ids.py`), and how the
 * resolver (../resolver.ts) prints names and properties for ClickHouse. Same tables, columns and
 * types as ../tables.ts; each view is a subquery that holds the project guard
 * (`team_id = {pN:Int64}`) inside it, so every table reference, in any join, subquery or CTE,
 * reads the project's rows only.
 *
 * - `events`: `events FINAL` (duplicates of a uuid merged), timestamps in the project's timezone
 *   (`toTimeZone`, as PostHog's `events.timestamp` field), `person_id` the distinct id's current
 *   person (latest `person_distinct_id2` row by `version`, not deleted), else the person stored
 *   at capture (NULL when neither), as PostHog's person-id overrides read.
 * - `persons`: each person's latest row by `version` (`argMax`), deleted ones left out.
 * - `person_distinct_ids`: each distinct id's current mapping, as `events.person_id` reads it.
 * - `properties.a.b`: PostHog's JSON text extraction (`replaceRegexpAll(nullIf(nullIf(
 *   JSONExtractRaw(properties, 'a', 'b'), ''), 'null'), '^"|"$', '')`, keys bound), typed by
 *   the project's property definitions as posthog/hogql/transforms/property_types.py prints them.
 *
 * A SELECT with a join here (`events.person_id`, the lazy person join) and every SELECT of the
 * printer with a join sets `join_use_nulls = 1`: a missing match is NULL, as the columns' types say.
 */
import { Prisma } from "../../../generated/prisma/client.js";
import { out } from "../functions/shared.js";
import type { ResolverDialect } from "../resolver.js";
import { param, quoteClickHouse } from "./params.js";

const sql = Prisma.sql;
const raw = Prisma.raw;

/** The SETTINGS ending every SELECT with a join: unmatched rows' columns are NULL. */
export const JOIN_SETTINGS = raw("SETTINGS join_use_nulls = 1");

/** The project guard's value, `{pN:Int64}`. */
function team(projectId: number): Prisma.Sql {
  return param(projectId, "Int64");
}

/** Each distinct id's current person: the latest row by `version`, unless that row deletes it. */
function currentDistinctIds(projectId: number): Prisma.Sql {
  return sql`(SELECT d.distinct_id AS distinct_id, argMax(d.person_id, d.version) AS person_id
    FROM person_distinct_id2 AS d WHERE d.team_id = ${team(projectId)}
    GROUP BY d.distinct_id HAVING argMax(d.is_deleted, d.version) = 0)`;
}

/**
 * The guarded view of each HogQL table (../tables.ts names and columns) in ClickHouse. `events`
 * joins the current distinct ids only when the query reads `person_id` (`used`), as PostHog joins
 * its overrides only then.
 */
function tableSource(
  name: string,
  projectId: number,
  timezone: Prisma.Sql,
  used: ReadonlySet<string>,
): Prisma.Sql {
  switch (name) {
    case "events": {
      const current = used.has("person_id");
      return sql`(SELECT e.uuid AS uuid, e.event AS event, e.properties AS properties,
    toTimeZone(e.timestamp, ${timezone}) AS timestamp, e.distinct_id AS distinct_id,
    e.elements_chain AS elements_chain, toTimeZone(e.created_at, ${timezone}) AS created_at,
    ${current ? raw("coalesce(pdi.person_id, e.person_id)") : raw("e.person_id")} AS person_id, e.\`$session_id\` AS \`$session_id\`
    FROM events AS e FINAL${current ? sql` LEFT JOIN ${currentDistinctIds(projectId)} AS pdi ON pdi.distinct_id = e.distinct_id` : Prisma.empty}
    WHERE e.team_id = ${team(projectId)}${current ? sql` ${JOIN_SETTINGS}` : Prisma.empty})`;
    }
    case "persons":
      return sql`(SELECT p.id AS id, toTimeZone(argMax(p.created_at, p.version), ${timezone}) AS created_at,
    argMax(p.properties, p.version) AS properties, toBool(argMax(p.is_identified, p.version)) AS is_identified
    FROM person AS p WHERE p.team_id = ${team(projectId)}
    GROUP BY p.id HAVING argMax(p.is_deleted, p.version) = 0)`;
    case "person_distinct_ids":
      return currentDistinctIds(projectId);
    default:
      throw new Error(`No ClickHouse view for the HogQL table ${name}.`);
  }
}

/** The JSON text PostHog extracts for `properties.a.b` (keys bound): NULL when missing or JSON null. */
export function propertyText(base: Prisma.Sql, keys: readonly string[]): Prisma.Sql {
  const path = Prisma.join(
    keys.map((key) => param(key, "String")),
    ", ",
  );
  return sql`replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(${base}, ${path}), ''), 'null'), '^"|"$', '')`;
}

/**
 * The resolver's ClickHouse names and tables for a project in `timezone` (bound): backticked
 * identifiers, the guarded views above, the lazy `person` join (the persons view, on the event's
 * current person), and properties as PostHog prints them. `{filters}` never reaches a lazy join
 * here: the ClickHouse printer refuses it first.
 */
export function clickHouseResolver(timezone: string): ResolverDialect {
  const tz = param(timezone, "String");
  return {
    quote: quoteClickHouse,
    tableSource: (table, projectId, used) => tableSource(table.name, projectId, tz, used),
    lazyJoin(kind, eventsAlias, joinAlias, projectId) {
      if (kind !== "person") throw new Error("{filters} has no lazy join on ClickHouse.");
      const persons = tableSource("persons", projectId, tz, new Set());
      return sql` LEFT JOIN ${persons} AS ${raw(joinAlias)} ON ${raw(joinAlias)}.id = ${raw(eventsAlias)}.person_id`;
    },
    property(base, keys, definition) {
      const text = propertyText(base, keys);
      switch (definition) {
        case "Numeric":
          return out(sql`accurateCastOrNull(${text}, 'Float64')`, "Float64", true);
        case "Boolean":
          return out(
            sql`accurateCastOrNull(transform(toString(${text}), ['true', 'false'], [1, 0], NULL), 'Boolean')`,
            "Bool",
            true,
          );
        case "DateTime":
          return out(sql`parseDateTime64BestEffortOrNull(${text}, 6, ${tz})`, "DateTime", true);
        default:
          return out(text, "String", true);
      }
    },
  };
}
