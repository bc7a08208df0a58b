import { describe, expect, it } from "vitest";
import {
  isDistinctIdIllegal,
  isMergeAllowed,
  mergeRequest,
} from "../../../src/ingestion/rules/merge-request.js";
import { ingestEvent } from "../../support/ingest.js";

describe("isDistinctIdIllegal", () => {
  it.each([
    "",
    "   ",
    "anonymous",
    "AnOnYmOuS",
    "'guest'",
    '"distinct_id"',
    "null",
    "'null'",
    "None",
    "NaN",
    "0",
    "[object Object]",
    "undefined",
    "UNDEFINED",
    "x".repeat(401),
  ])("refuses %j", (id) => {
    expect(isDistinctIdIllegal(id)).toBe(true);
  });

  it.each(["user-1", "nan", "NULL", "nonE", "00", "x".repeat(400)])("accepts %j", (id) => {
    expect(isDistinctIdIllegal(id)).toBe(false);
  });
});

describe("mergeRequest", () => {
  it("reads $identify's $anon_distinct_id, merging into the event's distinct id", () => {
    const event = ingestEvent("user", { $anon_distinct_id: "anon" }, { event: "$identify" });
    expect(mergeRequest(event)).toEqual({ otherDistinctId: "anon", mergeIntoDistinctId: "user" });
  });

  it("reads the alias of $create_alias and $merge_dangerously", () => {
    for (const name of ["$create_alias", "$merge_dangerously"]) {
      expect(mergeRequest(ingestEvent("user", { alias: 42 }, { event: name }))).toEqual({
        otherDistinctId: "42",
        mergeIntoDistinctId: "user",
      });
    }
  });

  it("asks no merge for other events, a missing or falsy alias, equal ids or illegal ids", () => {
    expect(mergeRequest(ingestEvent("user", { $anon_distinct_id: "anon" }))).toBeNull();
    expect(mergeRequest(ingestEvent("user", {}, { event: "$identify" }))).toBeNull();
    expect(mergeRequest(ingestEvent("user", { alias: "" }, { event: "$create_alias" }))).toBeNull();
    expect(mergeRequest(ingestEvent("user", { alias: "x" }, { event: "$identify" }))).toBeNull();
    expect(
      mergeRequest(ingestEvent("user", { $anon_distinct_id: "user" }, { event: "$identify" })),
    ).toBeNull();
    expect(mergeRequest(ingestEvent("user", { $anon_distinct_id: null }, { event: "$identify" }))).toBeNull();
    expect(
      mergeRequest(ingestEvent("guest", { $anon_distinct_id: "anon" }, { event: "$identify" })),
    ).toBeNull();
  });
});

describe("isMergeAllowed", () => {
  it("refuses to merge away an identified person except for $merge_dangerously", () => {
    expect(isMergeAllowed("$identify", false)).toBe(true);
    expect(isMergeAllowed("$identify", true)).toBe(false);
    expect(isMergeAllowed("$create_alias", true)).toBe(false);
    expect(isMergeAllowed("$merge_dangerously", true)).toBe(true);
  });
});
