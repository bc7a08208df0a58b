import { describe, expect, it } from "vitest";
import { csvMembers, csvText } from "../../../src/cohorts/rules/csv-members.js";

const fails = (text: string) => {
  try {
    csvMembers(text);
  } catch (error) {
    return (error as { detail: string; attr: string }).detail;
  }
  return null;
};

describe("csvMembers (PostHog's CSV column rules)", () => {
  it("reads a single column as distinct ids, the first row included, skipping blanks", () => {
    expect(csvMembers("ann\n\n  ben \n,\n")).toEqual({ idType: "distinct_id", ids: ["ann", "ben"] });
  });

  it("reads a single column under a person_id or email header as that kind", () => {
    expect(csvMembers("Person .id\nabc\n")).toEqual({ idType: "person_id", ids: ["abc"] });
    expect(csvMembers("E-mail\na@b.c\n")).toEqual({ idType: "email", ids: ["a@b.c"] });
  });

  it("picks person_id over distinct_id over email in a multi-column file, skipping short rows", () => {
    expect(csvMembers("email,distinct_id\nx@y.z,one\nshort\n")).toEqual({
      idType: "distinct_id",
      ids: ["one"],
    });
    expect(csvMembers('name,person-id\n"Doe, Jane",u1\n')).toEqual({ idType: "person_id", ids: ["u1"] });
  });

  it("refuses empty files, files without an id column and files without ids", () => {
    expect(fails("\n\n")).toBe("CSV file is empty. Please upload a CSV file with at least one row of data.");
    expect(fails("name,plan\nx,y\n")).toContain("Found columns: name, plan");
    expect(fails("email\n")).toContain("CSV file contains no valid person IDs");
    expect(fails('"unterminated\n')).toBe(
      "CSV file format is invalid. Please check your file format and try again.",
    );
  });

  it("takes UTF-8 only, without NUL characters", () => {
    expect(csvText(Buffer.from("\uFEFFann\n"))).toBe("ann\n");
    expect(() => csvText(Buffer.from([0xff, 0xfe, 0x41]))).toThrow(/encoding is not supported/);
    expect(() => csvText("a\u0000b")).toThrow(/Null characters/);
  });
});
