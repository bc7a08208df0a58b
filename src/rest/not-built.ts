/**
 * The honest table of operations a domain does not provide yet: each is a declared route (so clients,
 * the OpenAPI document and the auth matrix see it) that authorizes like a built one (project, key
 * limits, scopes, membership) and then answers 501 with the reason, instead of being mistaken for
 * another route (an `:id/` path) or a 404.
 */
import { authorizeProjectScopes } from "../core/auth/access.js";
import type { Scope } from "../core/auth/scopes.js";
import { errorBodySchema } from "../core/error-body.js";
import { NotImplementedError } from "../core/errors.js";
import type { HttpMethod, RestRoute } from "./route.js";
import { pathId } from "./routes.js";

/** One operation not built yet: its method, its path below the domain's base path, its scopes and why. */
export interface NotBuiltOperation {
  method: HttpMethod;
  path: string;
  scopes: readonly [Scope, ...Scope[]];
  reason: string;
}

/** The 501 routes of `operations` under `base` (a path with `:project_id`, ending in `/`). */
export function notBuiltRoutes(base: string, operations: readonly NotBuiltOperation[]): RestRoute[] {
  return operations.map(
    ({ method, path, scopes, reason }): RestRoute => ({
      method,
      path: `${base}${path}`,
      summary: `Not implemented yet: ${reason}.`,
      scopes,
      responses: { 501: errorBodySchema },
      handler: async ({ params, ctx }) => {
        await authorizeProjectScopes(ctx, pathId(params, "project_id"), scopes);
        throw new NotImplementedError(`${method} ${base}${path} is not implemented yet: ${reason}.`);
      },
    }),
  );
}
