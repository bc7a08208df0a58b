/**
 * The route helpers domains build their tables with (src/rest/list-route.ts, src/rest/crud-routes.ts):
 * the routes they make, in order, and what each handler asks the service and answers. No server: the
 * handlers are called with a request as the door would give it.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ServiceContext } from "../../src/core/context.js";
import { ProjectNotFoundError } from "../../src/core/errors.js";
import { crudRoutes } from "../../src/rest/crud-routes.js";
import { offsetListRoute } from "../../src/rest/list-route.js";
import { offsetPageQuerySchema, paginatedListSchema } from "../../src/rest/pagination.js";
import type { RestReply, RestRequest, RestRoute } from "../../src/rest/route.js";

const BASE = "/api/projects/:project_id/things/";
const ctx = { marker: "ctx" } as unknown as ServiceContext;
const thing = z.object({ id: z.int(), name: z.string() });
const things = paginatedListSchema(thing, "PaginatedThingList");

interface Thing {
  id: number;
  name: string;
}

/** A request to `path` (`params` from its path) with `body`. */
function request(path: string, params: Record<string, string>, body: unknown = {}): RestRequest {
  const url = new URL(`http://localhost${path}`);
  return { params, query: url.searchParams, body, url, headers: {}, ctx };
}

async function answer(route: RestRoute, req: RestRequest): Promise<RestReply> {
  return route.handler(req);
}

describe("offsetListRoute", () => {
  const calls: unknown[] = [];
  const route = offsetListRoute<Thing>(
    { maxPageSize: 5 },
    {
      path: BASE,
      summary: "List things.",
      scopes: ["webhook:read"],
      query: offsetPageQuerySchema,
      pageSchema: things,
      load: async ({ ctx: c, projectId, query }, page) => {
        calls.push({ c, projectId, name: query.get("name"), page });
        return { count: 12, results: [{ id: 1, name: "a" }] };
      },
      serialize: (record, c) => ({ ...record, same: c === ctx }),
    },
  );

  it("is a GET with the query and page schemas, conditional unless told", () => {
    expect(route).toMatchObject({
      method: "GET",
      path: BASE,
      summary: "List things.",
      scopes: ["webhook:read"],
      request: { query: offsetPageQuerySchema },
      responses: { 200: things },
    });
    expect("conditional" in route).toBe(false);
  });

  it("loads the clamped page of the path's project and answers DRF's page with links", async () => {
    const reply = await answer(route, request(`/p/?limit=50&offset=5&name=x`, { project_id: "7" }));
    expect(calls.at(-1)).toEqual({ c: ctx, projectId: 7, name: "x", page: { limit: 5, offset: 5 } });
    expect(reply.status).toBeUndefined();
    expect(reply.body).toEqual({
      count: 12,
      next: "http://localhost/p/?limit=5&offset=10&name=x",
      previous: "http://localhost/p/?limit=5&name=x",
      results: [{ id: 1, name: "a", same: true }],
    });
  });

  it("takes the kind's own page rule and `conditional: false`", async () => {
    const strict = offsetListRoute<Thing>(
      { maxPageSize: 5 },
      {
        path: BASE,
        summary: "List things.",
        scopes: [],
        query: offsetPageQuerySchema,
        pageSchema: things,
        page: () => ({ limit: 2, offset: 0 }),
        conditional: false,
        load: async (_request, page) => ({ count: page.limit, results: [] }),
        serialize: (record) => record,
      },
    );
    expect(strict.conditional).toBe(false);
    expect((await answer(strict, request("/p/", { project_id: "1" }))).body).toMatchObject({ count: 2 });
  });

  it("refuses a project id that is not one before loading", async () => {
    const before = calls.length;
    await expect(answer(route, request("/p/", { project_id: "x" }))).rejects.toBeInstanceOf(
      ProjectNotFoundError,
    );
    expect(calls.length).toBe(before);
  });
});

describe("crudRoutes", () => {
  const calls: unknown[][] = [];
  const createBody = z.object({ name: z.string() });
  const patchBody = createBody.partial();
  const withSecret = thing.extend({ secret: z.string() });
  const routes = crudRoutes<Thing, Thing & { secret: string }>({
    base: BASE,
    read: "webhook:read",
    write: "webhook:write",
    service: {
      create: async (...args) => {
        calls.push(["create", ...args]);
        return { id: 3, name: "new", secret: "s" };
      },
      get: async (...args) => {
        calls.push(["get", ...args]);
        return { id: 3, name: "got" };
      },
      update: async (...args) => {
        calls.push(["update", ...args]);
        return { id: 3, name: "changed" };
      },
      remove: async (...args) => {
        calls.push(["remove", ...args]);
        return { id: 3, name: "gone" };
      },
    },
    record: { schema: thing, serialize: (r) => ({ name: r.name }) },
    created: { schema: withSecret, serialize: (r) => ({ name: r.name, secret: r.secret }) },
    bodies: { create: createBody, patch: patchBody, put: createBody },
    summaries: { create: "C", get: "G", patch: "P", put: "R", remove: "D" },
  });

  it("makes create, retrieve, PATCH, PUT and DELETE in that order, with their schemas and scopes", () => {
    expect(routes.map((r) => [r.method, r.path, r.summary, r.scopes])).toEqual([
      ["POST", BASE, "C", ["webhook:write"]],
      ["GET", `${BASE}:id/`, "G", ["webhook:read"]],
      ["PATCH", `${BASE}:id/`, "P", ["webhook:write"]],
      ["PUT", `${BASE}:id/`, "R", ["webhook:write"]],
      ["DELETE", `${BASE}:id/`, "D", ["webhook:write"]],
    ]);
    expect(routes.map((r) => [r.request, r.responses])).toEqual([
      [{ body: createBody }, { 201: withSecret }],
      [undefined, { 200: thing }],
      [{ body: patchBody }, { 200: thing }],
      [{ body: createBody }, { 200: thing }],
      [undefined, { 204: null }],
    ]);
  });

  it("calls the service with the path's ids and answers 201, 200 and an empty 204", async () => {
    const [create, get, patch, put, remove] = routes as [
      RestRoute,
      RestRoute,
      RestRoute,
      RestRoute,
      RestRoute,
    ];
    const ids = { project_id: "7", id: "3" };
    expect(await answer(create, request("/p/", { project_id: "7" }, { name: "new" }))).toEqual({
      status: 201,
      body: { name: "new", secret: "s" },
    });
    expect(await answer(get, request("/p/3/", ids))).toEqual({ body: { name: "got" } });
    expect(await answer(patch, request("/p/3/", ids, { name: "x" }))).toEqual({ body: { name: "changed" } });
    expect(await answer(put, request("/p/3/", ids, { name: "y" }))).toEqual({ body: { name: "changed" } });
    expect(await answer(remove, request("/p/3/", ids))).toEqual({ status: 204, body: undefined });
    expect(calls).toEqual([
      ["create", ctx, 7, { name: "new" }],
      ["get", ctx, 7, 3],
      ["update", ctx, 7, 3, { name: "x" }, true],
      ["update", ctx, 7, 3, { name: "y" }, false],
      ["remove", ctx, 7, 3],
    ]);
  });

  it("answers create with the record's schema and serialiser when no `created` is given", async () => {
    const plain = crudRoutes<Thing, Thing>({
      base: BASE,
      read: "webhook:read",
      write: "webhook:write",
      service: {
        create: async () => ({ id: 1, name: "n" }),
        get: async () => ({ id: 1, name: "n" }),
        update: async () => ({ id: 1, name: "n" }),
        remove: async () => undefined,
      },
      record: { schema: thing, serialize: (r) => ({ only: r.name }) },
      bodies: { create: createBody, patch: patchBody, put: createBody },
      summaries: { create: "C", get: "G", patch: "P", put: "R", remove: "D" },
    });
    expect(plain[0]!.responses).toEqual({ 201: thing });
    expect(await answer(plain[0]!, request("/p/", { project_id: "1" }))).toEqual({
      status: 201,
      body: { only: "n" },
    });
  });
});
