/**
 * The OpenAPI document (src/rest/openapi.ts): schema/openapi.json is the checked-in contract of the
 * REST door and must be exactly what the route table produces (like schema/schema.graphql); it is
 * valid OpenAPI 3.1; it documents every route with its scopes; and the server serves it, without a
 * key, at PostHog's `/api/schema/`, while every operation it lists is one the server answers.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import type { OpenAPIObject, OperationObject, ResponseObject } from "openapi3-ts/oas31";
import { describe, expect, it } from "vitest";
import { documentedRoutes, openApiDocument } from "../../src/app.js";
import { createServices } from "../../src/composition.js";
import { loadConfig } from "../../src/config.js";
import { printOpenApiDocument } from "../../src/rest/openapi.js";
import { describeEachBackend } from "../support/server.js";

const DOCUMENT_FILE = path.join(import.meta.dirname, "..", "..", "schema", "openapi.json");
const routes = documentedRoutes(createServices(), loadConfig({}).limits);
const document = openApiDocument(routes);

/** Every operation of the document with its path and method. */
function operations(doc: OpenAPIObject): Array<{ path: string; method: string; op: OperationObject }> {
  return Object.entries(doc.paths ?? {}).flatMap(([p, item]) =>
    Object.entries(item).map(([method, op]) => ({ path: p, method, op: op as OperationObject })),
  );
}

/** The operation of a route (its `:name` path parameters written `{name}`), or undefined. */
function operationOf(route: (typeof routes)[number]): OperationObject | undefined {
  const documented = route.path.replace(/:(\w+)/g, "{$1}");
  const item = document.paths?.[documented] as Record<string, OperationObject> | undefined;
  return item?.[route.method.toLowerCase()];
}

describe("the OpenAPI document", () => {
  it("matches schema/openapi.json", async () => {
    const checkedIn = await fs.readFile(DOCUMENT_FILE, "utf8").catch(() => "");
    expect(
      checkedIn,
      "schema/openapi.json is out of date with the route tables: run `npm run openapi` and commit the result",
    ).toBe(printOpenApiDocument(document));
  });

  it("is valid OpenAPI 3.1, every $ref resolving", async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(printOpenApiDocument(document)));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("documents every route of the route table once, with its summary, description, tag and the key's scopes", async () => {
    expect(operations(document)).toHaveLength(routes.length);
    for (const route of routes) {
      const op = operationOf(route);
      expect(op, `${route.method} ${route.path} is not in the document`).toBeDefined();
      // The summary is the route text's first sentence; the description is all of it, with the scopes.
      expect(route.summary.startsWith(op!.summary!)).toBe(true);
      expect(op!.summary!.length).toBeGreaterThan(0);
      expect(op!.description!.startsWith(route.summary.trim())).toBe(true);
      for (const scope of route.scopes) expect(op!.description).toContain(`\`${scope}\``);
      expect(op!.security).toEqual([{ PersonalAPIKeyAuth: [...route.scopes] }]);
      expect(op!.tags).toHaveLength(1);
    }
    // One tag per resource: the flag routes of every path family share one.
    const tagOfPath = (p: string, method: string) =>
      (document.paths?.[p] as Record<string, OperationObject> | undefined)?.[method]?.tags;
    expect(tagOfPath("/flags/definitions/", "get")).toEqual(["feature_flags"]);
    expect(tagOfPath("/api/feature_flag/local_evaluation/", "get")).toEqual(["feature_flags"]);
    expect(tagOfPath("/api/environments/{project_id}/endpoints/", "get")).toEqual(["endpoints"]);
    expect(document.tags?.map((tag) => tag.name)).toContain("feature_flags");
    expect(document.tags?.map((tag) => tag.name)).not.toContain("feature_flag");
    expect(document.tags?.map((tag) => tag.name)).not.toContain("environments");
    expect(document.info.version).toBe(
      (
        JSON.parse(await fs.readFile(path.join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as {
          version: string;
        }
      ).version,
    );
    expect(document.servers?.[0]?.url).toBe("/");
    const ids = operations(document).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.components?.securitySchemes?.["PersonalAPIKeyAuth"]).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
  });

  it("writes paths with PostHog's {project_id} parameters, typed", () => {
    const flag = document.paths?.["/api/projects/{project_id}/feature_flags/{id}/"];
    expect(flag?.get?.parameters).toEqual([
      { name: "project_id", in: "path", required: true, schema: { type: "integer", minimum: 1 } },
      { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } },
    ]);
    const organization = document.paths?.["/api/organizations/{organization_id}/"];
    expect(organization?.get?.parameters).toEqual([
      { name: "organization_id", in: "path", required: true, schema: { type: "string", format: "uuid" } },
    ]);
  });

  it("describes the flag operations' bodies, queries and answers", () => {
    const list = document.paths?.["/api/projects/{project_id}/feature_flags/"];
    const names = (list?.get?.parameters ?? []).map((p) => ("name" in p ? p.name : p.$ref));
    expect(names).toEqual(expect.arrayContaining(["limit", "offset", "search", "active", "tags", "order"]));
    expect(list?.post?.requestBody).toMatchObject({
      required: true,
      content: { "application/json": { schema: { required: ["key"] } } },
    });
    const responses = list?.post?.responses as Record<string, ResponseObject>;
    expect(Object.keys(responses)).toEqual(["201", "400", "401", "403", "404", "409", "413", "415"]);
    expect(responses["201"]!.content!["application/json"]!.schema).toEqual({
      $ref: "#/components/schemas/FeatureFlag",
    });
    expect(responses["400"]!.content!["application/json"]!.schema).toEqual({
      $ref: "#/components/schemas/Error",
    });
    const detail = document.paths?.["/api/projects/{project_id}/feature_flags/{id}/"];
    expect(detail?.patch?.requestBody).toMatchObject({ required: false });
    expect(Object.keys(detail?.patch?.responses ?? {})).toContain("409");
    expect(detail?.delete?.responses?.["405"]).toEqual({ description: "Method Not Allowed" });
    const usageDashboard = document.paths?.["/api/projects/{project_id}/feature_flags/{id}/dashboard/"];
    expect(Object.keys(usageDashboard?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "400"]),
    );
    const notBuilt = document.paths?.["/api/projects/{project_id}/dashboards/"];
    expect(Object.keys(notBuilt?.post?.responses ?? {})).toContain("501");
    const flag = document.components?.schemas?.["FeatureFlag"] as { properties: Record<string, unknown> };
    expect(flag.properties["last_called_at"]).toEqual({ type: ["string", "null"], format: "date-time" });
    expect(flag.properties["filters"]).toMatchObject({ type: "object", additionalProperties: {} });
  });

  it("documents the key-only route with an empty scope list", () => {
    const current = document.paths?.["/api/personal_api_keys/@current"];
    expect(current?.get?.security).toEqual([{ PersonalAPIKeyAuth: [] }]);
  });
});

describeEachBackend("GET /api/schema/", (server) => {
  it("serves the checked-in document as JSON to anyone, with or without the trailing slash", async () => {
    const checkedIn = JSON.parse(await fs.readFile(DOCUMENT_FILE, "utf8"));
    for (const url of ["/api/schema/", "/api/schema"]) {
      const response = await server().request("GET", url, { key: null });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.body).toEqual(checkedIn);
    }
  });

  it("answers other methods with PostHog's 405", async () => {
    const response = await server().request("POST", "/api/schema/", { key: null, body: {} });
    expect(response.status).toBe(405);
    expect(response.body).toEqual({
      type: "invalid_request",
      code: "method_not_allowed",
      detail: 'Method "POST" not allowed.',
      attr: null,
    });
  });

  it("lists only operations the server answers: each asks an anonymous caller for a key", async () => {
    const s = server();
    const values: Record<string, string> = {
      project_id: String(s.projectId),
      organization_id: s.organizationId,
      id: "1",
    };
    for (const { path: template, method } of operations(document)) {
      const url = template.replace(/\{(\w+)\}/g, (_all, name: string) => values[name] ?? "1");
      const response = await s.request(method.toUpperCase(), url, { key: null });
      expect([response.status, response.body?.code], `${method.toUpperCase()} ${url}`).toEqual([
        401,
        "not_authenticated",
      ]);
    }
  });
});
