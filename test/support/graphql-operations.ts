/**
 * GraphQL operations built from the app's schema itself (src/composition.ts), not from a hand list:
 * the fields an authorization test must walk (every root field, and every nested field that declares
 * `extensions.scopes`, reached by its shortest path), their arguments filled from fixtures by name,
 * and a small selection for whatever they return.
 *
 * The schema was built with the CommonJS copy of `graphql` (Pothos loads it through Node), while
 * vitest hands test files the ESM copy; graphql-js refuses to mix the two. `graphqlOfApp` is the copy
 * the schema belongs to: use it for anything that inspects the schema's types.
 */
import { createRequire } from "node:module";
import type {
  GraphQLArgument,
  GraphQLField,
  GraphQLInputField,
  GraphQLInputObjectType,
  GraphQLInputType,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLOutputType,
  ValueNode,
} from "graphql";
import { schema } from "../../src/composition.js";

/** The `graphql` module instance the app's schema was built with (see the module comment). */
export const graphqlOfApp = createRequire(import.meta.url)("graphql") as typeof import("graphql");

const { astFromValue, getNamedType, isInputObjectType, isLeafType, isListType, isNonNullType } = graphqlOfApp;
const { isEnumType, isObjectType, isInterfaceType, isUnionType, Kind, print } = graphqlOfApp;

/** Root operation kinds the app serves. */
export type OperationKind = "query" | "mutation";

/** A field to call: the path of fields from the root to it (no lists in between). */
export interface FieldTarget {
  operation: OperationKind;
  /** Root field first, the target last. */
  path: ReadonlyArray<GraphQLField<unknown, unknown>>;
  /** `a.b.c`, for messages; `node<FeatureFlag>` for a node read of one type. */
  name: string;
  /** For `node(id:)`/`nodes(ids:)`: the `Node` type whose object the id names. */
  nodeType?: GraphQLObjectType;
  /** The scopes the target needs: its field's `extensions.scopes`, or its node type's. */
  scopes: readonly string[] | undefined;
}

/** The scopes a field or object type declares in `extensions.scopes`, or undefined when it declares none. */
export function declaredScopes(
  declarer: GraphQLField<unknown, unknown> | GraphQLObjectType,
): readonly string[] | undefined {
  const scopes = declarer.extensions?.scopes;
  return Array.isArray(scopes) ? scopes : undefined;
}

/** The root fields of each operation kind the schema has. */
export function rootFields(): Array<{ operation: OperationKind; field: GraphQLField<unknown, unknown> }> {
  const roots: Array<[OperationKind, GraphQLObjectType | null | undefined]> = [
    ["query", schema.getQueryType()],
    ["mutation", schema.getMutationType()],
  ];
  return roots.flatMap(([operation, type]) =>
    type ? Object.values(type.getFields()).map((field) => ({ operation, field })) : [],
  );
}

/** The object types implementing `Node` (Relay's refetchable objects). */
export function nodeTypes(): readonly GraphQLObjectType[] {
  const node = schema.getType("Node");
  return node && isInterfaceType(node) ? schema.getImplementations(node).objects : [];
}

/** The object type a field returns when it is an object (not a list, leaf, union or interface). */
function objectTypeOf(type: GraphQLOutputType): GraphQLObjectType | null {
  const inner = isNonNullType(type) ? type.ofType : type;
  return isObjectType(inner) ? inner : null;
}

/** Whether a field reads objects by global id (`node(id:)`, `nodes(ids:)`). */
function readsNodes(field: GraphQLField<unknown, unknown>): boolean {
  return field.args.some((arg) => argumentKind(field.name, arg.name, []) === "node");
}

/**
 * Every root field, and every nested field declaring `extensions.scopes` that is reachable from a
 * root field through object-typed fields (lists and connections' edges are not followed), each by
 * its shortest path, down to `maxDepth` fields. A field reading nodes is one target per `Node` type.
 */
export function fieldTargets(maxDepth = 3): FieldTarget[] {
  const targets: FieldTarget[] = [];
  const seen = new Set<string>();
  let frontier = rootFields().map(({ operation, field }) => ({ operation, path: [field] }));
  for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
    const next: typeof frontier = [];
    for (const { operation, path } of frontier) {
      const field = path[path.length - 1]!;
      const name = path.map((f) => f.name).join(".");
      if (depth === 1 && readsNodes(field)) {
        for (const nodeType of nodeTypes()) {
          targets.push({
            operation,
            path,
            name: `${name}<${nodeType.name}>`,
            nodeType,
            scopes: declaredScopes(nodeType),
          });
        }
      } else if (depth === 1 || declaredScopes(field)) {
        targets.push({ operation, path, name, scopes: declaredScopes(field) });
      }
      const object = operation === "query" ? objectTypeOf(field.type) : null;
      if (!object) continue;
      for (const child of Object.values(object.getFields())) {
        const id = `${object.name}.${child.name}`;
        if (seen.has(id)) continue;
        seen.add(id);
        next.push({ operation, path: [...path, child] });
      }
    }
    frontier = next;
  }
  return targets;
}

/** What arguments are filled with. */
export interface ArgumentFixtures {
  /**
   * Object ids by the kind of object an argument names: `project` for `projectId` and `project(id:)`,
   * `featureFlag` for a flag's `id`, and so on (the kind is found in the field or input type's name).
   */
  objects: Record<string, number | string>;
  /** The global id `node(id:)` and `nodes(ids:)` are called with. */
  node: string;
  /** A fresh value for a required `key` (unique per call). */
  key: () => string;
  /** Values of arguments named neither for an object nor a key, by name (e.g. `personIds`). */
  values?: Record<string, unknown>;
}

/**
 * What an argument or input field names: `project` (`projectId`, or `id` of a field or input named
 * after projects), `node` (`id`/`ids` of `node`/`nodes`), another of `kinds` (`id` of a field or
 * input named after it, e.g. `featureFlag(id:)`, `UpdateFeatureFlagInput.id`; the kind named last
 * wins, the longest of those ending there, so `AddPersonsToStaticCohortInput` names a
 * `staticCohort` and `CreateStaticCohortForFeatureFlagInput` a `featureFlag`), or null.
 */
export function argumentKind(context: string, name: string, kinds: readonly string[]): string | null {
  if (name === "projectId") return "project";
  if ((context === "node" && name === "id") || (context === "nodes" && name === "ids")) return "node";
  if (name !== "id") return null;
  const lower = context.toLowerCase();
  const named = [...kinds, "project"]
    .map((kind) => ({ kind, at: lower.lastIndexOf(kind.toLowerCase()) }))
    .filter(({ at }) => at >= 0)
    .sort((a, b) => b.at + b.kind.length - (a.at + a.kind.length) || b.kind.length - a.kind.length);
  return named[0]?.kind ?? null;
}

/** What a required scalar that names no object is filled with: a plain valid value of its type. */
const PLAIN_VALUES: Record<string, unknown> = {
  String: "x",
  Int: 0,
  Float: 0,
  Boolean: false,
  JSON: {},
  // Far ahead: a scheduled change's time, never reached during a test.
  DateTime: "2099-01-01T00:00:00Z",
};

/**
 * The value of one argument or input field from `fixtures`, or undefined to leave it out: ids of
 * the objects they name (`<kind>Id` names an object of that kind too), a fresh required `key`, required input objects filled the same way, other
 * required scalars and enums a plain valid value; an `ID` naming no known kind of object has none.
 * `context` is the field or input type it belongs to (it tells which object an `id` names).
 * @throws Error for a required argument no fixture fills: add one, so the matrix covers the new field.
 */
export function fill(
  input: GraphQLArgument | GraphQLInputField,
  context: string,
  fixtures: ArgumentFixtures,
): unknown {
  const required = isNonNullType(input.type);
  const named = getNamedType(input.type);
  const kinds = Object.keys(fixtures.objects);
  // An `ID` field naming an object it refers to (`eventDefinitionId` of `AddEventSchemaInput`), not
  // the one it acts on; a value given by name (`values`) wins.
  const referenced = kinds.find((k) => k !== "project" && input.name === `${k}Id`);
  if (referenced !== undefined && named.name === "ID" && fixtures.values?.[input.name] === undefined) {
    return String(fixtures.objects[referenced]);
  }
  const kind = argumentKind(context, input.name, kinds);
  if (kind === "node")
    return isListType(isNonNullType(input.type) ? input.type.ofType : input.type)
      ? [fixtures.node]
      : fixtures.node;
  if (kind !== null && fixtures.objects[kind] !== undefined) {
    const id = fixtures.objects[kind]!;
    return named.name === "ID" ? String(id) : id;
  }
  const given = fixtures.values?.[input.name];
  if (given !== undefined) return given;
  if (input.name === "key" && named.name === "String" && required) return fixtures.key();
  if (isInputObjectType(named) && required) return requiredFields(named, fixtures);
  if (required && named.name !== "ID") {
    // An enum's internal value (what `astFromValue` prints back as its name), e.g. `golang` for GOLANG.
    const plain = isEnumType(named) ? named.getValues()[0]?.value : PLAIN_VALUES[named.name];
    if (plain !== undefined) return plain;
  }
  if (required) {
    throw new Error(
      `no fixture fills the required argument ${context}(${input.name}: ${String(input.type)}): ` +
        "teach test/support/graphql-operations.ts `fill` what it names",
    );
  }
  return undefined;
}

/** An object of input type `type` with just its required fields, filled as `fill` fills them. */
export function requiredFields(
  type: GraphQLInputObjectType,
  fixtures: ArgumentFixtures,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.values(type.getFields())
      .map((child) => [child.name, fill(child, type.name, fixtures)] as const)
      .filter(([, value]) => value !== undefined),
  );
}

/**
 * `value` as a literal of input type `type`, as `astFromValue` prints it, but a `DateTime` as its text
 * (graphql-scalars' `DateTime` serialises to a `Date`, which `astFromValue` cannot print), inside
 * input objects and lists too.
 */
function literal(value: unknown, type: GraphQLInputType): ValueNode | null | undefined {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (value === null || value === undefined) return astFromValue(value, type);
  if (isListType(inner) && Array.isArray(value)) {
    const values = value.map((item) => literal(item, inner.ofType));
    return values.every((item) => item) ? { kind: Kind.LIST, values: values as ValueNode[] } : null;
  }
  if (isInputObjectType(inner) && typeof value === "object") {
    const fields = inner.getFields();
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    const printed = entries.map(
      ([name, v]) => [name, fields[name] ? literal(v, fields[name].type) : null] as const,
    );
    if (printed.some(([, node]) => !node)) return null;
    return {
      kind: Kind.OBJECT,
      fields: printed.map(([name, node]) => ({
        kind: Kind.OBJECT_FIELD,
        name: { kind: Kind.NAME, value: name },
        value: node as ValueNode,
      })),
    };
  }
  if (getNamedType(inner).name === "DateTime") return { kind: Kind.STRING, value: String(value) };
  return astFromValue(value, type);
}

/** The arguments of `field`, as GraphQL source (`(a: 1, b: "x")`), or "" when none are filled. */
function argumentsSource(field: GraphQLField<unknown, unknown>, fixtures: ArgumentFixtures): string {
  const parts = field.args.flatMap((arg) => {
    const value = fill(arg, field.name, fixtures);
    if (value === undefined) return [];
    const ast = literal(value, arg.type);
    if (!ast) throw new Error(`cannot print ${String(value)} as ${String(arg.type)}`);
    return [`${arg.name}: ${print(ast)}`];
  });
  return parts.length ? `(${parts.join(", ")})` : "";
}

/** Whether a type implements the `Error` interface of typed errors. */
function isErrorType(type: GraphQLNamedType): boolean {
  return isObjectType(type) && type.getInterfaces().some((i) => i.name === "Error");
}

/** Whether `field` answers expected failures as typed results (a union with `Error` members). */
export function hasTypedErrors(field: GraphQLField<unknown, unknown>): boolean {
  const named = getNamedType(field.type);
  return isUnionType(named) && named.getTypes().some(isErrorType);
}

/** A small selection of `type`: `__typename`, an `id`, and for unions each member's fields one level deep. */
function selection(type: GraphQLOutputType, depth = 0): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return "";
  if (isUnionType(named)) {
    const members = named.getTypes().map((member) => {
      if (isErrorType(member)) return "";
      const fields = Object.values(member.getFields())
        .filter((f) => !f.args.some((a) => isNonNullType(a.type)))
        .map((f) => `${f.name}${selection(f.type, depth + 1)}`);
      return `... on ${member.name} { __typename ${fields.join(" ")} }`;
    });
    return ` { __typename ... on Error { message code } ${members.join(" ")} }`;
  }
  if ((isObjectType(named) || isInterfaceType(named)) && depth < 2) {
    const id = named.getFields()["id"];
    const idLeaf = id && isLeafType(getNamedType(id.type)) && !isListType(id.type) ? " id" : "";
    return ` { __typename${idLeaf} }`;
  }
  return " { __typename }";
}

/** The document calling `target` with arguments from `fixtures`. */
export function documentFor(target: FieldTarget, fixtures: ArgumentFixtures): string {
  let body = "";
  for (let i = target.path.length - 1; i >= 0; i--) {
    const field = target.path[i]!;
    const inner = i === target.path.length - 1 ? selection(field.type) : ` { __typename ${body} }`;
    body = `${field.name}${argumentsSource(field, fixtures)}${inner}`;
  }
  return `${target.operation} { ${body} }`;
}

/** Whether any of `fields` takes an argument (or a required input's field) naming `kind` (see `argumentKind`). */
export function takesArgument(
  fields: ReadonlyArray<GraphQLField<unknown, unknown>>,
  kind: string,
  kinds: readonly string[],
): boolean {
  const inputs = (context: string, list: ReadonlyArray<GraphQLArgument | GraphQLInputField>): boolean =>
    list.some((input) => {
      if (argumentKind(context, input.name, kinds) === kind) return true;
      const named = getNamedType(input.type);
      return (
        isInputObjectType(named) &&
        isNonNullType(input.type) &&
        inputs(named.name, Object.values(named.getFields()))
      );
    });
  return fields.some((field) => inputs(field.name, field.args));
}

/** One variable of a document from `variablesDocumentFor`: its name and the argument it feeds. */
export interface DocumentVariable {
  name: string;
  arg: GraphQLArgument;
  /** The field the argument belongs to (it tells which object an `id` names). */
  context: string;
}

/**
 * The document calling `target` with every argument of every field on its path as a variable
 * (`$v0_input`...), so that any value, well-typed or not, reaches the server's variable coercion.
 */
export function variablesDocumentFor(target: FieldTarget): { query: string; variables: DocumentVariable[] } {
  const variables: DocumentVariable[] = [];
  let body = "";
  for (let i = target.path.length - 1; i >= 0; i--) {
    const field = target.path[i]!;
    const args = field.args.map((arg) => {
      const name = `v${i}_${arg.name}`;
      variables.push({ name, arg, context: field.name });
      return `${arg.name}: $${name}`;
    });
    const inner = i === target.path.length - 1 ? selection(field.type) : ` { __typename ${body} }`;
    body = `${field.name}${args.length ? `(${args.join(", ")})` : ""}${inner}`;
  }
  const declarations = variables.map(({ name, arg }) => `$${name}: ${String(arg.type)}`);
  const header = declarations.length ? `(${declarations.join(", ")})` : "";
  return { query: `${target.operation}${header} { ${body} }`, variables };
}
