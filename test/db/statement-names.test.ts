/**
 * Prepared-statement names (src/db/statement-names.ts): one stable name per SQL text, and unnamed
 * statements past the bound, so no connection caches statements without end.
 */
import { expect, it } from "vitest";
import { statementNames } from "../../src/db/statement-names.js";

it("names each distinct SQL text once and reuses the name", () => {
  const name = statementNames(10);
  const first = name({ sql: "SELECT 1" });
  expect(first).toMatch(/^sbx_\d+$/);
  expect(name({ sql: "SELECT 2" })).not.toBe(first);
  expect(name({ sql: "SELECT 1" })).toBe(first);
});

it("leaves texts past the bound unnamed, and keeps naming the known ones", () => {
  const name = statementNames(2);
  const a = name({ sql: "SELECT 1" });
  name({ sql: "SELECT 2" });
  expect(name({ sql: "SELECT 3" })).toBe("");
  expect(name({ sql: "SELECT 1" })).toBe(a);
});
