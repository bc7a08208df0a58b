/**
 * The record routes of a DRF `ModelViewSet` over a project's records (integer ids, or UUIDs with
 * `idOf`), in table order:
 * `POST <base>` (create, 201), `GET <base>:id/` (retrieve), `PATCH` and `PUT <base>:id/` (partial
 * and whole update) and `DELETE <base>:id/` (204, empty body). The list is `offsetListRoute`'s.
 */
import type { z } from "zod";
import type { Scope } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import type { RestRoute } from "./route.js";
import { pathId } from "./routes.js";

/**
 * The service operations the routes call: records `R`, and `C` (an `R`, maybe with more) from
 * create, with ids `I` (integers by default).
 */
export interface CrudService<R, C extends R, I = number> {
  create(ctx: ServiceContext, projectId: number, body: unknown): Promise<C>;
  get(ctx: ServiceContext, projectId: number, id: I): Promise<R>;
  /** `partial`: PATCH (absent fields keep), else PUT. */
  update(ctx: ServiceContext, projectId: number, id: I, body: unknown, partial: boolean): Promise<R>;
  remove(ctx: ServiceContext, projectId: number, id: I): Promise<unknown>;
}

/** One answer's body schema and serialiser. */
export interface CrudAnswer<R> {
  schema: z.ZodType;
  serialize(record: R): unknown;
}

/** The parts of one kind's record routes (see the module comment). */
export interface CrudRoutes<R, C extends R, I = number> {
  /** The list path, naming `:project_id`, with its trailing slash. */
  base: string;
  /** The scope of the read (`<object>:read`) and of the writes (`<object>:write`). */
  read: Scope;
  write: Scope;
  service: CrudService<R, C, I>;
  /** The record's id from the path's `:id` (default: an integer id, `pathId`; the service answers 404 for none). */
  idOf?: (params: Record<string, string>) => I;
  /** The record's answer (retrieve, update). */
  record: CrudAnswer<R>;
  /** Create's answer, when it shows more than the record's (a secret shown once); default `record`. */
  created?: CrudAnswer<C>;
  /** The request bodies' schemas (for the OpenAPI document; the service parses them). */
  bodies: { create: z.ZodType; patch: z.ZodType; put: z.ZodType };
  /** The routes' one-line summaries. */
  summaries: { create: string; get: string; patch: string; put: string; remove: string };
  /** Error answers the writes (create, PATCH, PUT) give beyond the usual ones, by status (OpenAPI). */
  writeErrors?: Record<number, z.ZodType>;
}

/**
 * The five routes of `kind`, in table order (see the module comment). Their errors are the
 * service's, and the path's: `ProjectNotFoundError` for a `:project_id` that is not an id, and an
 * `:id` that is not one names no record (the service's NotFoundError).
 */
export function crudRoutes<R, C extends R, I = number>(kind: CrudRoutes<R, C, I>): RestRoute[] {
  const { base, read, write, service, record, bodies, summaries } = kind;
  const writeErrors = kind.writeErrors ?? {};
  const created: CrudAnswer<C> = kind.created ?? record;
  const project = (params: Record<string, string>) => pathId(params, "project_id");
  const id = kind.idOf ?? ((params: Record<string, string>) => pathId(params, "id") as I);
  const updateRoute = (method: "PATCH" | "PUT"): RestRoute => ({
    method,
    path: `${base}:id/`,
    summary: method === "PATCH" ? summaries.patch : summaries.put,
    scopes: [write],
    request: { body: method === "PATCH" ? bodies.patch : bodies.put },
    responses: { 200: record.schema, ...writeErrors },
    handler: async ({ params, body, ctx }) => ({
      body: record.serialize(
        await service.update(ctx, project(params), id(params), body, method === "PATCH"),
      ),
    }),
  });
  return [
    {
      method: "POST",
      path: base,
      summary: summaries.create,
      scopes: [write],
      request: { body: bodies.create },
      responses: { 201: created.schema, ...writeErrors },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: created.serialize(await service.create(ctx, project(params), body)),
      }),
    },
    {
      method: "GET",
      path: `${base}:id/`,
      summary: summaries.get,
      scopes: [read],
      responses: { 200: record.schema },
      handler: async ({ params, ctx }) => ({
        body: record.serialize(await service.get(ctx, project(params), id(params))),
      }),
    },
    updateRoute("PATCH"),
    updateRoute("PUT"),
    {
      method: "DELETE",
      path: `${base}:id/`,
      summary: summaries.remove,
      scopes: [write],
      responses: { 204: null },
      handler: async ({ params, ctx }) => {
        await service.remove(ctx, project(params), id(params));
        return { status: 204, body: undefined };
      },
    },
  ];
}
