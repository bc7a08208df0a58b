/**
 * What a connection's selection asks of its nodes (src/graphql/selection.ts), and the flag parts a
 * selection needs (src/feature-flags/graphql/feature-flag.type.ts): a page reads what its fields
 * show, through fragments and aliases, and nothing a field shows is left out.
 */
import { type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, Kind, parse } from "graphql";
import { expect, it } from "vitest";
import { flagPartsFor } from "../../src/feature-flags/graphql/feature-flag.type.js";
import { selectedFieldNames } from "../../src/graphql/selection.js";

/** The resolve info of the first field of `document`'s operation, as far as the helper reads it. */
function infoOf(document: string): GraphQLResolveInfo {
  const parsed = parse(document);
  const fragments: Record<string, FragmentDefinitionNode> = {};
  let field: FieldNode | undefined;
  for (const definition of parsed.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
    if (definition.kind === Kind.OPERATION_DEFINITION)
      field = definition.selectionSet.selections[0] as FieldNode;
  }
  return { fieldNodes: [field!], fragments } as unknown as GraphQLResolveInfo;
}

it("names the nodes' fields through aliases, inline fragments and named fragments", () => {
  const info = infoOf(`
    query { featureFlags(first: 5) {
      totalCount
      edges { cursor node { k: key ... on FeatureFlag { createdBy { email } } ...More } }
      edges { node { tags } }
    } }
    fragment More on FeatureFlag { status }
  `);
  expect(selectedFieldNames(info, ["edges", "node"])).toEqual(
    new Set(["key", "createdBy", "tags", "status"]),
  );
  expect(selectedFieldNames(info, [])).toEqual(new Set(["totalCount", "edges"]));
});

it("asks a page for the columns and parts its fields show, and nothing for ids", () => {
  expect(flagPartsFor(["id", "databaseId", "activity", "__typename"])).toEqual(new Set());
  expect(flagPartsFor(["key", "active", "version", "createdAt", "lastCalledAt"])).toEqual(
    new Set(["key", "active", "version", "createdAt", "lastCalledAt"]),
  );
  expect(flagPartsFor(["tags", "createdBy", "lastModifiedBy"])).toEqual(
    new Set(["tags", "createdBy", "lastModifiedBy"]),
  );
  expect(flagPartsFor(["status", "isSimpleFlag", "rollbackConditions", "evaluationTags"])).toEqual(
    new Set([
      "filters",
      "deleted",
      "active",
      "lastCalledAt",
      "createdAt",
      "rollbackConditions",
      "evaluationTags",
    ]),
  );
});
