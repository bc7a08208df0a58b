/**
 * What /graphql answers to requests that carry no GraphQL request, and to each media type GraphQL
 * over HTTP allows: every answer is a GraphQL body (`{"errors": [...]}` or `{"data": ...}`), never
 * an empty one or the REST door's PostHog body.
 */
import { expect, it } from "vitest";
import { describeEachBackend, readResponse } from "../support/server.js";
import { expectStillServing, watchProcessFailures } from "../support/still-serving.js";

const MISSING_QUERY = {
  errors: [{ message: "Must provide query string.", extensions: { code: "BAD_REQUEST" } }],
};

describeEachBackend("GraphQL requests", (server) => {
  watchProcessFailures();

  it("answers a POST with no body (and no content type) with 400 and a GraphQL error", async () => {
    const s = server();
    const answer = await s.request("POST", "/graphql");
    expect(answer.status).toBe(400);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(answer.body).toEqual(MISSING_QUERY);
  });

  it("answers an empty JSON body, `{}` and a GET without query with the same 400", async () => {
    const s = server();
    const empty = await s.request("POST", "/graphql", {
      rawBody: "",
      headers: { "content-type": "application/json" },
    });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(MISSING_QUERY);
    const noQuery = await s.request("POST", "/graphql", { body: {} });
    expect(noQuery.status).toBe(400);
    expect(noQuery.body).toEqual(MISSING_QUERY);
    const get = await s.request("GET", "/graphql", { headers: { accept: "application/json" } });
    expect(get.status).toBe(400);
    expect(get.body).toEqual(MISSING_QUERY);
  });

  it("answers a body in a media type GraphQL does not read with 415 and a JSON error", async () => {
    const s = server();
    for (const type of ["text/plain", "application/xml", "application/octet-stream"]) {
      const answer = await s.request("POST", "/graphql", {
        rawBody: "{ __typename }",
        headers: { "content-type": type },
      });
      expect(answer.status, type).toBe(415);
      expect(answer.headers.get("content-type"), type).toMatch(/^application\/json/);
      expect(answer.headers.get("accept-post"), type).toContain("application/json");
      expect(answer.body, type).toEqual({
        errors: [
          {
            message: `Unsupported media type "${type}" in request.`,
            extensions: { code: "unsupported_media_type", errorType: "UnsupportedMediaTypeError" },
          },
        ],
      });
    }
  });

  it("answers malformed JSON with 400 and a GraphQL error", async () => {
    const s = server();
    const answer = await s.request("POST", "/graphql", { rawBody: '{"query": ' });
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].message).toBe("POST body sent invalid JSON.");
    expect(answer.body.errors[0].extensions.code).toBe("BAD_REQUEST");
  });

  it("answers malformed variables, extensions and multipart fields with 400, never 500, with no key", async () => {
    const s = server();
    const query = "query=%7B__typename%7D";
    const multipart = (fields: Record<string, string>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append("0", new Blob(["x"]), "a.txt");
      return form;
    };
    const operations = JSON.stringify({ query: "{ __typename }" });
    const requests: Array<[string, string, RequestInit]> = [
      ["GET variables={", `?${query}&variables=%7B`, {}],
      ["GET extensions=notjson", `?${query}&extensions=notjson`, {}],
      ["GET both", `?${query}&variables=%5B&extensions=%7B%7D%7D`, {}],
      ["GET operationName and variables", `?${query}&operationName=%00&variables=nul`, {}],
      [
        "form variables={",
        "",
        {
          method: "POST",
          body: `${query}&variables=%7B`,
          headers: { "content-type": "application/x-www-form-urlencoded" },
        },
      ],
      ["multipart map of a number", "", { method: "POST", body: multipart({ operations, map: '{"0": 5}' }) }],
      [
        "multipart string operations",
        "",
        { method: "POST", body: multipart({ operations: '"x"', map: '{"0": ["a"]}' }) },
      ],
      [
        "multipart null operations",
        "",
        { method: "POST", body: multipart({ operations: "null", map: '{"0": ["a"]}' }) },
      ],
    ];
    for (const [label, search, init] of requests) {
      const logged = s.errorLogs.length;
      const answer = await readResponse(await fetch(`${s.baseUrl}/graphql${search}`, init));
      expect(answer.status, `${label}: ${answer.text}`).toBe(400);
      expect(answer.body.errors?.[0]?.extensions?.code, `${label}: ${answer.text}`).toBe("BAD_REQUEST");
      await expectStillServing(s, label, logged);
    }
    const invalid = await readResponse(await fetch(`${s.baseUrl}/graphql?${query}&variables=%7B`));
    expect(invalid.body.errors[0].message).toMatch(/^Request parameters are not valid JSON: /);
  });

  it("runs documents sent as JSON, application/graphql, a form or a GET query string", async () => {
    const s = server();
    const expected = { data: { __typename: "Query" } };
    const json = await s.request("POST", "/graphql", { body: { query: "{ __typename }" } });
    expect(json.body).toEqual(expected);
    const graphql = await s.request("POST", "/graphql", {
      rawBody: "{ __typename }",
      headers: { "content-type": "application/graphql" },
    });
    expect(graphql.body).toEqual(expected);
    const form = await s.request("POST", "/graphql", {
      rawBody: "query=%7B+__typename+%7D",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.body).toEqual(expected);
    const get = await s.request("GET", "/graphql?query=%7B__typename%7D");
    expect(get.body).toEqual(expected);
  });

  it("reads the key and runs a query with a body in JSON with a charset", async () => {
    const s = server();
    const answer = await s.request("POST", "/graphql", {
      rawBody: JSON.stringify({ query: "{ viewer { user { email } } }" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { viewer: { user: { email: "admin@example.com" } } } });
  });
});
