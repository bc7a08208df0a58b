/**
 * Compiled execution: each document is compiled to JavaScript once by graphql-jit (through
 * `@envelop/graphql-jit`) and the compiled function runs every later request with the same text
 * (yoga's parser cache hands back the same parsed document, which keys the compiled one). It skips
 * graphql-js's per-field interpretation, the largest cost of a page of 100 flags (issue 6 §4's
 * profile: graphql-js and yoga ≈ 28% of the CPU before, under 10% after).
 *
 * graphql-jit reports a field error with `locations` but without the AST `nodes` or `positions`
 * from which graphql-js, yoga's masking and yoga's result serialiser compute locations, so they
 * would drop them; `useErrorPositions` gives each such error the document's source and positions,
 * so every error still says where in the document it happened (GraphQL spec §7.1.2 "Errors").
 */
import { useGraphQlJit } from "@envelop/graphql-jit";
import {
  type ExecutionArgs,
  type GraphQLError,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  type Source,
} from "graphql";
import { createGraphQLError, type Plugin } from "graphql-yoga";

/** The offset in `body` of a 1-based `line` and `column`, as graphql's lexer counts lines. */
function positionOf(body: string, line: number, column: number): number {
  const lineBreak = /\r\n|[\n\r]/g;
  let start = 0;
  for (let current = 1; current < line; current++) {
    const match = lineBreak.exec(body);
    if (!match) break;
    start = match.index + match[0].length;
  }
  return start + column - 1;
}

/** `error` with `source` and positions for its `locations`, when it has locations but neither nodes nor positions. */
function withPositions(error: GraphQLError, source: Source): GraphQLError {
  if (error.nodes || error.positions || !error.locations?.length) return error;
  return createGraphQLError(error.message, {
    source,
    positions: error.locations.map(({ line, column }) => positionOf(source.body, line, column)),
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

/** Gives graphql-jit's field errors the positions their `locations` name (see the module comment). */
function useErrorPositions(): Plugin {
  return {
    onExecute: ({ args }) => ({
      onExecuteDone: ({ result, setResult }) => {
        const source = args.document.loc?.source;
        if (!source || Symbol.asyncIterator in result || !result.errors?.length) return;
        setResult({ ...result, errors: result.errors.map((error) => withPositions(error, source)) });
      },
    }),
  };
}

/**
 * Whether `args` run a subscription. Subscriptions run on graphql-js: graphql-jit's `subscribe`
 * (graphql-jit 0.8) hands the root field the variable of the argument's own name instead of the
 * variable the document passes (`configurationRevision(projectId: $p)` got no `projectId`), and a
 * subscription's cost is its events, each a small document, not its compilation.
 */
function isSubscription(args: ExecutionArgs): boolean {
  const operations = args.document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const operation =
    args.operationName === undefined || args.operationName === null
      ? operations[0]
      : operations.find((definition) => definition.name?.value === args.operationName);
  return operation?.operation === OperationTypeNode.SUBSCRIPTION;
}

/** The plugins that compile and run documents with graphql-jit, errors keeping their locations. */
export function useCompiledExecution(): Array<Plugin | ReturnType<typeof useGraphQlJit>> {
  return [useGraphQlJit({}, { enableIf: (args) => !isSubscription(args) }), useErrorPositions()];
}
