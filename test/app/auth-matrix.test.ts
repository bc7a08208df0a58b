/**
 * The authorization matrix (issue 6 §5), on PGlite and PostgreSQL. Every REST route the route tables
 * declare (src/composition.ts `REST_MODULES`, the 501 ones included) and every GraphQL field that
 * declares scopes (every root field must) is called with: no key, a malformed key, a key without each
 * needed scope, a key limited to another project (`scoped_teams`), a key limited to another
 * organization (`scoped_organizations`), a project of an organization the user is not in, an unknown
 * project, and an object id of another project. Each answer is PostHog's exactly
 * (posthog-behavior.md §1.3–1.5; GraphQL: null and an error with the same code for reads, the typed
 * error for mutations), and none writes anything. A key with just the declared scopes is not refused.
 *
 * Nothing is listed by hand: a route the app serves that no table declares, a root field without
 * `extensions.scopes`, a path parameter or argument no fixture fills, each fails here, so each next
 * domain is covered the day it lands.
 */
import { encodeGlobalID } from "@pothos/plugin-relay";
import { beforeAll, describe, expect, it } from "vitest";
import { runAdminCommand } from "../../src/cli/admin-commands.js";
import { ALL_SCOPES, type Scope, scopeSatisfied } from "../../src/core/auth/scopes.js";
import { NotFoundError } from "../../src/core/errors.js";
import { createChangeRequestFixture, createPolicyFixture } from "../support/approvals.js";
import { expectNothingWritten } from "../support/db-dump.js";
import { createFlag } from "../support/flags.js";
import {
  type ArgumentFixtures,
  declaredScopes,
  documentFor,
  type FieldTarget,
  fieldTargets,
  graphqlOfApp,
  hasTypedErrors,
  nodeTypes,
  rootFields,
  takesArgument,
} from "../support/graphql-operations.js";
import { itWhere } from "../support/it-where.js";
import {
  collectionOf,
  fillPath,
  hasBody,
  KEY_ROUTES,
  type KeyRoute,
  type PathValues,
  params,
  ROUTES,
} from "../support/rest-routes.js";
import { SDK_ROUTES } from "../support/sdk-routes.js";
import { describeEachBackend, type TestResponse, type TestServer } from "../support/server.js";
import {
  createEndpoint,
  createEndpointRecord,
  createEventDefinition,
  createEventSchema,
  createExperiment,
  createHoldout,
  createPropertyDefinition,
  createSavedMetric,
  createScheduledChange,
  createSchemaPropertyGroup,
  createTenancy,
  createWebhook,
  endpointName,
  type Tenancy,
} from "../support/tenancy.js";

/** Routes the app serves outside the REST route tables, each with why the matrix leaves it alone. */
const NOT_IN_A_ROUTE_TABLE: Record<string, string> = {
  "/healthz": "liveness probe: public by design, reads nothing",
  "/readyz": "readiness probe: public by design, reads only migration names",
  "/graphql": "the GraphQL door: its fields are walked below, from the schema",
  "/graphql/assets/:file": "GraphiQL's static files: public by design, no data",
  "/api/schema/": "the OpenAPI document of the routes: public by design, as PostHog's, no data",
  "/api/docs/": "the reference page over /api/schema/ (rest/api-docs.ts): public by design, no data",
  "/api/docs/:file": "the reference page's script (Scalar's bundle): public by design, no data",
  "/api/projects/:project_id/feature_flags/local_evaluation/stream":
    "an event stream (rest/event-streams.ts): the polling path's auth, its answer never ends; test/live/ checks its refusals",
};

/**
 * The SDK paths (src/sdk/, `SDK_MODULES`). The token-authenticated ones take no personal API key and
 * no scopes, so nothing of this matrix applies (test/ingestion/ walks each of them: tokens, CORS, bad
 * input); the definitions polls, which take a key, are walked here (`KEY_ROUTES`), and their event
 * streams, whose answer never ends, in test/live/.
 */
const SDK_PATHS = new Set(SDK_ROUTES.map((route) => route.path));

const { isListType } = graphqlOfApp;

/**
 * Fields of the fresh flag a flag route's success case gets, where a plain flag would not do: a
 * remote configuration answers only for a flag that is one.
 */
const FRESH_FLAG_FIELDS: Record<string, Record<string, unknown>> = {
  "/api/projects/:project_id/feature_flags/:id/remote_config/": { is_remote_configuration: true },
};

const NO_SUCH_PROJECT = 987654;
const MALFORMED_KEY = "phx_thisisnotakeythisisnotakeythisisnotakey";

/** PostHog's error body (posthog-behavior.md §1.3). */
function errorBody(type: string, code: string, detail: string) {
  return { type, code, detail, attr: null };
}
const NOT_AUTHENTICATED = errorBody(
  "authentication_error",
  "not_authenticated",
  "Authentication credentials were not provided.",
);
const AUTHENTICATION_FAILED = errorBody(
  "authentication_error",
  "authentication_failed",
  "Personal API key found in request Authorization header is invalid.",
);
const denied = (detail: string) => errorBody("authentication_error", "permission_denied", detail);
const projectLimit = (id: number) => `API key does not have access to the requested project: ID ${id}.`;
const organizationLimit = (id: string) =>
  `API key does not have access to the requested organization: ID ${id}.`;
const missingScope = (scope: string) => `API key missing required scope '${scope}'`;
const NOT_A_MEMBER = "You don't have access to the project.";

/**
 * Organization routes PostHog guards with `OrganizationMemberPermissions` over an unfiltered
 * organization (posthog/permissions.py: no message, so DRF's default): another organization's id
 * is a 403, where the organization's own route filters it away (404).
 */
const NOT_AN_ORGANIZATION_MEMBER: Record<string, string> = {
  "/api/organizations/:organization_id/members/": "You do not have permission to perform this action.",
};

/** A valid scope on none of `needed`'s objects: what a key "without the needed scope" holds. */
function unrelatedScope(needed: readonly string[]): string {
  const objects = new Set(needed.map((scope) => scope.split(":")[0]));
  const scope = ALL_SCOPES.find((s) => s !== "*" && !objects.has(s.split(":")[0]));
  if (!scope) throw new Error(`every scope object is needed by ${needed.join(", ")}`);
  return scope;
}

/** The scopes that reach the `i`th needed scope and stop there: the ones before it, plus an unrelated one. */
function scopesMissing(needed: readonly string[], i: number): string[] {
  return [...needed.slice(0, i), unrelatedScope(needed)];
}

let keyCounter = 0;
/** A flag key no other request of this file uses. */
const freshKey = () => `matrix-${++keyCounter}`;

/**
 * The server's keys by what they grant, each created once: the matrix asks for the same few grants on
 * hundreds of routes, and creating a key is a write, after which `expectNothingWritten` fingerprints
 * every table again instead of reusing the fingerprint it has.
 */
function keysOf(server: () => TestServer) {
  const created = new Map<string, Promise<string>>();
  return (scopes: string[], projects: number[] = [], organizations: string[] = []): Promise<string> => {
    const grant = JSON.stringify([scopes, projects, organizations]);
    const known = created.get(grant);
    if (known) return known;
    const key = server().createKey(scopes, projects, organizations);
    created.set(grant, key);
    return key;
  };
}

/** Asserts `response` is `status` with exactly `body` (undefined: an empty body). */
function expectAnswer(response: TestResponse, label: string, status: number, body: unknown): void {
  expect({ status: response.status, body: response.body }, label).toEqual({ status, body });
  if (body === undefined) expect(response.text, label).toBe("");
  if (status === 401) expect(response.headers.get("www-authenticate"), label).toBe("Bearer");
}

describe("the REST route tables and the GraphQL schema declare what the matrix needs", () => {
  it("every route a key is checked on declares its scopes, each a grantable one", () => {
    expect(ROUTES.length).toBeGreaterThan(0);
    for (const route of KEY_ROUTES) {
      expect(Array.isArray(route.scopes), `${route.method} ${route.path}`).toBe(true);
      for (const scope of route.scopes) expect(ALL_SCOPES, `${route.method} ${route.path}`).toContain(scope);
    }
  });

  it("every GraphQL root field declares its scopes in extensions.scopes, each a grantable one", () => {
    const roots = rootFields();
    expect(roots.length).toBeGreaterThan(0);
    for (const { operation, field } of roots) {
      const scopes = declaredScopes(field);
      expect(scopes, `${operation} field ${field.name} has no extensions.scopes`).toBeDefined();
      for (const scope of scopes ?? []) expect(ALL_SCOPES, `${operation} ${field.name}`).toContain(scope);
    }
  });
});

describeEachBackend("REST auth matrix", (server) => {
  const keyWith = keysOf(server);
  let t: Tenancy;
  let own: PathValues;
  /** Public tokens by project id, for routes that take their project from `?token=` (`projectFromToken`). */
  const tokens = new Map<number, string>();
  beforeAll(async () => {
    t = await createTenancy(server(), "rest");
    for (const project of await server().db.project.findMany()) tokens.set(project.id, project.apiToken);
    own = {
      project_id: t.project,
      organization_id: t.organization,
      ids: {
        feature_flags: t.flag,
        cohorts: t.cohort,
        persons: t.person.id,
        event_definitions: t.eventDefinition,
        schema_property_groups: t.schemaPropertyGroup,
        event_schemas: t.eventSchema,
        property_definitions: t.propertyDefinition,
        dashboards: t.dashboard,
        experiments: t.experiment,
        experiment_holdouts: t.holdout,
        experiment_saved_metrics: t.savedMetric,
        webhooks: t.webhook,
        scheduled_changes: t.scheduledChange,
        approval_policies: t.approvalPolicy,
        change_requests: t.changeRequest,
      },
      name: t.endpoint,
      version_number: 1,
    };
  });

  /**
   * One request: the route with `values` and `key` (null: none), a body on write methods; a route
   * taking its project from the token gets `values.project_id`'s (a token no project has for an unknown id).
   */
  const call = (route: KeyRoute, values: PathValues, key: string | null) =>
    server().request(route.method, `${fillPath(route.path, values)}${tokenQuery(route, values)}`, {
      key,
      ...(hasBody(route.method) ? { body: { key: freshKey() } } : {}),
    });

  const tokenQuery = (route: KeyRoute, values: PathValues) =>
    route.projectFromToken ? `?token=${tokens.get(values.project_id) ?? "phc_no_such_project"}` : "";

  /** The own project's values, with a new object of the route's collection for its `:id` (success may change it). */
  const withFreshObject = async (s: TestServer, route: KeyRoute): Promise<PathValues> => {
    if (params(route.path).has("name")) {
      return { ...own, name: await createEndpoint(s, t.project, endpointName(freshKey())) };
    }
    if (!params(route.path).has("id")) return own;
    const collection = collectionOf(route.path);
    if (collection === "feature_flags") {
      const body = { key: freshKey(), ...FRESH_FLAG_FIELDS[route.path] };
      return { ...own, ids: { ...own.ids, feature_flags: (await createFlag(s, body, t.project)).id } };
    }
    if (collection === "cohorts") {
      const created = await s.request("POST", `/api/projects/${t.project}/cohorts/`, {
        body: { name: freshKey() },
      });
      return { ...own, ids: { ...own.ids, cohorts: created.body.id } };
    }
    if (collection === "event_definitions") {
      const created = await createEventDefinition(s, t.project, freshKey());
      return { ...own, ids: { ...own.ids, event_definitions: created } };
    }
    if (collection === "schema_property_groups") {
      const created = await createSchemaPropertyGroup(s, t.project, freshKey());
      return { ...own, ids: { ...own.ids, schema_property_groups: created } };
    }
    if (collection === "event_schemas") {
      const group = await createSchemaPropertyGroup(s, t.project, freshKey());
      const created = await createEventSchema(s, t.project, t.eventDefinition, group);
      return { ...own, ids: { ...own.ids, event_schemas: created } };
    }
    if (collection === "property_definitions") {
      const created = await createPropertyDefinition(s, t.project, freshKey());
      return { ...own, ids: { ...own.ids, property_definitions: created } };
    }
    if (collection === "experiments") {
      return { ...own, ids: { ...own.ids, experiments: await createExperiment(s, t.project, freshKey()) } };
    }
    if (collection === "experiment_holdouts") {
      return {
        ...own,
        ids: { ...own.ids, experiment_holdouts: await createHoldout(s, t.project, freshKey()) },
      };
    }
    if (collection === "experiment_saved_metrics") {
      const created = await createSavedMetric(s, t.project, freshKey());
      return { ...own, ids: { ...own.ids, experiment_saved_metrics: created } };
    }
    if (collection === "webhooks") {
      return { ...own, ids: { ...own.ids, webhooks: await createWebhook(s, t.project) } };
    }
    if (collection === "scheduled_changes") {
      const created = await createScheduledChange(s, t.project, t.flag);
      return { ...own, ids: { ...own.ids, scheduled_changes: created } };
    }
    if (collection === "approval_policies") {
      return { ...own, ids: { ...own.ids, approval_policies: await createPolicyFixture(s, t.project) } };
    }
    if (collection === "change_requests") {
      // A request the key's user may vote on, or (to cancel it) its own.
      const by = route.path.endsWith("/cancel/") ? "self" : "other";
      const created = await createChangeRequestFixture(s, t.project, t.flag, by);
      return { ...own, ids: { ...own.ids, change_requests: created } };
    }
    return own;
  };

  /** `call`, asserting the answer and that nothing was written. */
  const refused = async (
    route: KeyRoute,
    scenario: string,
    values: PathValues,
    key: string | null,
    status: number,
    body: unknown,
  ) => {
    const label = `${route.method} ${route.path}: ${scenario}`;
    const response = await expectNothingWritten(server().db, label, () => call(route, values, key));
    expectAnswer(response, label, status, body);
  };

  it("serves exactly the routes the tables declare, besides the listed non-table routes", () => {
    const declared = new Map<string, Set<string>>();
    for (const route of ROUTES)
      declared.set(route.path, (declared.get(route.path) ?? new Set()).add(route.method));
    const served = server().app.servedRoutes;
    for (const { methods, url } of served) {
      expect(
        declared.has(url) || url in NOT_IN_A_ROUTE_TABLE || SDK_PATHS.has(url),
        `${methods.join(",")} ${url} is served but no route table declares it`,
      ).toBe(true);
    }
    for (const route of ROUTES) {
      const found = served.some((r) => r.url === route.path && r.methods.includes(route.method));
      expect(found, `${route.method} ${route.path} is declared but not served`).toBe(true);
    }
  });

  it("answers the other methods of each declared path with 401 without a key, then 405", async () => {
    const s = server();
    const declared = new Map<string, Set<string>>();
    for (const route of ROUTES)
      declared.set(route.path, (declared.get(route.path) ?? new Set()).add(route.method));
    let checked = 0;
    for (const { methods, url } of s.app.servedRoutes) {
      const allowed = declared.get(url);
      if (!allowed) continue;
      for (const method of methods.filter((m) => !allowed.has(m) && m !== "HEAD" && m !== "OPTIONS")) {
        const path = fillPath(url, own);
        const label = `${method} ${url}`;
        const anonymous = await expectNothingWritten(s.db, label, () =>
          s.request(method, path, { key: null }),
        );
        expectAnswer(anonymous, `${label} without a key`, 401, NOT_AUTHENTICATED);
        const keyed = await expectNothingWritten(s.db, label, () => s.request(method, path));
        const notAllowed = errorBody(
          "invalid_request",
          "method_not_allowed",
          `Method "${method}" not allowed.`,
        );
        expectAnswer(keyed, label, 405, notAllowed);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  for (const route of KEY_ROUTES) {
    const kinds = params(route.path);
    // A project named by its token is refused as one named in the path.
    if (route.projectFromToken) kinds.add("project_id");
    describe(`${route.method} ${route.path}`, () => {
      it("refuses a request without a key, and one with a malformed key", async () => {
        await refused(route, "no key", own, null, 401, NOT_AUTHENTICATED);
        await refused(route, "malformed key", own, MALFORMED_KEY, 401, AUTHENTICATION_FAILED);
      });

      itWhere(route.scopes.length > 0)("refuses a key without each needed scope, naming it", async () => {
        for (const [i, scope] of route.scopes.entries()) {
          const key = await keyWith(scopesMissing(route.scopes, i));
          await refused(route, `key without ${scope}`, own, key, 403, denied(missingScope(scope)));
        }
      });

      it("serves a key with just the declared scopes", async () => {
        const s = server();
        const key = await keyWith(route.scopes.length ? [...route.scopes] : [unrelatedScope([])]);
        const response = await call(route, await withFreshObject(s, route), key);
        const label = `${route.method} ${route.path} with ${route.scopes.join(", ") || "any scope"}: ${response.text}`;
        expect([401, 403, 404], label).not.toContain(response.status);
        expect(response.status < 500 || response.status === 501, label).toBe(true);
      });

      itWhere(kinds.has("project_id"))("refuses a key limited to another project", async () => {
        const key = await keyWith(["*"], [t.otherProject]);
        await refused(
          route,
          "key limited to another project",
          own,
          key,
          403,
          denied(projectLimit(t.project)),
        );
      });

      itWhere(kinds.has("project_id") || kinds.has("organization_id"))(
        "refuses a key limited to another organization",
        async () => {
          const key = await keyWith(["*"], [], [t.secondOrganization]);
          const body = denied(organizationLimit(t.organization));
          await refused(route, "key limited to another organization", own, key, 403, body);
        },
      );

      itWhere(kinds.has("project_id"))(
        "refuses a project of an organization the user is not in, and an unknown project",
        async () => {
          const s = server();
          const foreign = { ...own, project_id: t.foreignProject };
          await refused(route, "project of another organization", foreign, s.key, 403, denied(NOT_A_MEMBER));
          const unknown = { ...own, project_id: NO_SUCH_PROJECT };
          const notFound = errorBody("invalid_request", "not_found", "Project not found.");
          // A token no project has is an authentication failure (posthog/api/routing.py `_get_team_from_request`).
          const unknownToken = errorBody(
            "authentication_error",
            "authentication_failed",
            "Incorrect authentication credentials.",
          );
          if (route.projectFromToken)
            await refused(route, "unknown token", unknown, s.key, 401, unknownToken);
          else await refused(route, "unknown project", unknown, s.key, 404, notFound);
        },
      );

      itWhere(kinds.has("organization_id"))(
        "answers an organization the user is not in with 404 (403 where PostHog checks membership)",
        async () => {
          const foreign = { ...own, organization_id: t.foreignOrganization };
          const notMember = NOT_AN_ORGANIZATION_MEMBER[route.path];
          if (notMember) {
            await refused(route, "organization of others", foreign, server().key, 403, denied(notMember));
            return;
          }
          const notFound = errorBody("invalid_request", "not_found", "Organization not found.");
          await refused(route, "organization of others", foreign, server().key, 404, notFound);
        },
      );

      itWhere(kinds.has("id") || kinds.has("name"))(
        "answers an object of another project with 404",
        async () => {
          const s = server();
          const foreign = {
            ...own,
            ids: {
              feature_flags: t.otherFlag,
              cohorts: t.otherCohort,
              persons: t.otherPerson.id,
              event_definitions: t.otherEventDefinition,
              schema_property_groups: t.otherSchemaPropertyGroup,
              event_schemas: t.otherEventSchema,
              property_definitions: t.otherPropertyDefinition,
              dashboards: t.otherDashboard,
              experiments: t.otherExperiment,
              experiment_holdouts: t.otherHoldout,
              experiment_saved_metrics: t.otherSavedMetric,
              webhooks: t.otherWebhook,
              scheduled_changes: t.otherScheduledChange,
              approval_policies: t.otherApprovalPolicy,
              change_requests: t.otherChangeRequest,
            },
            name: t.otherEndpoint,
          };
          // A route that answers its own project's object with 405 (flag DELETE: PostHog's
          // ForbidDestroyModel) or 501 (not built yet) never reads the object: any id gets that answer.
          const reference = await call(route, await withFreshObject(s, route), s.key);
          if (reference.status === 405 || reference.status === 501) {
            await refused(
              route,
              "object of another project",
              foreign,
              s.key,
              reference.status,
              reference.body,
            );
            return;
          }
          const emptyBody = route.emptyBodyOn?.(new NotFoundError()) ?? false;
          // A route with PostHog's own body for a missing object (a flag's status) answers that.
          const ownBody = route.errorBody?.(new NotFoundError());
          const notFound = emptyBody
            ? undefined
            : (ownBody ?? errorBody("invalid_request", "not_found", "Not found."));
          await refused(route, "object of another project", foreign, s.key, 404, notFound);
        },
      );
    });
  }
});

/** The value at `path` in GraphQL `data`, or undefined where the path ends early. */
function dataAt(data: unknown, path: ReadonlyArray<string | number>): unknown {
  let value = data;
  for (const step of path) value = (value as Record<string | number, unknown> | null | undefined)?.[step];
  return value;
}

/** The typed error a code is answered with in GraphQL (src/graphql/errors.graphql.ts). */
const ERROR_TYPES: Record<string, string> = {
  not_authenticated: "AuthenticationError",
  authentication_failed: "AuthenticationError",
  permission_denied: "PermissionDeniedError",
  not_found: "NotFoundError",
};

/** The ids a `Node` fixture's local id is made of. */
interface NodeIds {
  project: number;
  flag: number;
  cohort: number;
  /** A person's uuid. */
  person: string;
  entry: string;
  organization: string;
  user: number;
  /** An event definition's UUID. */
  eventDefinition: string;
  /** A schema property group's UUID. */
  schemaPropertyGroup: string;
  /** An event schema's UUID. */
  eventSchema: string;
  /** A property definition's UUID. */
  propertyDefinition: string;
  /** A saved-query endpoint's UUID. */
  endpoint: string;
  dashboard: number;
  experiment: number;
  webhook: number;
  scheduledChange: number;
  /** A change request's and an approval policy's UUIDs. */
  changeRequest: string;
  approvalPolicy: string;
}

/**
 * How the matrix names one object of each `Node` type in a global id (src/graphql/ids.ts): its local
 * id, read through a given project, and whether that local id names the project (a project-owned type,
 * or Project itself), which makes the project refusals apply.
 */
const NODE_FIXTURES: Record<string, { projectOwned: boolean; localId: (ids: NodeIds) => string }> = {
  Project: { projectOwned: true, localId: (ids) => String(ids.project) },
  FeatureFlag: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.flag}` },
  Cohort: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.cohort}` },
  ActivityLogEntry: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.entry}` },
  Organization: { projectOwned: false, localId: (ids) => ids.organization },
  User: { projectOwned: false, localId: (ids) => String(ids.user) },
  Person: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.person}` },
  GroupType: { projectOwned: true, localId: (ids) => `${ids.project}:0` },
  Group: { projectOwned: true, localId: (ids) => `${ids.project}:0:x` },
  EventDefinition: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.eventDefinition}` },
  SchemaPropertyGroup: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.schemaPropertyGroup}` },
  EventSchema: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.eventSchema}` },
  PropertyDefinition: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.propertyDefinition}` },
  Endpoint: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.endpoint}` },
  Dashboard: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.dashboard}` },
  Experiment: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.experiment}` },
  Webhook: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.webhook}` },
  ScheduledChange: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.scheduledChange}` },
  ChangeRequest: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.changeRequest}` },
  ApprovalPolicy: { projectOwned: true, localId: (ids) => `${ids.project}:${ids.approvalPolicy}` },
};

describeEachBackend("GraphQL auth matrix", (server) => {
  const keyWith = keysOf(server);
  let t: Tenancy;
  let entry: string;
  beforeAll(async () => {
    const s = server();
    t = await createTenancy(s, "graphql");
    entry = (await s.db.activityLog.findFirstOrThrow({ where: { projectId: t.project } })).id;
  });

  /** The global id of the fixture of `target`'s node type (a project for other targets), read through `project`. */
  const nodeId = (target: FieldTarget, project: number): string => {
    const type = target.nodeType?.name ?? "Project";
    const fixture = NODE_FIXTURES[type];
    if (!fixture) throw new Error(`no fixture for Node type ${type}: add one to NODE_FIXTURES`);
    const ids = {
      project,
      flag: t.flag,
      cohort: t.cohort,
      person: t.person.uuid,
      entry,
      organization: t.organization,
      user: server().userId,
      eventDefinition: t.eventDefinition,
      schemaPropertyGroup: t.schemaPropertyGroup,
      eventSchema: t.eventSchema,
      propertyDefinition: t.propertyDefinition,
      endpoint: t.endpointId,
      dashboard: t.dashboard,
      experiment: t.experiment,
      webhook: t.webhook,
      scheduledChange: t.scheduledChange,
      changeRequest: t.changeRequest,
      approvalPolicy: t.approvalPolicy,
    };
    return encodeGlobalID(type, fixture.localId(ids));
  };

  /**
   * Fixtures for arguments: the own project, flag, cohorts and person unless overridden
   * (`foreignObjects`: those of the other project); node ids through `project`.
   */
  const fixtures = (
    target: FieldTarget,
    overrides: {
      project?: number;
      featureFlag?: number;
      eventDefinition?: string;
      schemaPropertyGroup?: string;
      eventSchema?: string;
      propertyDefinition?: string;
      endpoint?: string;
      experiment?: number;
      webhook?: number;
      scheduledChange?: number;
      changeRequest?: string;
      approvalPolicy?: string;
      foreignObjects?: boolean;
    } = {},
  ) => {
    const project = overrides.project ?? t.project;
    const foreign = overrides.foreignObjects ?? false;
    return {
      objects: {
        project,
        featureFlag: overrides.featureFlag ?? (foreign ? t.otherFlag : t.flag),
        cohort: foreign ? t.otherCohort : t.cohort,
        staticCohort: foreign ? t.otherStaticCohort : t.staticCohort,
        person: foreign ? t.otherPerson.id : t.person.id,
        eventDefinition: overrides.eventDefinition ?? (foreign ? t.otherEventDefinition : t.eventDefinition),
        schemaPropertyGroup:
          overrides.schemaPropertyGroup ?? (foreign ? t.otherSchemaPropertyGroup : t.schemaPropertyGroup),
        eventSchema: overrides.eventSchema ?? (foreign ? t.otherEventSchema : t.eventSchema),
        propertyDefinition:
          overrides.propertyDefinition ?? (foreign ? t.otherPropertyDefinition : t.propertyDefinition),
        endpoint: overrides.endpoint ?? (foreign ? t.otherEndpointId : t.endpointId),
        dashboard: foreign ? t.otherDashboard : t.dashboard,
        experiment: overrides.experiment ?? (foreign ? t.otherExperiment : t.experiment),
        webhook: overrides.webhook ?? (foreign ? t.otherWebhook : t.webhook),
        scheduledChange: overrides.scheduledChange ?? (foreign ? t.otherScheduledChange : t.scheduledChange),
        changeRequest: overrides.changeRequest ?? (foreign ? t.otherChangeRequest : t.changeRequest),
        approvalPolicy: overrides.approvalPolicy ?? (foreign ? t.otherApprovalPolicy : t.approvalPolicy),
      },
      node: nodeId(target, project),
      key: freshKey,
      // `hogql`: the query a new endpoint needs (its `name` is the plain "x", unique in the project),
      // not materialized (a HogQL endpoint is by default): a refresh would write in the background
      // while a later test compares the database's rows.
      values: {
        personIds: [t.person.uuid],
        // A kept version: every object's first (a restore of it to an unchanged object writes nothing).
        version: 1,
        // A rejection's reason (required), and a new approval policy's approvers.
        reason: "matrix",
        quorum: 1,
        personId: t.person.uuid,
        hogql: "SELECT count() FROM events",
        isMaterialized: false,
        // A new webhook: valid, and disabled so that no later write of the walk enqueues a delivery.
        url: "http://10.0.0.1/matrix",
        kinds: ["feature_flag.deleted"],
        enabled: false,
      },
    } satisfies ArgumentFixtures;
  };

  const execute = (query: string, key: string | null) =>
    server().request("POST", "/graphql", { key, body: { query } });

  /**
   * Where a refusal shows: `authentication` at the root field (nothing is read without a valid key);
   * `object` at the target itself, or at its item for a list of nodes.
   */
  const locationOf = (target: FieldTarget, refusal: "authentication" | "object"): Array<string | number> => {
    const names: Array<string | number> = target.path.map((field) => field.name);
    if (refusal === "authentication") return names.slice(0, 1);
    return target.nodeType && isListType(target.path[0]!.type) ? [...names, 0] : names;
  };

  /**
   * Calls `target` and asserts it is refused at `refusal`'s location with PostHog's `code` and
   * `detail`: the typed error for a field with typed errors, else null there (its parents not null)
   * and one error at that path whose `extensions` carry the code. Nothing may be written.
   */
  const refused = async (
    target: FieldTarget,
    scenario: string,
    args: ArgumentFixtures,
    key: string | null,
    refusal: "authentication" | "object",
    error: { code: string; detail: string },
  ) => {
    const label = `${target.name}: ${scenario}`;
    const query = documentFor(target, args);
    const response = await expectNothingWritten(server().db, label, () => execute(query, key));
    const what = `${label}: ${response.text}`;
    expect(response.status, what).toBe(200);
    const location = locationOf(target, refusal);
    const errorType = ERROR_TYPES[error.code];
    const typed = location.length === target.path.length && hasTypedErrors(target.path[location.length - 1]!);
    if (typed) {
      expect(response.body.errors, what).toBeUndefined();
      const answer = { __typename: errorType, message: error.detail, code: error.code };
      expect(dataAt(response.body.data, location), what).toEqual(answer);
      return;
    }
    for (let i = 1; i < location.length; i++)
      expect(dataAt(response.body.data, location.slice(0, i)), what).not.toBeNull();
    expect(dataAt(response.body.data, location), what).toBeNull();
    expect(response.body.errors, what).toHaveLength(1);
    expect(response.body.errors[0], what).toMatchObject({
      message: error.detail,
      path: location,
      extensions: { code: error.code, errorType },
    });
  };

  it("walks every root field, every nested field that declares scopes, and every Node type", () => {
    const names = fieldTargets().map((target) => target.name);
    for (const { field } of rootFields()) {
      expect(names.some((name) => name === field.name || name.startsWith(`${field.name}<`))).toBe(true);
    }
    for (const type of nodeTypes()) {
      expect(declaredScopes(type), `Node type ${type.name} has no extensions.scopes`).toBeDefined();
    }
  });

  for (const target of fieldTargets()) {
    const field = target.path[target.path.length - 1]!;
    const scopes = target.scopes ?? [];
    const ancestorScopes = target.path.slice(0, -1).flatMap((f) => declaredScopes(f) ?? []);
    const pathScopes = [...ancestorScopes, ...scopes];
    const kinds = [
      "project",
      "featureFlag",
      "cohort",
      "staticCohort",
      "person",
      "eventDefinition",
      "schemaPropertyGroup",
      "eventSchema",
      "endpoint",
      "experiment",
      "webhook",
      "scheduledChange",
    ];
    const projectScoped = target.nodeType
      ? (NODE_FIXTURES[target.nodeType.name]?.projectOwned ?? false)
      : target.path.length === 1 && takesArgument(target.path, "project", kinds);
    const objectScoped =
      !target.nodeType && kinds.slice(1).some((kind) => takesArgument([field], kind, kinds));

    describe(`${target.operation} ${target.name}`, () => {
      it("refuses a request without a key, and one with a malformed key", async () => {
        const notAuthenticated = { code: "not_authenticated", detail: NOT_AUTHENTICATED.detail };
        await refused(target, "no key", fixtures(target), null, "authentication", notAuthenticated);
        const failed = { code: "authentication_failed", detail: AUTHENTICATION_FAILED.detail };
        await refused(target, "malformed key", fixtures(target), MALFORMED_KEY, "authentication", failed);
      });

      itWhere(scopes.length > 0)("refuses a key without each needed scope, naming it", async () => {
        for (const [i, scope] of scopes.entries()) {
          const granted = [...ancestorScopes, ...scopes.slice(0, i), unrelatedScope(pathScopes)];
          if (scopeSatisfied(granted, scope as Scope)) continue;
          const key = await keyWith(granted);
          const error = { code: "permission_denied", detail: missingScope(scope) };
          await refused(target, `key without ${scope}`, fixtures(target), key, "object", error);
        }
      });

      it("serves a key with just the declared scopes", async () => {
        const s = server();
        const key = await keyWith(pathScopes.length ? [...new Set(pathScopes)] : [unrelatedScope([])]);
        // Fresh objects: a success may change or (event definitions, groups, event schemas) delete them.
        // The fresh group is attached to the tenancy's event only, so adding it to the fresh event succeeds.
        // With enriched analytics, so that `enrichFlagUsageDashboard` may add its insights.
        const flag = (await createFlag(s, { key: freshKey(), has_enriched_analytics: true }, t.project)).id;
        const eventDefinition = await createEventDefinition(s, t.project, freshKey());
        const propertyDefinition = await createPropertyDefinition(s, t.project, freshKey());
        const schemaPropertyGroup = await createSchemaPropertyGroup(s, t.project, freshKey());
        const eventSchema = await createEventSchema(s, t.project, t.eventDefinition, schemaPropertyGroup);
        const endpoint = (await createEndpointRecord(s, t.project, endpointName(freshKey()))).id;
        // Launched for the one mutation that refuses a draft (the exposure cohort needs a start).
        const launched = target.name === "createExposureCohortForExperiment";
        const experiment = await createExperiment(
          s,
          t.project,
          freshKey(),
          launched ? { start_date: new Date().toISOString() } : {},
        );
        const webhook = await createWebhook(s, t.project);
        // Of the fresh flag, which an update's `featureFlagId` names (another flag is a refused move).
        const scheduledChange = await createScheduledChange(s, t.project, flag);
        // A request the key's user may vote on, or (to cancel it) its own.
        const changeRequest = await createChangeRequestFixture(
          s,
          t.project,
          flag,
          target.name === "cancelChangeRequest" ? "self" : "other",
        );
        const approvalPolicy = await createPolicyFixture(s, t.project);
        const response = await execute(
          documentFor(
            target,
            fixtures(target, {
              changeRequest,
              approvalPolicy,
              featureFlag: flag,
              eventDefinition,
              schemaPropertyGroup,
              eventSchema,
              propertyDefinition,
              endpoint,
              experiment,
              webhook,
              scheduledChange,
            }),
          ),
          key,
        );
        const label = `${target.name} with ${pathScopes.join(", ") || "any scope"}: ${response.text}`;
        expect(response.status, label).toBe(200);
        expect(response.body.errors, label).toBeUndefined();
        const value = dataAt(response.body.data, locationOf(target, "object")) as Record<
          string,
          unknown
        > | null;
        expect(value, label).not.toBeNull();
        if (hasTypedErrors(field)) expect(value?.["code"], label).toBeUndefined();
      });

      itWhere(projectScoped)("refuses a key limited to another project", async () => {
        const key = await keyWith(["*"], [t.otherProject]);
        const error = { code: "permission_denied", detail: projectLimit(t.project) };
        await refused(target, "key limited to another project", fixtures(target), key, "object", error);
      });

      itWhere(projectScoped)("refuses a key limited to another organization", async () => {
        const key = await keyWith(["*"], [], [t.secondOrganization]);
        const error = { code: "permission_denied", detail: organizationLimit(t.organization) };
        await refused(target, "key limited to another organization", fixtures(target), key, "object", error);
      });

      itWhere(projectScoped)(
        "refuses a project of an organization the user is not in, and an unknown project",
        async () => {
          const s = server();
          const foreign = fixtures(target, { project: t.foreignProject });
          const notMember = { code: "permission_denied", detail: NOT_A_MEMBER };
          await refused(target, "project of another organization", foreign, s.key, "object", notMember);
          const unknown = { code: "not_found", detail: "Project not found." };
          const missing = fixtures(target, { project: NO_SUCH_PROJECT });
          await refused(target, "unknown project", missing, s.key, "object", unknown);
        },
      );

      itWhere(objectScoped)("answers an object of another project as not found", async () => {
        const s = server();
        const label = `${target.name}: object of another project`;
        const args = fixtures(target, { foreignObjects: true });
        if (hasTypedErrors(field)) {
          const notFound = { code: "not_found", detail: "Not found." };
          await refused(target, "object of another project", args, s.key, "object", notFound);
          return;
        }
        // A read by id answers null for an object it does not find in the project (null, not an error).
        const response = await expectNothingWritten(s.db, label, () =>
          execute(documentFor(target, args), s.key),
        );
        expect(
          dataAt(response.body.data, locationOf(target, "object")),
          `${label}: ${response.text}`,
        ).toBeNull();
        for (const error of response.body.errors ?? [])
          expect(error.extensions?.code, label).toBe("not_found");
      });
    });
  }
});

describeEachBackend("issuing keys", (server) => {
  /** `keys create` (the CLI's command, run in process) for the bootstrap user with `scopes`. */
  const createKey = (scopes: string[]) =>
    runAdminCommand(server().db, {
      name: "keys-create",
      options: { email: "admin@example.com", label: "matrix", scopes, projects: [], organizations: [] },
    });

  /** Asserts `keys create` with `scopes` fails with PostHog's validation error and adds no key. */
  const refusedKey = async (scopes: string[], code: string, detail: string) => {
    const db = server().db;
    const before = await db.personalApiKey.count();
    await expect(createKey(scopes)).rejects.toMatchObject({ code, detail, attr: "scopes", httpStatus: 400 });
    expect(await db.personalApiKey.count()).toBe(before);
  };

  it("refuses a key without scopes", async () => {
    await refusedKey([], "required", "This field is required.");
  });

  it("refuses a key with an unknown scope, naming it, even beside valid ones", async () => {
    await refusedKey(["feature_flag:everything"], "invalid_input", "Invalid scope: feature_flag:everything");
    await refusedKey(["flags:read"], "invalid_input", "Invalid scope: flags:read");
    await refusedKey(["feature_flag:read", "nope"], "invalid_input", "Invalid scope: nope");
    await refusedKey([""], "invalid_input", "Invalid scope: ");
  });

  it("issues keys with known scopes and with `*`", async () => {
    for (const scopes of [["*"], ["feature_flag:read", "activity_log:read"]]) {
      const created = await createKey(scopes);
      expect(created).toMatchObject({ personal_api_key: expect.stringMatching(/^phx_/) });
    }
  });
});
