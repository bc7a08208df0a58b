import { describe, expect, it } from "vitest";
import {
  groupIdentify,
  groupTypesNamed,
  nextFreeGroupTypeIndex,
  updateGroupProperties,
} from "../../../src/ingestion/rules/groups.js";
import { ingestEvent } from "../../support/ingest.js";

const identify = (props: Record<string, unknown>) => ingestEvent("u", props, { event: "$groupidentify" });

describe("groupTypesNamed", () => {
  it("names the identified type before the $groups keys, each once", () => {
    const event = identify({
      $group_type: "company",
      $group_key: "a",
      $group_set: {},
      $groups: { team: "t", company: "a" },
    });
    expect(groupTypesNamed(event)).toEqual(["company", "team"]);
  });

  it("names an identified type without $group_set after the $groups keys", () => {
    const event = identify({ $group_type: "company", $group_key: "a", $groups: { team: "t" } });
    expect(groupTypesNamed(event)).toEqual(["team", "company"]);
  });

  it("ignores $group_type outside $groupidentify, non-object $groups and over-long names", () => {
    expect(groupTypesNamed(ingestEvent("u", { $group_type: "company", $group_set: {} }))).toEqual([]);
    expect(groupTypesNamed(ingestEvent("u", { $groups: ["company"] }))).toEqual([]);
    expect(groupTypesNamed(ingestEvent("u", { $groups: { ["x".repeat(401)]: "k", ok: "k" } }))).toEqual([
      "ok",
    ]);
  });
});

describe("nextFreeGroupTypeIndex", () => {
  it("takes the lowest free index of 0–4, none once five are taken", () => {
    expect(nextFreeGroupTypeIndex(new Set())).toBe(0);
    expect(nextFreeGroupTypeIndex(new Set([0, 2]))).toBe(1);
    expect(nextFreeGroupTypeIndex(new Set([0, 1, 2, 3, 4]))).toBeNull();
  });
});

describe("groupIdentify", () => {
  it("reads type, stringified key and $group_set", () => {
    expect(groupIdentify(identify({ $group_type: "company", $group_key: 7, $group_set: { a: 1 } }))).toEqual({
      groupType: "company",
      groupKey: "7",
      set: { a: 1 },
    });
  });

  it("replaces NUL in keys and defaults $group_set to {}", () => {
    expect(groupIdentify(identify({ $group_type: "c", $group_key: "a\u0000b" }))).toEqual({
      groupType: "c",
      groupKey: "a\uFFFDb",
      set: {},
    });
  });

  it("is null for other events, falsy or non-text types and keys", () => {
    expect(groupIdentify(ingestEvent("u", { $group_type: "c", $group_key: "k" }))).toBeNull();
    expect(groupIdentify(identify({ $group_type: "", $group_key: "k" }))).toBeNull();
    expect(groupIdentify(identify({ $group_type: "c", $group_key: 0 }))).toBeNull();
    expect(groupIdentify(identify({ $group_type: "c", $group_key: { id: 1 } }))).toBeNull();
    expect(groupIdentify(identify({ $group_type: 3, $group_key: "k" }))).toBeNull();
  });
});

describe("updateGroupProperties", () => {
  it("sets changed and new keys, keeps the rest, and reports whether anything changed", () => {
    expect(updateGroupProperties({ a: 1, b: [1] }, { a: 2, b: [1], c: null })).toEqual({
      properties: { a: 2, b: [1], c: null },
      changed: true,
    });
    expect(updateGroupProperties({ a: { x: 1 } }, { a: { x: 1 } })).toEqual({
      properties: { a: { x: 1 } },
      changed: false,
    });
  });
});
