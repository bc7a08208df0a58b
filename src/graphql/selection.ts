/**
 * What a resolver's selection asks for further down, so that a read can leave out what no selected
 * field shows (a page of flags without their filters, users or tags when none is selected).
 */
import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionNode } from "graphql";

/** The fields of `selections`, through fragment spreads and inline fragments, into `into`. */
function collectFields(
  selections: readonly SelectionNode[],
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  into: FieldNode[],
): void {
  for (const selection of selections) {
    if (selection.kind === "Field") into.push(selection);
    else if (selection.kind === "InlineFragment")
      collectFields(selection.selectionSet.selections, fragments, into);
    else {
      const fragment = fragments[selection.name.value];
      if (fragment) collectFields(fragment.selectionSet.selections, fragments, into);
    }
  }
}

/** The fields selected directly below `fields` (all their occurrences merged). */
function childFields(
  fields: readonly FieldNode[],
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
): FieldNode[] {
  const children: FieldNode[] = [];
  for (const field of fields) {
    if (field.selectionSet) collectFields(field.selectionSet.selections, fragments, children);
  }
  return children;
}

/**
 * The names (not aliases) of the fields the resolver's selection asks for at `path` below it, e.g.
 * `["edges", "node"]` for the nodes of a connection. Fragments and inline fragments count whatever
 * their type condition, and `@skip`/`@include` are not judged: the set may hold more than will be
 * resolved, never less, so a read that brings what these names need is always enough.
 */
export function selectedFieldNames(info: GraphQLResolveInfo, path: readonly string[]): Set<string> {
  let level: FieldNode[] = [...info.fieldNodes];
  for (const name of path) {
    level = childFields(level, info.fragments).filter((field) => field.name.value === name);
  }
  return new Set(childFields(level, info.fragments).map((field) => field.name.value));
}
