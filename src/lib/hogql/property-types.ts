/**
 * The property types `properties.x` is typed by (./resolver.ts; PostHog
 * `posthog/hogql/transforms/property_types.py`): for the property names a query mentions, the
 * project's event (type 1) and person (type 2) property definitions whose type is `Numeric`,
 * `Boolean` or `DateTime`. One statement.
 */
import type { PrismaClient } from "../../generated/prisma/client.js";
import type { HogQLNode } from "./parser.js";

/**
 * Property types from the project's property definitions, by property name: event (type 1) and
 * person (type 2) definitions, each `Numeric`, `Boolean` or `DateTime` (`loadPropertyTypes`).
 */
export interface PropertyTypes {
  event: ReadonlyMap<string, string>;
  person: ReadonlyMap<string, string>;
}

function collectNames(node: unknown, names: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectNames(item, names);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as HogQLNode;
  if (record.node === "Field") {
    for (const part of record["chain"] as unknown[]) if (typeof part === "string") names.add(part);
  } else if (record.node === "Constant" && typeof record["value"] === "string") {
    names.add(record["value"] as string);
  }
  for (const value of Object.values(record)) collectNames(value, names);
}

/** Every name in field chains and every string constant of the AST (a superset of the property keys). */
export function mentionedNames(ast: HogQLNode): string[] {
  const names = new Set<string>();
  collectNames(ast, names);
  return [...names];
}

/** The typed property definitions of `projectId` among `names` (`mentionedNames` of the query). */
export async function loadPropertyTypes(
  db: PrismaClient,
  projectId: number,
  names: readonly string[],
): Promise<PropertyTypes> {
  const event = new Map<string, string>();
  const person = new Map<string, string>();
  if (names.length === 0) return { event, person };
  const rows = await db.propertyDefinition.findMany({
    where: {
      projectId,
      type: { in: [1, 2] },
      name: { in: names.slice(0, 10_000) },
      propertyType: { in: ["Numeric", "Boolean", "DateTime"] },
    },
    select: { name: true, type: true, propertyType: true },
  });
  for (const row of rows) (row.type === 1 ? event : person).set(row.name, row.propertyType!);
  return { event, person };
}
