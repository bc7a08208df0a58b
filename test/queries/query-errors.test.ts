/**
 * A query the database refuses answers PostgreSQL's own message and nothing of the ORM or the driver
 * (src/queries/run-sql.ts `databaseError`), on both backends, through REST's query and endpoint run
 * and GraphQL's `Endpoint.run`, and in the endpoint's execution log: numeric and date overflow
 * (22003 in both of the driver adapter's shapes, 22008), a bad argument (22011, 22023), an invalid
 * regular expression (2201B) and a type mismatch (42883). The doors' last net (core/errors.ts
 * `holdsInternalText`) is tried on the text the driver and Prisma write.
 */
import { describe, expect, it } from "vitest";
import { errorBody } from "../../src/core/error-body.js";
import {
  holdsInternalText,
  publicMessage,
  SERVER_ERROR_DETAIL,
  ValidationError,
} from "../../src/core/errors.js";
import { toGraphQLError } from "../../src/graphql/errors.graphql.js";
import { runHogQL } from "../lib/hogql/fixtures.js";
import { describeEachBackend } from "../support/server.js";

/** HogQL the database refuses, and PostgreSQL's message for it. */
const FAILING: ReadonlyArray<readonly [string, string]> = [
  ["SELECT 3037000500 * 3037000500", "bigint out of range"],
  ["SELECT power(10, 400)", "value out of range: overflow"],
  ["SELECT toDateTime(1e30)", 'timestamp out of range: "1e+30"'],
  ["SELECT substring('abc', 1, -1)", "negative substring length not allowed"],
  ["SELECT toStartOfInterval(now(), toIntervalDay(0))", "stride must be greater than zero"],
  ["SELECT match('a', '(')", "invalid regular expression: parentheses () not balanced"],
  ["SELECT 1 + 'a'", "operator does not exist: bigint + text"],
];

/** `Endpoint.run` as a GraphQL client sends it. */
const RUN_ENDPOINT = `query RunFailingEndpoint($project: ID!, $name: String!) {
  project(id: $project) { endpoint(name: $name) { run { __typename ... on Error { message code } } } }
}`;

describeEachBackend("query errors", (server) => {
  it.each(FAILING)("%s answers PostgreSQL's message through REST", async (query, message) => {
    const answer = await runHogQL(server(), query);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      type: "validation_error",
      code: "query_error",
      detail: `Query execution failed: ${message}`,
      attr: null,
    });
    expect(holdsInternalText(answer.text)).toBe(false);
  });

  it("answers the same through an endpoint's run over REST and GraphQL, and logs it so", async () => {
    const s = server();
    for (const [index, [query, message]] of FAILING.entries()) {
      const name = `failing_${index}`;
      const created = await s.request("POST", `/api/projects/${s.projectId}/endpoints/`, {
        body: { name, query: { kind: "HogQLQuery", query }, is_materialized: false },
      });
      expect(created.status, created.text).toBe(201);
      const rest = await s.request("POST", `/api/projects/${s.projectId}/endpoints/${name}/run/`, {
        body: { refresh: "force_blocking" },
      });
      expect(rest.status, query).toBe(400);
      expect(rest.body.detail, query).toBe(`Query execution failed: ${message}`);
      const answer = await s.request("POST", "/graphql", {
        body: { query: RUN_ENDPOINT, variables: { project: String(s.projectId), name } },
      });
      expect(answer.body.errors, query).toBeUndefined();
      expect(answer.body.data.project.endpoint.run, query).toEqual({
        __typename: "ValidationError",
        message: `Query execution failed: ${message}`,
        code: "query_error",
      });
      const logged = await s.db.endpointExecution.findMany({ where: { endpointName: name } });
      expect(
        logged.map((row) => row.error),
        query,
      ).toEqual([`Query execution failed: ${message}`, `Query execution failed: ${message}`]);
    }
  });
});

describe("the doors' last net", () => {
  const prismaText =
    "Query execution failed: \nInvalid `prisma.$queryRawUnsafe()` invocation:\n\n\nRaw query failed. Code: `22003`. Message: `bigint out of range`";

  it("recognises the ORM's and the driver's text, stacks and SQL, and not PostgreSQL's messages", () => {
    for (const text of [
      prismaText,
      "Invalid `prisma.user.findFirst()` invocation: { where: {} }",
      "prisma.$transaction( failed",
      "PrismaClientKnownRequestError: P2010",
      "DriverAdapterError: ConnectionClosed",
      "Error: boom\n    at run (/app/src/queries/run-sql.ts:84:19)",
      "failed: SELECT e.event FROM events e WHERE e.project_id = $1::bigint",
    ]) {
      expect(holdsInternalText(text), text).toBe(true);
    }
    for (const [, message] of FAILING) expect(holdsInternalText(message), message).toBe(false);
    expect(holdsInternalText('syntax error at or near "$1"')).toBe(false);
    expect(holdsInternalText("Unknown variable(s): nope")).toBe(false);
  });

  it("answers DRF's generic message in REST and GraphQL for a domain error that quotes them", () => {
    const error = new ValidationError(prismaText, { code: "query_error" });
    expect(error.detail).toBe(SERVER_ERROR_DETAIL);
    expect(error.message).toBe(prismaText);
    expect(errorBody(error)).toEqual({
      type: "validation_error",
      code: "query_error",
      detail: SERVER_ERROR_DETAIL,
      attr: null,
    });
    expect(toGraphQLError(error).message).toBe(SERVER_ERROR_DETAIL);
    expect(publicMessage(error)).toBe(SERVER_ERROR_DETAIL);
    expect(publicMessage(new Error("connection lost"))).toBe(SERVER_ERROR_DETAIL);
    expect(publicMessage(new ValidationError("Query execution failed: bigint out of range"))).toBe(
      "Query execution failed: bigint out of range",
    );
  });
});
