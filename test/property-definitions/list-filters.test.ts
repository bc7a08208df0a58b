/**
 * The property-definition list's filters as the service parses them from either door
 * (src/property-definitions/property-definitions.schemas.ts): PostHog's defaults, DRF's reading of
 * empty query values, JSON lists as text or lists, and the refusals of PostHog's `validate`.
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import { parseInput } from "../../src/core/validation.js";
import { propertyDefinitionListFiltersSchema } from "../../src/property-definitions/property-definitions.schemas.js";

const parse = (query: Record<string, unknown>) => parseInput(propertyDefinitionListFiltersSchema, query);

describe("propertyDefinitionListFiltersSchema", () => {
  it("defaults to event properties with no filter", () => {
    expect(parse({})).toEqual({
      kind: "event",
      groupTypeIndex: -1,
      searchTerms: [],
      names: null,
      numericalOnly: false,
      eventNames: null,
      filterByEventNames: false,
      excludedNames: [],
      excludeCoreProperties: false,
      excludeHidden: false,
    });
  });

  it("reads empty query values as absent, as DRF does for a query string", () => {
    expect(
      parse({
        type: "",
        group_type_index: "",
        is_numerical: "",
        event_names: "",
        properties: "",
        excluded_properties: "",
      }),
    ).toMatchObject({
      kind: "event",
      groupTypeIndex: -1,
      names: null,
      eventNames: null,
      numericalOnly: false,
    });
  });

  it("takes JSON lists as text (REST) or as lists (GraphQL), and names comma-separated or listed", () => {
    const fromRest = parse({ event_names: '["a","a",1]', excluded_properties: '["x"]', properties: "p,q" });
    const fromGraphql = parse({
      event_names: ["a", "1"],
      excluded_properties: ["x"],
      properties: ["p", "q"],
    });
    expect(fromRest).toMatchObject({ eventNames: ["a", "1"], excludedNames: ["x"], names: ["p", "q"] });
    expect(fromGraphql).toMatchObject({ eventNames: ["a", "1"], excludedNames: ["x"], names: ["p", "q"] });
    expect(parse({ event_names: "[]" }).eventNames).toBeNull();
  });

  it("reads DRF's boolean spellings and splits search terms on whitespace", () => {
    expect(
      parse({ is_numerical: "True", is_feature_flag: "0", exclude_hidden: "yes", search: "  a   B " }),
    ).toMatchObject({
      numericalOnly: true,
      featureFlag: false,
      excludeHidden: true,
      searchTerms: ["a", "B"],
    });
  });

  it("needs a group type index (0 to 4) for group properties and refuses it for the others", () => {
    expect(parse({ type: "group", group_type_index: "0" })).toMatchObject({
      kind: "group",
      groupTypeIndex: 0,
    });
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ type: "group" }, "`group_type_index` must be set for `group` type"],
      [{ type: "person", group_type_index: 1 }, "`group_type_index` can only set for `group` type"],
      [{ type: "group", group_type_index: 9 }, "Invalid value for `group_type_index`"],
      [{ type: "session", event_names: '["a"]' }, "`event_names` can only be set for `event` type"],
    ];
    for (const [query, message] of refusals) {
      expect(() => parse(query)).toThrow(new ValidationError(message));
      try {
        parse(query);
      } catch (error) {
        expect((error as ValidationError).attr).toBeNull();
      }
    }
  });
});
