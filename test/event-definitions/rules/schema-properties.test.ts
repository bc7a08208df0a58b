/**
 * How an event's schema properties merge over its property groups (rules/schema-properties.ts):
 * one per name, by name, required only when every group declaring it requires it, the first type kept.
 */
import { describe, expect, it } from "vitest";
import { mergeSchemaProperties } from "../../../src/event-definitions/rules/schema-properties.js";

describe("mergeSchemaProperties", () => {
  it("keeps one property per name, sorted by name", () => {
    expect(
      mergeSchemaProperties([
        { name: "b", propertyType: "String", isRequired: true },
        { name: "a", propertyType: "Numeric", isRequired: false },
        { name: "b", propertyType: "String", isRequired: true },
      ]),
    ).toEqual([
      { name: "a", propertyType: "Numeric", isRequired: false },
      { name: "b", propertyType: "String", isRequired: true },
    ]);
  });

  it("makes a property optional when any group declares it optional, whatever the order", () => {
    const required = { name: "plan", propertyType: "String", isRequired: true } as const;
    const optional = { name: "plan", propertyType: "String", isRequired: false } as const;
    expect(mergeSchemaProperties([required, optional])).toEqual([optional]);
    expect(mergeSchemaProperties([optional, required])).toEqual([optional]);
  });

  it("keeps the first declaration's type when groups disagree, and does not change its input", () => {
    const declared = [
      { name: "at", propertyType: "DateTime", isRequired: true },
      { name: "at", propertyType: "String", isRequired: false },
    ] as const;
    const input = declared.map((p) => ({ ...p }));
    expect(mergeSchemaProperties(input)).toEqual([
      { name: "at", propertyType: "DateTime", isRequired: false },
    ]);
    expect(input).toEqual(declared);
  });

  it("answers nothing for nothing", () => {
    expect(mergeSchemaProperties([])).toEqual([]);
  });
});
