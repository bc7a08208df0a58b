/**
 * A partial update's columns (src/db/row-change.ts): the named fields that are not undefined (null
 * ones included: they clear the column), nothing else of the change, and `updated_at` moved.
 */
import { expect, it } from "vitest";
import { definedFields, writeRowChange } from "../../src/db/row-change.js";

it("keeps the named fields that are not undefined, nulls included, and nothing else", () => {
  const change = { name: "n", description: null, query: undefined, extra: 1 };
  expect(definedFields(change, ["name", "description", "query"])).toEqual({ name: "n", description: null });
  expect(definedFields(change, [])).toEqual({});
});

it("writes the defined fields over the row with updatedAt, in one update by id", async () => {
  const calls: unknown[] = [];
  const table = {
    update: async (args: unknown) => {
      calls.push(args);
      return "row";
    },
  };
  const now = new Date("2026-01-02T03:04:05Z");
  const include = { createdBy: true };
  const written = await writeRowChange(
    table,
    7,
    { url: "https://x", enabled: undefined },
    ["url", "enabled"],
    now,
    include,
  );
  expect(written).toBe("row");
  expect(calls).toEqual([{ where: { id: 7 }, data: { url: "https://x", updatedAt: now }, include }]);
});
