import { describe, expect, it } from "vitest";
import { NotImplementedError } from "../../../src/core/errors.js";
import { readBlastRadiusQuery } from "../../../src/feature-flags/rules/blast-radius.js";

const limits = { maxJsonDepth: 32 };
const read = (body: unknown) => readBlastRadiusQuery(body, limits);
const pro = { key: "plan", type: "person", value: "pro" };

describe("readBlastRadiusQuery (user_blast_radius's input)", () => {
  it("needs a condition, and counts everyone for one without properties", () => {
    expect(() => read({})).toThrow("Missing condition for which to get blast radius");
    for (const condition of [null, {}, [], { properties: [] }, { properties: null }]) {
      expect(read({ condition })).toEqual({ criteria: null, groupTypeIndex: null });
    }
  });

  it("reads a list of properties as AND, or a property group as given", () => {
    expect(read({ condition: { properties: [pro] } }).criteria).toEqual({ type: "AND", values: [pro] });
    const group = { type: "OR", values: [pro, { ...pro, value: "free" }] };
    expect(read({ condition: { properties: group } }).criteria).toEqual(group);
  });

  it("gives $group_key the counted group type; any other filter must carry it", () => {
    const byKey = { key: "$group_key", type: "group", value: "acme" };
    expect(read({ condition: { properties: [byKey] }, group_type_index: 2 })).toEqual({
      criteria: { type: "AND", values: [{ ...byKey, group_type_index: 2 }] },
      groupTypeIndex: 2,
    });
    const wrong = { key: "size", type: "group", value: 1, group_type_index: 1 };
    expect(() => read({ condition: { properties: [wrong] }, group_type_index: 2 })).toThrow(
      "Invalid group type index for feature flag condition.",
    );
    expect(() => read({ condition: { properties: [pro] }, group_type_index: 0 })).toThrow(
      "Invalid group type index for feature flag condition.",
    );
  });

  it("names the field of a malformed condition", () => {
    expect(() => read({ condition: { properties: [{ key: "plan", type: "nope" }] } })).toThrow(
      expect.objectContaining({ attr: "condition__properties__values__0__type" }),
    );
    expect(() => read({ condition: {}, group_type_index: "two" })).toThrow(
      expect.objectContaining({ attr: "group_type_index" }),
    );
  });

  it("refuses conditions on other flags as not implemented: they need flag evaluation", () => {
    const dependency = { key: "1", type: "flag", value: true, operator: "flag_evaluates_to" };
    expect(() => read({ condition: { properties: [dependency] } })).toThrow(NotImplementedError);
  });
});

describe("readBlastRadiusQuery: group_type_index and condition", () => {
  it("takes a group type index from 0 to 4, and null or none for persons", () => {
    expect(read({ condition: {}, group_type_index: 0 }).groupTypeIndex).toBe(0);
    expect(read({ condition: {}, group_type_index: 4 }).groupTypeIndex).toBe(4);
    expect(read({ condition: {}, group_type_index: null }).groupTypeIndex).toBeNull();
  });

  it("refuses a group type index outside 0–4 with DRF's messages", () => {
    expect(() => read({ condition: {}, group_type_index: -1 })).toThrow(
      expect.objectContaining({
        message: "Ensure this value is greater than or equal to 0.",
        code: "min_value",
      }),
    );
    expect(() => read({ condition: {}, group_type_index: 5 })).toThrow(
      expect.objectContaining({
        message: "Ensure this value is less than or equal to 4.",
        code: "max_value",
      }),
    );
  });

  it("refuses a condition that is not an object", () => {
    expect(() => read({ condition: "x" })).toThrow(
      expect.objectContaining({
        message: 'Expected a dictionary of items but got type "str".',
        attr: "condition",
        code: "not_a_dict",
      }),
    );
  });
});

describe("readBlastRadiusQuery: nested property groups", () => {
  it("gives $group_key its group type at any depth", () => {
    const byKey = { key: "$group_key", type: "group", value: "acme" };
    const size = { key: "size", type: "group", value: 1, group_type_index: 2 };
    const nested = { type: "OR", values: [{ type: "AND", values: [byKey, size] }] };
    expect(read({ condition: { properties: nested }, group_type_index: 2 }).criteria).toEqual({
      type: "OR",
      values: [{ type: "AND", values: [{ ...byKey, group_type_index: 2 }, size] }],
    });
  });

  it("counts everyone for groups without filters", () => {
    expect(
      read({ condition: { properties: { type: "OR", values: [{ type: "AND", values: [] }] } } }).criteria,
    ).toBeNull();
  });

  it("refuses a condition on another flag at any depth, saying why", () => {
    const dependency = { key: "1", type: "flag", value: true, operator: "flag_evaluates_to" };
    const nested = { type: "OR", values: [pro, { type: "AND", values: [dependency] }] };
    expect(() => read({ condition: { properties: nested } })).toThrow(
      "Conditions on other flags (flag dependencies) cannot be counted in the database: they need flag evaluation.",
    );
  });

  it("names a malformed properties value under condition__properties", () => {
    expect(() => read({ condition: { properties: "x" } })).toThrow(
      expect.objectContaining({ attr: expect.stringMatching(/^condition__properties/) }),
    );
  });
});

describe("readBlastRadiusQuery: persons and malformed filters", () => {
  it("leaves a $group_key filter alone when counting persons", () => {
    const byKey = { key: "$group_key", type: "person", value: "acme" };
    expect(read({ condition: { properties: [byKey] } }).criteria).toEqual({ type: "AND", values: [byKey] });
  });

  it("answers a null filter, or properties that are no list nor object, with a 400 naming where", () => {
    expect(() => read({ condition: { properties: [null] } })).toThrow(
      expect.objectContaining({ httpStatus: 400, attr: "condition__properties__values__0", code: "null" }),
    );
    expect(() => read({ condition: { properties: 5 } })).toThrow(
      expect.objectContaining({
        attr: "condition__properties",
        code: "not_a_dict",
        message: 'Expected a dictionary of items but got type "int".',
      }),
    );
  });
});
