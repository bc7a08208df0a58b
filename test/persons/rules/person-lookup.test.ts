import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/core/errors.js";
import { parsePersonLookup, pythonUuid } from "../../../src/persons/rules/person-lookup.js";

const UUID = "0190aa00-1111-2222-3333-444455556666";

describe("person path ids (posthog/api/utils.py get_pk_or_uuid)", () => {
  it("reads what Python's UUID() reads as a uuid, in canonical form", () => {
    expect(pythonUuid(UUID)).toBe(UUID);
    expect(pythonUuid(UUID.toUpperCase())).toBe(UUID);
    expect(pythonUuid(UUID.replaceAll("-", ""))).toBe(UUID);
    expect(pythonUuid(`{${UUID}}`)).toBe(UUID);
    expect(pythonUuid(`urn:uuid:${UUID}`)).toBe(UUID);
    expect(pythonUuid(`${UUID}0`)).toBeNull();
    expect(pythonUuid("12")).toBeNull();
  });

  it("reads anything else as an integer id, none where no row can have it", () => {
    expect(parsePersonLookup(UUID)).toEqual({ uuid: UUID });
    expect(parsePersonLookup("12")).toEqual({ id: 12n });
    expect(parsePersonLookup(" +12 ")).toEqual({ id: 12n });
    expect(parsePersonLookup("0")).toBeNull();
    expect(parsePersonLookup("-3")).toBeNull();
    expect(parsePersonLookup("99999999999999999999")).toBeNull();
  });

  it("refuses an id that is neither, pointing at the distinct-id filter", () => {
    expect(() => parsePersonLookup("ada@example.com")).toThrow(ValidationError);
    expect(() => parsePersonLookup("1.5")).toThrow(
      "The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=1.5 instead.",
    );
  });
});
