/**
 * Audit completeness (issue 13 §5), on PGlite and PostgreSQL: every write the app serves, REST route
 * (POST, PATCH, PUT, DELETE) and GraphQL mutation, is called once with a valid request that succeeds,
 * and the activity-log entries it adds are exactly the ones PostHog's `log_activity` writes for it
 * (posthog-behavior.md §2.9, src/core/activity-log.ts): the scope, the item's id (the created one's
 * for a create), the activity, the acting user, and for a change, `detail.changes` naming exactly the
 * fields that changed, each `before` and `after` equal to the object as stored before and after the
 * call (read through REST's GET of the object), no field REST shows changed left out of the entry but
 * PostHog's exclusions and REST-derived values (`NOT_LOGGED`), and `detail.name` the object's name.
 * Writes that reach another object through its own service (a launch turns the experiment's flag on)
 * must add that object's entry too. An update sent a second time must add no entry with changes.
 *
 * Writes that by PostHog's design log nothing (SDK capture and evaluation, query runs, reads sent as
 * POST, job triggers, the 405 deletes) are listed with the reason; operations not built yet (501)
 * must answer 501 and write nothing. A write route or mutation in none of these lists fails the walk,
 * so a new one cannot skip auditing silently.
 */
import { isDeepStrictEqual } from "node:util";
import { decodeGlobalID } from "@pothos/plugin-relay";
import { beforeAll, describe, expect, it } from "vitest";
import { createChangeRequestFixture } from "../support/approvals.js";
import { expectNothingWritten } from "../support/db-dump.js";
import { createFlag } from "../support/flags.js";
import { graphqlOfApp, rootFields } from "../support/graphql-operations.js";
import { insertPerson } from "../support/people.js";
import { hasBody, ROUTES } from "../support/rest-routes.js";
import { SDK_ROUTES } from "../support/sdk-routes.js";
import { describeEachBackend, type TestResponse, type TestServer } from "../support/server.js";
import {
  createEndpointRecord,
  createEventDefinition,
  createEventSchema,
  createExperiment,
  createHoldout,
  createPropertyDefinition,
  createSavedMetric,
  createSchemaPropertyGroup,
  createWebhook,
  endpointName,
} from "../support/tenancy.js";

const { getNamedType, isObjectType, isUnionType } = graphqlOfApp;

/** A stored object as REST's GET answers it, or null once it is gone (404). */
type Stored = Record<string, unknown> | null;

/** An object a write acts on or touches: its id in activity entries, and how to read it as stored. */
interface Item {
  id: string;
  read?: () => Promise<Stored>;
}

/** One activity entry a write must add. */
interface ExpectedEntry {
  scope: string;
  activity: string;
  /**
   * Which object the entry is about: a key of the prepared call's `items`, `created` (the object the
   * call created, its id from the answer) or `new` (another object the call created, any id).
   */
  item: string;
  /**
   * For an entry with changes: exactly the fields `detail.changes` names, each compared with the
   * item as stored before and after. Absent: `detail.changes` is `null` or `[]` (a create, a delete).
   */
  fields?: readonly string[];
  /** The stored field a change's field is read from, where REST names it otherwise (`version` → `current_version`). */
  storedAs?: Record<string, string>;
  /** The action of every change where it is not `changesBetween`'s (null before: created, ...). */
  action?: string;
  /** Projections of stored fields, where a change records part of what REST answers (a group's properties). */
  project?: Record<string, (stored: unknown) => unknown>;
  /** An entry logging part of a change whose other entry logs the rest (an endpoint's `version_created`). */
  partial?: true;
  /** Changes whose values are masked by design (a webhook's secret): `before` and `after` are this text. */
  masked?: string;
}

/** A write ready to send: the objects it acts on, and the call, answering the created object's id if any. */
interface Prepared {
  items: Record<string, Item>;
  send: () => Promise<string | undefined>;
}

/** A write to walk: how to set it up and call it, and the entries it must add. */
interface AuditCase {
  prepare: (s: TestServer) => Promise<Prepared>;
  entries: readonly ExpectedEntry[];
  /** Sending the same write again changes nothing, so it must add no entry with changes, and no `updated` one. */
  idempotent?: true;
}

/** Why a scheduled change's own writes log nothing (products/feature_flags/backend/api/scheduled_change.py). */
const SCHEDULE_WRITE =
  "a schedule's own write: PostHog's ScheduledChange has no ModelActivityMixin and its viewset logs nothing " +
  "(the flag change a run applies logs, with its trigger: test/scheduled-changes/)";

/** Why an approval policy's writes log nothing (products/approvals/backend/api.py). */
const POLICY_WRITE =
  "an approval policy's write: PostHog's ApprovalPolicyViewSet has no activity mixin and logs nothing " +
  "(the change requests a policy makes log each transition: test/approvals/)";

/** Writes that log nothing by PostHog's design, by `METHOD path`, with the reason. */
const NO_ACTIVITY: Record<string, string> = {
  "DELETE /api/projects/:project_id/feature_flags/:id/":
    "405 with an empty body, as PostHog's ForbidDestroyModel: soft delete is PATCH `deleted: true` (walked)",
  "DELETE /api/projects/:project_id/cohorts/:id/":
    "405 with an empty body, as PostHog's ForbidDestroyModel: soft delete is PATCH `deleted: true` (walked)",
  "DELETE /api/projects/:project_id/experiments/:id/":
    "405 with an empty body, as PostHog's ForbidDestroyModel: soft delete is PATCH `deleted: true` (walked)",
  "POST /api/projects/:project_id/feature_flags/:id/has_active_dependents/": "a read sent as POST",
  "POST /api/projects/:project_id/feature_flags/bulk_keys/": "a read sent as POST",
  "POST /api/projects/:project_id/feature_flags/user_blast_radius/": "a read sent as POST (a count)",
  "POST /api/projects/:project_id/feature_flags/:id/enrich_usage_dashboard/":
    "adds insight tiles to the usage dashboard; PostHog's enrichment creates Insight and DashboardTile rows, which it logs no activity for (the dashboard row is not saved)",
  "PATCH /api/projects/:project_id/groups_types/update_metadata/":
    "renames group types; PostHog's GroupsTypesViewSet.update_metadata saves GroupTypeMapping rows, a model it logs no activity for",
  "POST /api/environments/:project_id/endpoints/last_execution_times/": "a read sent as POST",
  "POST /api/projects/:project_id/endpoints/last_execution_times/": "a read sent as POST",
  "POST /api/environments/:project_id/endpoints/:name/run/": "a query run (PostHog logs none)",
  "POST /api/projects/:project_id/endpoints/:name/run/": "a query run (PostHog logs none)",
  "POST /api/projects/:project_id/query/": "a query run (PostHog logs none)",
  "POST /api/projects/:project_id/experiments/:id/recalculate_timeseries/":
    "a job trigger: records a recalculation request of derived data, as PostHog's, which logs none",
  "POST /graphql": "the GraphQL door: its mutations are walked below, each by its field",
  "POST /api/projects/:project_id/scheduled_changes/": SCHEDULE_WRITE,
  "PATCH /api/projects/:project_id/scheduled_changes/:id/": SCHEDULE_WRITE,
  "PUT /api/projects/:project_id/scheduled_changes/:id/": SCHEDULE_WRITE,
  "DELETE /api/projects/:project_id/scheduled_changes/:id/": SCHEDULE_WRITE,
  ...Object.fromEntries(
    ["projects", "environments"].flatMap((prefix) =>
      [
        `POST /api/${prefix}/:project_id/approval_policies/`,
        `PATCH /api/${prefix}/:project_id/approval_policies/:id/`,
        `PUT /api/${prefix}/:project_id/approval_policies/:id/`,
        `DELETE /api/${prefix}/:project_id/approval_policies/:id/`,
      ].map((route) => [route, POLICY_WRITE]),
    ),
  ),
};

/** Paths outside the route tables and the SDK's whose write methods answer 405, with what they serve. */
const OUTSIDE_ROUTE_TABLES: Record<string, string> = {
  "/api/schema/": "the OpenAPI document: GET only",
  "/healthz": "liveness probe: GET only",
  "/readyz": "readiness probe: GET only",
  "/graphql/assets/:file": "GraphiQL's static files: GET only",
};

/** GraphQL mutations that log nothing by PostHog's design, with the reason. */
const NO_ACTIVITY_MUTATIONS: Record<string, string> = {
  enrichFlagUsageDashboard:
    "REST's enrich_usage_dashboard (insight tiles: PostHog logs no activity for them)",
  updateGroupType:
    "the group types' update_metadata (GroupTypeMapping rows: PostHog logs no activity for them)",
  createScheduledChange: SCHEDULE_WRITE,
  createApprovalPolicy: POLICY_WRITE,
  updateApprovalPolicy: POLICY_WRITE,
  deleteApprovalPolicy: POLICY_WRITE,
  updateScheduledChange: SCHEDULE_WRITE,
  deleteScheduledChange: SCHEDULE_WRITE,
};

/** The SDK paths (a project's public token, no user): capture and flag evaluation, which PostHog logs no activity for. */
const SDK_REASON =
  "an SDK path (capture, flag evaluation, remote config): no user acts, PostHog logs no activity";

let counter = 0;
/** A name no other request of this file uses. */
const fresh = (prefix = "audit") => `${prefix}-${++counter}`;

/** Asserts a REST answer is a success; returns it. */
function succeeded(response: TestResponse, label: string): TestResponse {
  expect(response.status, `${label}: ${response.text}`).toBeGreaterThanOrEqual(200);
  expect(response.status, `${label}: ${response.text}`).toBeLessThan(300);
  return response;
}

/** The value of `field` in a stored object, an object's `id` where REST nests what a change names by id. */
function storedValue(stored: Stored, field: string, changeValue: unknown): unknown {
  const value = stored?.[field];
  if (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    "id" in value &&
    (changeValue === null || typeof changeValue !== "object")
  ) {
    return (value as { id: unknown }).id;
  }
  return value ?? null;
}

/**
 * Fields of REST's answers that change without a change in the entry, by scope: bookkeeping PostHog's
 * `changes_between` excludes (timestamps, who changed it last) or values REST derives from others.
 */
const NOT_LOGGED: Record<string, readonly string[]> = {
  // `is_simple_flag`: excluded by PostHog; `rollout_percentage` and `status`: REST derives them from
  // the filters and the flag's state (the stored rollout column, which the entry compares, is unchanged).
  FeatureFlag: ["updated_at", "status", "is_simple_flag", "rollout_percentage"],
  // The recalculation's bookkeeping (PostHog recalculates after the update's entry is written).
  Cohort: ["last_calculation", "count"],
  EventDefinition: ["updated_at"],
  SchemaPropertyGroup: ["updated_at"],
  PropertyDefinition: ["updated_at", "updated_by"],
  // `versions_count`: REST's count of the versions, a new one logged by `version_created`.
  Endpoint: ["updated_at", "versions_count"],
  // `feature_flag`: the linked flag, whose own entry logs its change (a launch turns it on).
  // `holdout_id`: REST's copy of `holdout`'s id, which the entry logs as `holdout`.
  Experiment: ["updated_at", "status", "feature_flag", "holdout_id"],
  ExperimentHoldout: ["updated_at"],
  ExperimentSavedMetric: ["updated_at"],
  Webhook: ["updated_at"],
};

/** The field of REST's answer an entry's `detail.name` shows, by scope (PostHog's: a flag's key, a webhook's URL, else the name). */
const NAME_FIELDS: Record<string, string> = {
  FeatureFlag: "key",
  ChangeRequest: "action_key",
  Cohort: "name",
  EventDefinition: "name",
  SchemaPropertyGroup: "name",
  PropertyDefinition: "name",
  Endpoint: "name",
  Experiment: "name",
  ExperimentHoldout: "name",
  ExperimentSavedMetric: "name",
  Webhook: "url",
  Dashboard: "name",
};

/** A schema property group's properties as its changes record them: the fields that define each. */
function propertyFields(stored: unknown): unknown {
  return (stored as Array<Record<string, unknown>>).map(
    ({ name, property_type, is_required, description }) => ({
      name,
      property_type,
      is_required,
      description,
    }),
  );
}

/** An experiment's saved metrics as its changes record them: each metric's id and the link's metadata. */
function savedMetricLinks(stored: unknown): unknown {
  return (stored as Array<Record<string, unknown>>).map(({ saved_metric, metadata }) => ({
    id: saved_metric,
    metadata,
  }));
}

/** The selection of a mutation's success member: its object's global `id`, or just `__typename`. */
function successSelection(field: string): string {
  const mutation = rootFields().find((f) => f.operation === "mutation" && f.field.name === field);
  if (!mutation) throw new Error(`no mutation ${field}`);
  const union = getNamedType(mutation.field.type);
  if (!isUnionType(union)) return "";
  const success = union.getTypes().find((t) => t.name.endsWith("Success"));
  if (!success) return "";
  const parts = Object.values(success.getFields()).map((child) => {
    const named = getNamedType(child.type);
    return isObjectType(named) && named.getFields()["id"] ? `${child.name} { id }` : "";
  });
  return `... on ${success.name} { ${parts.join(" ")} }`;
}

describeEachBackend("audit completeness", (server) => {
  let project: number;
  let person: string;
  beforeAll(async () => {
    const s = server();
    project = s.projectId;
    person = (await insertPerson(s.db, project, { distinctIds: ["audit-person"] })).uuid;
  });

  const rest = (path: string) => `/api/projects/${project}/${path}`;

  /** REST's GET of `path` (under the project): the object, or null for a 404. */
  const readRest = (path: string) => async (): Promise<Stored> => {
    const response = await server().request("GET", rest(path));
    if (response.status === 404) return null;
    expect(response.status, `GET ${path}: ${response.text}`).toBe(200);
    return response.body;
  };

  /**
   * Sends a REST write (`path` under the project, or absolute); `created` reads the created object's
   * id, `true` from the answer's `id`, a function from the answer otherwise.
   */
  const restCall =
    (
      method: string,
      path: string,
      body?: unknown,
      created: boolean | ((answer: TestResponse) => Promise<unknown>) = false,
    ) =>
    async (): Promise<string | undefined> => {
      const response = succeeded(
        await server().request(
          method,
          path.startsWith("/") ? path : rest(path),
          hasBody(method) ? { body: body ?? {} } : {},
        ),
        `${method} ${path}`,
      );
      if (created === false) return undefined;
      return String(created === true ? response.body.id : await created(response));
    };

  /** Sends mutation `field` with `input`; answers the local id of the object its success holds, if any. */
  const gqlCall =
    (field: string, input: Record<string, unknown>) => async (): Promise<string | undefined> => {
      const query = `mutation($input: ${inputTypeOf(field)}!) { ${field}(input: $input) { __typename ... on Error { message code } ${successSelection(field)} } }`;
      const response = await server().request("POST", "/graphql", { body: { query, variables: { input } } });
      const label = `${field}: ${response.text}`;
      expect(response.status, label).toBe(200);
      expect(response.body.errors, label).toBeUndefined();
      const result = response.body.data[field] as Record<string, unknown>;
      expect(String(result["__typename"]), label).toMatch(/Success$/);
      const object = Object.values(result).find(
        (value): value is { id: string } => value !== null && typeof value === "object" && "id" in value,
      );
      if (!object) return undefined;
      const local = decodeGlobalID(object.id).id;
      return local.slice(local.indexOf(":") + 1);
    };

  const inputTypeOf = (field: string): string => {
    const mutation = rootFields().find((f) => f.operation === "mutation" && f.field.name === field)!;
    return getNamedType(mutation.field.args.find((a) => a.name === "input")!.type).name;
  };

  // Objects of each domain, created through REST, with how to read them back. Flags and cohorts get
  // explicit filters: without, REST shows a default (PostHog's) where the stored value, which the
  // entries log, is empty.
  const flag = async (body: Record<string, unknown> = {}): Promise<Item> => {
    const filters = { groups: [{ properties: [], rollout_percentage: 100 }] };
    const id = String((await createFlag(server(), { key: fresh("flag"), filters, ...body })).id);
    return { id, read: readRest(`feature_flags/${id}/`) };
  };
  const cohort = async (body: Record<string, unknown> = {}): Promise<Item> => {
    const response = succeeded(
      await server().request("POST", rest("cohorts/"), {
        body: { name: fresh("cohort"), filters: { properties: { type: "OR", values: [] } }, ...body },
      }),
      "cohort",
    );
    const id = String(response.body.id);
    return { id, read: readRest(`cohorts/${id}/`) };
  };
  const staticCohort = () => cohort({ is_static: true, _create_static_person_ids: [person] });
  const eventDefinition = async (): Promise<Item> => {
    const id = await createEventDefinition(server(), project, fresh("event"));
    return { id, read: readRest(`event_definitions/${id}/`) };
  };
  const propertyDefinition = async (): Promise<Item> => {
    const id = await createPropertyDefinition(server(), project, fresh("property"));
    return { id, read: readRest(`property_definitions/${id}/`) };
  };
  const schemaGroup = async (): Promise<Item> => {
    const id = await createSchemaPropertyGroup(server(), project, fresh("group"));
    return { id, read: readRest(`schema_property_groups/${id}/`) };
  };
  const eventSchema = async (): Promise<Item> => {
    const s = server();
    const id = await createEventSchema(
      s,
      project,
      await createEventDefinition(s, project, fresh("event")),
      await createSchemaPropertyGroup(s, project, fresh("group")),
    );
    return { id };
  };
  const endpoint = async (): Promise<Item & { name: string }> => {
    const { id, name } = await createEndpointRecord(server(), project, endpointName(fresh("endpoint")));
    return { id, name, read: readRest(`endpoints/${name}/`) };
  };
  const experiment = async (extra: Record<string, unknown> = {}): Promise<Item & { flag: Item }> => {
    const id = String(await createExperiment(server(), project, fresh("experiment"), extra));
    const read = readRest(`experiments/${id}/`);
    const flagId = String(((await read()) as { feature_flag: { id: number } }).feature_flag.id);
    return { id, read, flag: { id: flagId, read: readRest(`feature_flags/${flagId}/`) } };
  };
  const launched = () => experiment({ start_date: new Date(Date.now() - 86_400_000).toISOString() });
  const holdout = async (): Promise<Item> => {
    const id = String(await createHoldout(server(), project, fresh("holdout")));
    return { id, read: readRest(`experiment_holdouts/${id}/`) };
  };
  const savedMetric = async (): Promise<Item> => {
    const id = String(await createSavedMetric(server(), project, fresh("metric")));
    return { id, read: readRest(`experiment_saved_metrics/${id}/`) };
  };
  /** A webhook whose read is its secret, which only the database shows (REST never answers it again). */
  const webhookSecret = async (): Promise<Item> => {
    const id = String(await createWebhook(server(), project));
    const read = async () =>
      server().db.webhook.findUniqueOrThrow({ where: { id: Number(id) }, select: { secret: true } });
    return { id, read };
  };
  const webhook = async (): Promise<Item> => {
    const id = String(await createWebhook(server(), project));
    return { id, read: readRest(`webhooks/${id}/`) };
  };

  const created = (scope: string, activity = "created"): ExpectedEntry => ({
    scope,
    activity,
    item: "created",
  });
  const NEW_FLAG = [
    created("FeatureFlag"),
    { scope: "Dashboard", activity: "created", item: "new" },
  ] as const satisfies readonly ExpectedEntry[];

  const updated = (
    scope: string,
    fields: readonly string[],
    item = "target",
    activity = "updated",
  ): ExpectedEntry => ({
    scope,
    activity,
    item,
    fields,
  });
  const deleted = (scope: string): ExpectedEntry => ({ scope, activity: "deleted", item: "target" });
  /** A case acting on one object made by `make`: the call is built from the object. */
  const on =
    <T extends Item>(
      make: () => Promise<T>,
      send: (target: T) => Prepared["send"],
      more?: (target: T) => Record<string, Item>,
    ) =>
    async (): Promise<Prepared> => {
      const target = await make();
      return { items: { target, ...more?.(target) }, send: send(target) };
    };
  const creating = (send: () => Prepared["send"]) => async (): Promise<Prepared> => ({
    items: {},
    send: send(),
  });
  const HOLDOUT_FILTERS = (rollout: number) => [{ properties: [], rollout_percentage: rollout }];
  const METRIC = (event: string) => ({
    kind: "ExperimentMetric",
    metric_type: "mean",
    source: { kind: "EventsNode", event },
  });
  const EMAIL_IS = { key: "email", type: "person", value: ["a@example.com"], operator: "exact" };
  const HOGQL = (query: string) => ({ kind: "HogQLQuery", query });
  /** An experiment's launch: its start, and its flag turned on (FeatureFlag `updated`). */
  const LAUNCH = [
    updated("Experiment", ["start_date"]),
    updated("FeatureFlag", ["active", "version"], "flag"),
  ] as const;
  const withFlag = (target: { flag: Item }) => ({ flag: target.flag });
  /** An experiment soft-deleted through REST (what a restore starts from). */
  const deletedExperiment = async () => {
    const target = await experiment();
    await restCall("PATCH", `experiments/${target.id}/`, { deleted: true })();
    return target;
  };
  const deletedFlag = async () => {
    const target = await flag();
    await restCall("PATCH", `feature_flags/${target.id}/`, { deleted: true })();
    return target;
  };
  /** A flag changed once since its create: version 2, with version 1 kept to restore. */
  const renamedFlag = async () => {
    const target = await flag();
    await restCall("PATCH", `feature_flags/${target.id}/`, { name: "Renamed", tags: ["renamed"] })();
    return target;
  };
  /** An experiment changed once since its create: its version 1 kept to restore. */
  const renamedExperiment = async () => {
    const target = await experiment();
    await restCall("PATCH", `experiments/${target.id}/`, { description: "Changed", conclusion: "won" })();
    return target;
  };
  /**
   * A pending change request (support/approvals.ts) on a fresh flag, asked by the walk's user, which
   * it may approve itself (`selfApprove`), with the flag as a second item.
   */
  const changeRequest = async (selfApprove = false): Promise<Item & { flag: Item }> => {
    const target = await flag();
    const id = await createChangeRequestFixture(server(), project, Number(target.id), "self", selfApprove);
    return { id, read: readRest(`change_requests/${id}/`), flag: target };
  };
  /** The change-request decisions, the same on `/api/projects/` and `/api/environments/`. */
  const decisionCases = (prefix: string): Record<string, AuditCase> => {
    const base = `/api/${prefix}/:project_id/change_requests/:id/`;
    const path = (id: string, action: string) => `/api/${prefix}/${project}/change_requests/${id}/${action}/`;
    const transition = (activity: string): ExpectedEntry => ({
      scope: "ChangeRequest",
      activity,
      item: "target",
    });
    return {
      [`POST ${base}approve/`]: {
        // Quorum 1, the walk's user its own approver: applied at once, as the requester (the same user).
        prepare: on(
          () => changeRequest(true),
          (r) => restCall("POST", path(r.id, "approve"), {}),
          (r) => ({ flag: r.flag }),
        ),
        entries: [
          transition("approved"),
          transition("applied"),
          updated("FeatureFlag", ["name", "version"], "flag"),
        ],
      },
      [`POST ${base}reject/`]: {
        prepare: on(
          () => changeRequest(true),
          (r) => restCall("POST", path(r.id, "reject"), { reason: "no" }),
        ),
        entries: [transition("rejected")],
      },
      [`POST ${base}cancel/`]: {
        prepare: on(changeRequest, (r) => restCall("POST", path(r.id, "cancel"), {})),
        entries: [transition("canceled")],
      },
    };
  };
  /** The endpoint routes, the same on `/api/projects/` and `/api/environments/`. */
  const endpointCases = (prefix: string): Record<string, AuditCase> => {
    const base = `/api/${prefix}/:project_id/endpoints/`;
    const path = (suffix: string) => `/api/${prefix}/${project}/endpoints/${suffix}`;
    const body = () => ({
      name: endpointName(fresh("endpoint")),
      query: HOGQL("SELECT 1"),
      is_materialized: false,
    });
    return {
      [`POST ${base}`]: {
        prepare: creating(() => restCall("POST", path(""), body(), true)),
        entries: [created("Endpoint")],
      },
      [`PATCH ${base}:name/`]: {
        idempotent: true,
        prepare: on(endpoint, (e) =>
          restCall("PATCH", path(`${e.name}/`), { description: "Changed", cache_age_seconds: 600 }),
        ),
        entries: [updated("Endpoint", ["description", "cache_age_seconds"])],
      },
      [`PUT ${base}:name/`]: {
        idempotent: true,
        prepare: on(endpoint, (e) => restCall("PUT", path(`${e.name}/`), { query: HOGQL("SELECT 2") })),
        entries: [
          // A new version: PostHog's `created` change of `version`, from the old number to the new one.
          {
            ...updated("Endpoint", ["version"], "target", "version_created"),
            storedAs: { version: "current_version" },
            action: "created",
            partial: true,
          },
          updated("Endpoint", ["query", "current_version"]),
        ],
      },
      [`PATCH ${base}:name/ deactivate`]: {
        idempotent: true,
        prepare: on(endpoint, (e) => restCall("PATCH", path(`${e.name}/`), { is_active: false })),
        entries: [updated("Endpoint", ["is_active"])],
      },
      [`PATCH ${base}:name/ ?version=`]: {
        idempotent: true,
        // `?version=N` changes only that version's `is_active` (posthog-behavior.md §4.4).
        prepare: async () => {
          const e = await endpoint();
          const read = async () => {
            const version = await server().request("GET", path(`${e.name}/versions/1/`));
            expect(version.status, version.text).toBe(200);
            return { version_1_is_active: version.body.is_active };
          };
          return {
            items: { target: { id: e.id, read } },
            send: restCall("PATCH", path(`${e.name}/?version=1`), { is_active: false }),
          };
        },
        entries: [updated("Endpoint", ["version_1_is_active"])],
      },
      [`DELETE ${base}:name/`]: {
        prepare: on(endpoint, (e) => restCall("DELETE", path(`${e.name}/`))),
        entries: [deleted("Endpoint")],
      },
    };
  };

  /** The REST write routes that log activity, by `METHOD path` (a suffix after it names a second case). */
  const REST_CASES: Record<string, AuditCase> = {
    "POST /api/projects/:project_id/feature_flags/": {
      prepare: creating(() => restCall("POST", "feature_flags/", { key: fresh() }, true)),
      entries: NEW_FLAG,
    },
    "PATCH /api/projects/:project_id/feature_flags/:id/": {
      prepare: on(flag, (f) =>
        restCall("PATCH", `feature_flags/${f.id}/`, {
          name: "Renamed",
          active: false,
          filters: { groups: [{ properties: [EMAIL_IS], rollout_percentage: 30 }] },
          tags: ["audited"],
          ensure_experience_continuity: true,
          evaluation_runtime: "server",
        }),
      ),
      entries: [
        updated("FeatureFlag", [
          "name",
          "active",
          "filters",
          "tags",
          "ensure_experience_continuity",
          "evaluation_runtime",
          "version",
        ]),
      ],
    },
    "PATCH /api/projects/:project_id/feature_flags/:id/ more fields": {
      prepare: on(flag, (f) =>
        restCall("PATCH", `feature_flags/${f.id}/`, {
          rollback_conditions: [
            { threshold: 1, threshold_type: "insight", threshold_metric: {}, operator: "gt" },
          ],
          performed_rollback: true,
          is_remote_configuration: true,
          bucketing_identifier: "device_id",
          evaluation_tags: ["web"],
          tags: ["web"],
        }),
      ),
      entries: [
        updated("FeatureFlag", [
          "rollback_conditions",
          "performed_rollback",
          "is_remote_configuration",
          "bucketing_identifier",
          "evaluation_tags",
          "tags",
          "version",
        ]),
      ],
    },
    "PATCH /api/projects/:project_id/feature_flags/:id/ soft delete": {
      prepare: on(flag, (f) => restCall("PATCH", `feature_flags/${f.id}/`, { deleted: true })),
      entries: [updated("FeatureFlag", ["deleted", "version"], "target", "deleted")],
    },
    "PATCH /api/projects/:project_id/feature_flags/:id/ restore": {
      prepare: on(deletedFlag, (f) => restCall("PATCH", `feature_flags/${f.id}/`, { deleted: false })),
      entries: [updated("FeatureFlag", ["deleted", "version"], "target", "restored")],
    },
    "PUT /api/projects/:project_id/feature_flags/:id/": {
      prepare: on(flag, (f) =>
        restCall("PUT", `feature_flags/${f.id}/`, {
          key: fresh("renamed"),
          name: "Put",
          filters: {
            groups: [{ properties: [], rollout_percentage: 100 }],
            multivariate: {
              variants: [
                { key: "a", rollout_percentage: 50 },
                { key: "b", rollout_percentage: 50 },
              ],
            },
          },
        }),
      ),
      entries: [updated("FeatureFlag", ["key", "name", "filters", "version"])],
    },
    "POST /api/projects/:project_id/feature_flags/:id/create_static_cohort_for_flag/": {
      prepare: on(flag, (f) =>
        restCall(
          "POST",
          `feature_flags/${f.id}/create_static_cohort_for_flag/`,
          {},
          async (answer) => answer.body.cohort.id,
        ),
      ),
      entries: [created("Cohort")],
    },
    "POST /api/projects/:project_id/feature_flags/:id/dashboard/": {
      // The answer is `{"success": true}`: the new dashboard is the flag's usage dashboard now.
      prepare: on(flag, (f) =>
        restCall(
          "POST",
          `feature_flags/${f.id}/dashboard/`,
          {},
          async () => (await f.read!())?.["usage_dashboard"],
        ),
      ),
      entries: [created("Dashboard")],
    },
    "POST /api/projects/:project_id/cohorts/": {
      prepare: creating(() => restCall("POST", "cohorts/", { name: fresh() }, true)),
      entries: [created("Cohort")],
    },
    "PATCH /api/projects/:project_id/cohorts/:id/": {
      idempotent: true,
      prepare: on(cohort, (c) =>
        restCall("PATCH", `cohorts/${c.id}/`, {
          name: fresh("renamed"),
          description: "D",
          filters: { properties: { type: "AND", values: [{ type: "AND", values: [EMAIL_IS] }] } },
        }),
      ),
      entries: [updated("Cohort", ["name", "description", "filters"])],
    },
    "PATCH /api/projects/:project_id/cohorts/:id/ soft delete": {
      prepare: on(cohort, (c) => restCall("PATCH", `cohorts/${c.id}/`, { deleted: true })),
      entries: [updated("Cohort", ["deleted"])],
    },
    "PUT /api/projects/:project_id/cohorts/:id/": {
      idempotent: true,
      prepare: on(cohort, (c) => restCall("PUT", `cohorts/${c.id}/`, { name: fresh("renamed") })),
      entries: [updated("Cohort", ["name"])],
    },
    "PATCH /api/projects/:project_id/cohorts/:id/add_persons_to_static_cohort/": {
      prepare: on(
        () => cohort({ is_static: true }),
        (c) => restCall("PATCH", `cohorts/${c.id}/add_persons_to_static_cohort/`, { person_ids: [person] }),
      ),
      entries: [{ scope: "Cohort", activity: "persons_added_manually", item: "target" }],
    },
    "PATCH /api/projects/:project_id/cohorts/:id/remove_person_from_static_cohort/": {
      prepare: on(staticCohort, (c) =>
        restCall("PATCH", `cohorts/${c.id}/remove_person_from_static_cohort/`, { person_id: person }),
      ),
      entries: [{ scope: "Cohort", activity: "person_removed_manually", item: "target" }],
    },
    "POST /api/projects/:project_id/event_definitions/": {
      prepare: creating(() => restCall("POST", "event_definitions/", { name: fresh() }, true)),
      entries: [created("EventDefinition")],
    },
    "PATCH /api/projects/:project_id/event_definitions/:id/": {
      idempotent: true,
      prepare: on(eventDefinition, (d) =>
        restCall("PATCH", `event_definitions/${d.id}/`, {
          description: "D",
          verified: true,
          tags: ["audited"],
          owner: server().userId,
          default_columns: ["event", "timestamp"],
        }),
      ),
      entries: [
        updated(
          "EventDefinition",
          ["description", "verified", "verified_by", "verified_at", "tags", "owner", "default_columns"],
          "target",
          "changed",
        ),
      ],
    },
    "PUT /api/projects/:project_id/event_definitions/:id/": {
      idempotent: true,
      prepare: on(eventDefinition, (d) =>
        restCall("PUT", `event_definitions/${d.id}/`, { description: "E", hidden: true }),
      ),
      entries: [updated("EventDefinition", ["description", "hidden"], "target", "changed")],
    },
    "DELETE /api/projects/:project_id/event_definitions/:id/": {
      prepare: on(eventDefinition, (d) => restCall("DELETE", `event_definitions/${d.id}/`)),
      entries: [deleted("EventDefinition")],
    },
    "POST /api/projects/:project_id/schema_property_groups/": {
      prepare: creating(() =>
        restCall(
          "POST",
          "schema_property_groups/",
          { name: fresh(), properties: [{ name: "plan", property_type: "String" }] },
          true,
        ),
      ),
      entries: [created("SchemaPropertyGroup")],
    },
    "PATCH /api/projects/:project_id/schema_property_groups/:id/": {
      idempotent: true,
      prepare: on(schemaGroup, (g) =>
        restCall("PATCH", `schema_property_groups/${g.id}/`, { description: "D" }),
      ),
      entries: [updated("SchemaPropertyGroup", ["description"], "target", "changed")],
    },
    "PUT /api/projects/:project_id/schema_property_groups/:id/": {
      idempotent: true,
      prepare: on(schemaGroup, (g) =>
        restCall("PUT", `schema_property_groups/${g.id}/`, {
          name: fresh("renamed"),
          properties: [{ name: "plan", property_type: "Numeric" }],
        }),
      ),
      entries: [
        {
          ...updated("SchemaPropertyGroup", ["name", "properties"], "target", "changed"),
          project: { properties: propertyFields },
        },
      ],
    },
    "DELETE /api/projects/:project_id/schema_property_groups/:id/": {
      prepare: on(schemaGroup, (g) => restCall("DELETE", `schema_property_groups/${g.id}/`)),
      entries: [deleted("SchemaPropertyGroup")],
    },
    "POST /api/projects/:project_id/event_schemas/": {
      prepare: async () => {
        const event = await eventDefinition();
        const group = await schemaGroup();
        const body = { event_definition: event.id, property_group_id: group.id };
        return { items: {}, send: restCall("POST", "event_schemas/", body, true) };
      },
      entries: [created("EventSchema")],
    },
    "DELETE /api/projects/:project_id/event_schemas/:id/": {
      prepare: on(eventSchema, (e) => restCall("DELETE", `event_schemas/${e.id}/`)),
      entries: [deleted("EventSchema")],
    },
    "PATCH /api/projects/:project_id/property_definitions/:id/": {
      idempotent: true,
      prepare: on(propertyDefinition, (d) =>
        restCall("PATCH", `property_definitions/${d.id}/`, { description: "D" }),
      ),
      entries: [updated("PropertyDefinition", ["description"], "target", "changed")],
    },
    "PUT /api/projects/:project_id/property_definitions/:id/": {
      idempotent: true,
      prepare: on(propertyDefinition, (d) =>
        restCall("PUT", `property_definitions/${d.id}/`, {
          description: "E",
          tags: ["audited"],
          property_type: "Numeric",
          verified: true,
        }),
      ),
      entries: [
        updated(
          "PropertyDefinition",
          ["description", "tags", "property_type", "is_numerical", "verified", "verified_by", "verified_at"],
          "target",
          "changed",
        ),
      ],
    },
    "DELETE /api/projects/:project_id/property_definitions/:id/": {
      prepare: on(propertyDefinition, (d) => restCall("DELETE", `property_definitions/${d.id}/`)),
      entries: [deleted("PropertyDefinition")],
    },
    ...endpointCases("projects"),
    ...endpointCases("environments"),
    ...decisionCases("projects"),
    ...decisionCases("environments"),
    "POST /api/projects/:project_id/experiments/": {
      prepare: creating(() =>
        restCall("POST", "experiments/", { name: fresh(), feature_flag_key: fresh("experiment-flag") }, true),
      ),
      entries: [created("Experiment"), ...NEW_FLAG.map((e) => ({ ...e, item: "new" }))],
    },
    "POST /api/projects/:project_id/feature_flags/:id/versions/:version_number/restore/": {
      prepare: on(renamedFlag, (f) => restCall("POST", `feature_flags/${f.id}/versions/1/restore/`)),
      entries: [updated("FeatureFlag", ["name", "tags", "version"])],
    },
    "POST /api/projects/:project_id/experiments/:id/versions/:version_number/restore/": {
      prepare: on(renamedExperiment, (x) => restCall("POST", `experiments/${x.id}/versions/1/restore/`)),
      entries: [updated("Experiment", ["description", "conclusion"])],
    },
    "PATCH /api/projects/:project_id/experiments/:id/": {
      idempotent: true,
      prepare: on(experiment, (x) =>
        restCall("PATCH", `experiments/${x.id}/`, {
          description: "D",
          name: fresh("renamed"),
          metrics: [METRIC("buy")],
          exposure_criteria: { filterTestAccounts: true },
          conclusion: "won",
        }),
      ),
      entries: [updated("Experiment", ["description", "name", "metrics", "exposure_criteria", "conclusion"])],
    },
    "PATCH /api/projects/:project_id/experiments/:id/ variants": {
      // A draft's new variants rewrite its flag's variants through the flag's own update.
      prepare: on(
        experiment,
        (x) =>
          restCall("PATCH", `experiments/${x.id}/`, {
            parameters: {
              feature_flag_variants: [
                { key: "control", rollout_percentage: 34 },
                { key: "test", rollout_percentage: 33 },
                { key: "test-2", rollout_percentage: 33 },
              ],
            },
          }),
        withFlag,
      ),
      entries: [
        updated("Experiment", ["parameters"]),
        updated("FeatureFlag", ["filters", "version"], "flag"),
      ],
    },
    "PATCH /api/projects/:project_id/experiments/:id/ saved metrics": {
      idempotent: true,
      prepare: async () => {
        const target = await experiment();
        // A second metric, so that its id and its link's differ.
        await savedMetric();
        const metric = await savedMetric();
        const links = [{ id: Number(metric.id), metadata: { type: "primary" } }];
        return {
          items: { target },
          send: restCall("PATCH", `experiments/${target.id}/`, { saved_metrics_ids: links }),
        };
      },
      entries: [
        { ...updated("Experiment", ["saved_metrics"]), project: { saved_metrics: savedMetricLinks } },
      ],
    },
    "PATCH /api/projects/:project_id/experiments/:id/ holdout": {
      // A draft's holdout rewrites its flag's release conditions through the flag's own update.
      prepare: async () => {
        const target = await experiment();
        const group = await holdout();
        return {
          items: { target, flag: target.flag },
          send: restCall("PATCH", `experiments/${target.id}/`, { holdout_id: Number(group.id) }),
        };
      },
      entries: [updated("Experiment", ["holdout"]), updated("FeatureFlag", ["filters", "version"], "flag")],
    },
    "PATCH /api/projects/:project_id/experiments/:id/ launch": {
      prepare: on(
        experiment,
        (x) => restCall("PATCH", `experiments/${x.id}/`, { start_date: new Date().toISOString() }),
        withFlag,
      ),
      entries: LAUNCH,
    },
    "PATCH /api/projects/:project_id/experiments/:id/ soft delete": {
      prepare: on(experiment, (x) => restCall("PATCH", `experiments/${x.id}/`, { deleted: true })),
      entries: [updated("Experiment", ["deleted"], "target", "deleted")],
    },
    "POST /api/projects/:project_id/experiments/:id/duplicate/": {
      prepare: on(experiment, (x) => restCall("POST", `experiments/${x.id}/duplicate/`, {}, true)),
      entries: [created("Experiment")],
    },
    "POST /api/projects/:project_id/experiments/:id/create_exposure_cohort_for_experiment/": {
      prepare: on(launched, (x) =>
        restCall("POST", `experiments/${x.id}/create_exposure_cohort_for_experiment/`),
      ),
      entries: [
        { scope: "Cohort", activity: "created", item: "new" },
        updated("Experiment", ["exposure_cohort"]),
      ],
    },
    "POST /api/projects/:project_id/experiment_holdouts/": {
      prepare: creating(() =>
        restCall("POST", "experiment_holdouts/", { name: fresh(), filters: HOLDOUT_FILTERS(10) }, true),
      ),
      entries: [created("ExperimentHoldout")],
    },
    "PATCH /api/projects/:project_id/experiment_holdouts/:id/": {
      idempotent: true,
      prepare: on(holdout, (h) =>
        restCall("PATCH", `experiment_holdouts/${h.id}/`, { description: "D", filters: HOLDOUT_FILTERS(5) }),
      ),
      entries: [updated("ExperimentHoldout", ["description", "filters"])],
    },
    "PATCH /api/projects/:project_id/experiment_holdouts/:id/ used by a draft": {
      // PostHog copies changed filters to the flags of the holdout's draft experiments, through the flag's update.
      prepare: async () => {
        const target = await holdout();
        const draft = await experiment({ holdout_id: Number(target.id) });
        return {
          items: { target, flag: draft.flag },
          send: restCall("PATCH", `experiment_holdouts/${target.id}/`, { filters: HOLDOUT_FILTERS(25) }),
        };
      },
      entries: [
        updated("ExperimentHoldout", ["filters"]),
        updated("FeatureFlag", ["filters", "version"], "flag"),
      ],
    },
    "PUT /api/projects/:project_id/experiment_holdouts/:id/": {
      idempotent: true,
      prepare: on(holdout, (h) =>
        restCall("PUT", `experiment_holdouts/${h.id}/`, {
          name: fresh("renamed"),
          filters: HOLDOUT_FILTERS(20),
        }),
      ),
      entries: [updated("ExperimentHoldout", ["name", "filters"])],
    },
    "DELETE /api/projects/:project_id/experiment_holdouts/:id/": {
      prepare: on(holdout, (h) => restCall("DELETE", `experiment_holdouts/${h.id}/`)),
      entries: [deleted("ExperimentHoldout")],
    },
    "POST /api/projects/:project_id/experiment_saved_metrics/": {
      prepare: creating(() =>
        restCall("POST", "experiment_saved_metrics/", { name: fresh(), query: METRIC("buy") }, true),
      ),
      entries: [created("ExperimentSavedMetric")],
    },
    "PATCH /api/projects/:project_id/experiment_saved_metrics/:id/": {
      idempotent: true,
      prepare: on(savedMetric, (m) =>
        restCall("PATCH", `experiment_saved_metrics/${m.id}/`, { description: "D", query: METRIC("sell") }),
      ),
      entries: [updated("ExperimentSavedMetric", ["description", "query"])],
    },
    "PUT /api/projects/:project_id/experiment_saved_metrics/:id/": {
      idempotent: true,
      prepare: on(savedMetric, (m) =>
        restCall("PUT", `experiment_saved_metrics/${m.id}/`, {
          name: fresh("renamed"),
          query: METRIC("sell"),
        }),
      ),
      entries: [updated("ExperimentSavedMetric", ["name", "query"])],
    },
    "DELETE /api/projects/:project_id/experiment_saved_metrics/:id/": {
      prepare: on(savedMetric, (m) => restCall("DELETE", `experiment_saved_metrics/${m.id}/`)),
      entries: [deleted("ExperimentSavedMetric")],
    },
    "POST /api/projects/:project_id/webhooks/": {
      prepare: creating(() =>
        restCall(
          "POST",
          "webhooks/",
          { url: "http://10.0.0.1/audit", kinds: ["feature_flag.deleted"], enabled: false },
          true,
        ),
      ),
      entries: [created("Webhook")],
    },
    "PATCH /api/projects/:project_id/webhooks/:id/": {
      idempotent: true,
      prepare: on(webhook, (w) =>
        restCall("PATCH", `webhooks/${w.id}/`, {
          description: "D",
          kinds: ["experiment.*", "cohort.updated"],
        }),
      ),
      entries: [updated("Webhook", ["description", "kinds"])],
    },
    "PUT /api/projects/:project_id/webhooks/:id/": {
      idempotent: true,
      prepare: on(webhook, (w) =>
        restCall("PUT", `webhooks/${w.id}/`, { url: "http://10.0.0.2/audit", kinds: ["feature_flag.*"] }),
      ),
      entries: [updated("Webhook", ["url", "kinds"])],
    },
    "DELETE /api/projects/:project_id/webhooks/:id/": {
      prepare: on(webhook, (w) => restCall("DELETE", `webhooks/${w.id}/`)),
      entries: [deleted("Webhook")],
    },
    "POST /api/projects/:project_id/webhooks/:id/rotate_secret/": {
      prepare: on(webhookSecret, (w) => restCall("POST", `webhooks/${w.id}/rotate_secret/`)),
      entries: [{ ...updated("Webhook", ["secret"]), masked: "masked" }],
    },
  };

  /** The GraphQL mutations that log activity, by field: each through the same service method as its REST route. */
  const GRAPHQL_CASES: Record<string, AuditCase> = {
    createFeatureFlag: {
      prepare: creating(() => gqlCall("createFeatureFlag", { projectId: project, key: fresh() })),
      entries: NEW_FLAG,
    },
    updateFeatureFlag: {
      prepare: on(flag, (f) =>
        gqlCall("updateFeatureFlag", {
          projectId: project,
          id: f.id,
          name: "Renamed",
          tags: ["audited"],
          hasEnrichedAnalytics: true,
          filters: { groups: [{ properties: [], rolloutPercentage: 40 }] },
        }),
      ),
      entries: [updated("FeatureFlag", ["name", "tags", "has_enriched_analytics", "filters", "version"])],
    },
    approveChangeRequest: {
      prepare: on(
        () => changeRequest(true),
        (r) => gqlCall("approveChangeRequest", { projectId: project, id: r.id }),
        (r) => ({ flag: r.flag }),
      ),
      entries: [
        { scope: "ChangeRequest", activity: "approved", item: "target" },
        { scope: "ChangeRequest", activity: "applied", item: "target" },
        updated("FeatureFlag", ["name", "version"], "flag"),
      ],
    },
    rejectChangeRequest: {
      prepare: on(
        () => changeRequest(true),
        (r) => gqlCall("rejectChangeRequest", { projectId: project, id: r.id, reason: "no" }),
      ),
      entries: [{ scope: "ChangeRequest", activity: "rejected", item: "target" }],
    },
    cancelChangeRequest: {
      prepare: on(changeRequest, (r) => gqlCall("cancelChangeRequest", { projectId: project, id: r.id })),
      entries: [{ scope: "ChangeRequest", activity: "canceled", item: "target" }],
    },
    restoreFeatureFlagVersion: {
      prepare: on(renamedFlag, (f) =>
        gqlCall("restoreFeatureFlagVersion", { projectId: project, id: f.id, version: 1 }),
      ),
      entries: [updated("FeatureFlag", ["name", "tags", "version"])],
    },
    restoreExperimentVersion: {
      prepare: on(renamedExperiment, (x) =>
        gqlCall("restoreExperimentVersion", { projectId: project, id: x.id, version: 1 }),
      ),
      entries: [updated("Experiment", ["description", "conclusion"])],
    },
    deleteFeatureFlag: {
      prepare: on(flag, (f) => gqlCall("deleteFeatureFlag", { projectId: project, id: f.id })),
      entries: [updated("FeatureFlag", ["deleted", "version"], "target", "deleted")],
    },
    restoreFeatureFlag: {
      prepare: on(deletedFlag, (f) => gqlCall("restoreFeatureFlag", { projectId: project, id: f.id })),
      entries: [updated("FeatureFlag", ["deleted", "version"], "target", "restored")],
    },
    createStaticCohortForFeatureFlag: {
      prepare: on(flag, (f) => gqlCall("createStaticCohortForFeatureFlag", { projectId: project, id: f.id })),
      entries: [created("Cohort")],
    },
    createFlagUsageDashboard: {
      prepare: on(flag, (f) =>
        gqlCall("createFlagUsageDashboard", { projectId: project, featureFlagId: f.id }),
      ),
      entries: [created("Dashboard")],
    },
    createCohort: {
      prepare: creating(() => gqlCall("createCohort", { projectId: project, name: fresh() })),
      entries: [created("Cohort")],
    },
    updateCohort: {
      idempotent: true,
      prepare: on(cohort, (c) =>
        gqlCall("updateCohort", { projectId: project, id: c.id, name: fresh("renamed") }),
      ),
      entries: [updated("Cohort", ["name"])],
    },
    deleteCohort: {
      prepare: on(cohort, (c) => gqlCall("deleteCohort", { projectId: project, id: c.id })),
      entries: [updated("Cohort", ["deleted"])],
    },
    duplicateCohortAsStatic: {
      prepare: on(cohort, (c) => gqlCall("duplicateCohortAsStatic", { projectId: project, id: c.id })),
      entries: [created("Cohort")],
    },
    addPersonsToStaticCohort: {
      prepare: on(
        () => cohort({ is_static: true }),
        (c) => gqlCall("addPersonsToStaticCohort", { projectId: project, id: c.id, personIds: [person] }),
      ),
      entries: [{ scope: "Cohort", activity: "persons_added_manually", item: "target" }],
    },
    removePersonFromStaticCohort: {
      prepare: on(staticCohort, (c) =>
        gqlCall("removePersonFromStaticCohort", { projectId: project, id: c.id, personId: person }),
      ),
      entries: [{ scope: "Cohort", activity: "person_removed_manually", item: "target" }],
    },
    createEventDefinition: {
      prepare: creating(() => gqlCall("createEventDefinition", { projectId: project, name: fresh() })),
      entries: [created("EventDefinition")],
    },
    updateEventDefinition: {
      idempotent: true,
      prepare: on(eventDefinition, (d) =>
        gqlCall("updateEventDefinition", { projectId: project, id: d.id, description: "D" }),
      ),
      entries: [updated("EventDefinition", ["description"], "target", "changed")],
    },
    deleteEventDefinition: {
      prepare: on(eventDefinition, (d) => gqlCall("deleteEventDefinition", { projectId: project, id: d.id })),
      entries: [deleted("EventDefinition")],
    },
    createSchemaPropertyGroup: {
      prepare: creating(() => gqlCall("createSchemaPropertyGroup", { projectId: project, name: fresh() })),
      entries: [created("SchemaPropertyGroup")],
    },
    updateSchemaPropertyGroup: {
      idempotent: true,
      prepare: on(schemaGroup, (g) =>
        gqlCall("updateSchemaPropertyGroup", { projectId: project, id: g.id, description: "D" }),
      ),
      entries: [updated("SchemaPropertyGroup", ["description"], "target", "changed")],
    },
    deleteSchemaPropertyGroup: {
      prepare: on(schemaGroup, (g) => gqlCall("deleteSchemaPropertyGroup", { projectId: project, id: g.id })),
      entries: [deleted("SchemaPropertyGroup")],
    },
    addEventSchema: {
      prepare: async () => {
        const event = await eventDefinition();
        const group = await schemaGroup();
        const input = { projectId: project, eventDefinitionId: event.id, schemaPropertyGroupId: group.id };
        return { items: {}, send: gqlCall("addEventSchema", input) };
      },
      entries: [created("EventSchema")],
    },
    removeEventSchema: {
      prepare: on(eventSchema, (e) => gqlCall("removeEventSchema", { projectId: project, id: e.id })),
      entries: [deleted("EventSchema")],
    },
    updatePropertyDefinition: {
      idempotent: true,
      prepare: on(propertyDefinition, (d) =>
        gqlCall("updatePropertyDefinition", { projectId: project, id: d.id, description: "D" }),
      ),
      entries: [updated("PropertyDefinition", ["description"], "target", "changed")],
    },
    deletePropertyDefinition: {
      prepare: on(propertyDefinition, (d) =>
        gqlCall("deletePropertyDefinition", { projectId: project, id: d.id }),
      ),
      entries: [deleted("PropertyDefinition")],
    },
    createEndpoint: {
      prepare: creating(() =>
        gqlCall("createEndpoint", {
          projectId: project,
          name: endpointName(fresh("endpoint")),
          hogql: "SELECT 1",
          isMaterialized: false,
        }),
      ),
      entries: [created("Endpoint")],
    },
    updateEndpoint: {
      idempotent: true,
      prepare: on(endpoint, (e) =>
        gqlCall("updateEndpoint", { projectId: project, id: e.id, description: "D" }),
      ),
      entries: [updated("Endpoint", ["description"])],
    },
    deleteEndpoint: {
      prepare: on(endpoint, (e) => gqlCall("deleteEndpoint", { projectId: project, id: e.id })),
      entries: [deleted("Endpoint")],
    },
    createExperiment: {
      prepare: creating(() =>
        gqlCall("createExperiment", {
          projectId: project,
          name: fresh(),
          featureFlagKey: fresh("experiment-flag"),
        }),
      ),
      entries: [created("Experiment"), ...NEW_FLAG.map((e) => ({ ...e, item: "new" }))],
    },
    updateExperiment: {
      idempotent: true,
      prepare: on(experiment, (x) =>
        gqlCall("updateExperiment", { projectId: project, id: x.id, description: "D" }),
      ),
      entries: [updated("Experiment", ["description"])],
    },
    launchExperiment: {
      prepare: on(experiment, (x) => gqlCall("launchExperiment", { projectId: project, id: x.id }), withFlag),
      entries: LAUNCH,
    },
    endExperiment: {
      prepare: on(launched, (x) => gqlCall("endExperiment", { projectId: project, id: x.id })),
      entries: [updated("Experiment", ["end_date"])],
    },
    concludeExperiment: {
      idempotent: true,
      prepare: on(launched, (x) =>
        gqlCall("concludeExperiment", { projectId: project, id: x.id, conclusion: "won", comment: "Clear" }),
      ),
      entries: [updated("Experiment", ["conclusion", "conclusion_comment"])],
    },
    archiveExperiment: {
      idempotent: true,
      prepare: on(experiment, (x) => gqlCall("archiveExperiment", { projectId: project, id: x.id })),
      entries: [updated("Experiment", ["archived"])],
    },
    deleteExperiment: {
      prepare: on(experiment, (x) => gqlCall("deleteExperiment", { projectId: project, id: x.id })),
      entries: [updated("Experiment", ["deleted"], "target", "deleted")],
    },
    restoreExperiment: {
      prepare: on(deletedExperiment, (x) => gqlCall("restoreExperiment", { projectId: project, id: x.id })),
      entries: [updated("Experiment", ["deleted"], "target", "restored")],
    },
    duplicateExperiment: {
      prepare: on(experiment, (x) => gqlCall("duplicateExperiment", { projectId: project, id: x.id })),
      entries: [created("Experiment")],
    },
    createExposureCohortForExperiment: {
      prepare: on(launched, (x) =>
        gqlCall("createExposureCohortForExperiment", { projectId: project, id: x.id }),
      ),
      entries: [
        { scope: "Cohort", activity: "created", item: "new" },
        updated("Experiment", ["exposure_cohort"]),
      ],
    },
    createWebhook: {
      prepare: creating(() =>
        gqlCall("createWebhook", {
          projectId: project,
          url: "http://10.0.0.1/audit",
          kinds: ["feature_flag.deleted"],
          enabled: false,
        }),
      ),
      entries: [created("Webhook")],
    },
    updateWebhook: {
      idempotent: true,
      prepare: on(webhook, (w) =>
        gqlCall("updateWebhook", { projectId: project, id: w.id, description: "D" }),
      ),
      entries: [updated("Webhook", ["description"])],
    },
    deleteWebhook: {
      prepare: on(webhook, (w) => gqlCall("deleteWebhook", { projectId: project, id: w.id })),
      entries: [deleted("Webhook")],
    },
    rotateWebhookSecret: {
      prepare: on(webhookSecret, (w) => gqlCall("rotateWebhookSecret", { projectId: project, id: w.id })),
      entries: [{ ...updated("Webhook", ["secret"]), masked: "masked" }],
    },
  };

  /**
   * Calls the prepared write and asserts the entries it added: exactly `entries` (by scope, activity
   * and item), each by the acting user in the project, with changes as the stored objects changed.
   */
  const walk = async (label: string, c: AuditCase) => {
    const s = server();
    const prepared = await c.prepare(s);
    const before = new Map<string, Stored>();
    for (const [key, item] of Object.entries(prepared.items))
      if (item.read) before.set(key, await item.read());
    const known = new Set((await s.db.activityLog.findMany({ select: { id: true } })).map((e) => e.id));
    const createdId = await prepared.send();
    const afterwards = new Map<string, Stored>();
    for (const [key, item] of Object.entries(prepared.items))
      if (item.read) afterwards.set(key, await item.read());
    const entries = (await s.db.activityLog.findMany({ orderBy: { createdAt: "asc" } })).filter(
      (e) => !known.has(e.id),
    );
    const idOf = (item: string) => (item === "created" ? createdId : prepared.items[item]?.id);
    const describeEntry = (e: { scope: string; activity: string; itemId: string | null }) =>
      `${e.scope} ${e.activity} ${e.itemId}`;
    const what = `${label}: added ${JSON.stringify(entries.map(describeEntry))}`;
    expect(
      entries.map((e) => `${e.scope} ${e.activity}`).sort(),
      `${what}: the entries' scopes and activities`,
    ).toEqual(c.entries.map((e) => `${e.scope} ${e.activity}`).sort());
    const unmatched = [...entries];
    for (const expected of c.entries) {
      const id = idOf(expected.item);
      if (expected.item !== "new") expect(id, `${what}: no id for ${expected.item}`).toBeDefined();
      const at = unmatched.findIndex(
        (e) =>
          e.scope === expected.scope &&
          e.activity === expected.activity &&
          (expected.item === "new" || e.itemId === id),
      );
      expect(
        at,
        `${what}: no ${expected.scope} ${expected.activity} entry for ${expected.item} ${id}`,
      ).toBeGreaterThanOrEqual(0);
      const [entry] = unmatched.splice(at, 1);
      const where = `${what}: ${describeEntry(entry!)}`;
      expect(entry!.projectId, where).toBe(project);
      expect(entry!.userId, `${where}: the actor`).toBe(s.userId);
      const detail = entry!.detail as { changes: Array<Record<string, unknown>> | null; name: unknown };
      expect(typeof detail.name, `${where}: detail.name`).toBe("string");
      // The entry names the object as it is after the write (as it was, for a delete).
      const shown = afterwards.get(expected.item) ?? before.get(expected.item);
      const nameField = NAME_FIELDS[expected.scope];
      if (shown && nameField && shown[nameField] !== undefined) {
        expect(detail.name, `${where}: detail.name`).toBe(shown[nameField]);
      }
      if (!expected.fields) {
        expect(detail.changes === null || detail.changes.length === 0, `${where}: changes`).toBe(true);
        continue;
      }
      const changes = detail.changes ?? [];
      expect(changes.map((change) => change["field"]).sort(), `${where}: changed fields`).toEqual(
        [...expected.fields].sort(),
      );
      const item = prepared.items[expected.item];
      if (expected.masked !== undefined) {
        for (const change of changes) {
          expect([change["before"], change["after"]], where).toEqual([expected.masked, expected.masked]);
          // The value itself, read where only the database shows it, did change.
          const field = String(change["field"]);
          expect(afterwards.get(expected.item)?.[field], `${where}: ${field}`).not.toEqual(
            before.get(expected.item)?.[field],
          );
        }
        continue;
      }
      expect(item?.read, `${where}: the case reads no ${expected.item}`).toBeDefined();
      const after = afterwards.get(expected.item) ?? null;
      // Every field REST shows changed is in the entry, but the ones PostHog's log leaves out.
      const beforeItem = before.get(expected.item) ?? {};
      const logged = new Set(
        changes.map((change) => expected.storedAs?.[String(change["field"])] ?? String(change["field"])),
      );
      const unlogged = Object.keys({ ...beforeItem, ...after })
        .filter((field) => !isDeepStrictEqual(beforeItem[field], after?.[field]))
        .filter((field) => !logged.has(field) && !(NOT_LOGGED[expected.scope] ?? []).includes(field));
      if (!expected.partial)
        expect(unlogged, `${where}: fields that changed with no change in the entry`).toEqual([]);
      for (const change of changes) {
        const field = String(change["field"]);
        const stored = expected.storedAs?.[field] ?? field;
        expect(change["type"], where).toBe(expected.scope);
        const projection = expected.project?.[field] ?? ((value: unknown) => value);
        expect(change["before"], `${where}: ${field} before`).toEqual(
          projection(storedValue(before.get(expected.item) ?? null, stored, change["before"])),
        );
        expect(change["after"], `${where}: ${field} after`).toEqual(
          projection(storedValue(after, stored, change["after"])),
        );
        const action =
          expected.action ??
          (change["before"] === null ? "created" : change["after"] === null ? "deleted" : "changed");
        expect(change["action"], `${where}: ${field} action`).toBe(action);
      }
    }
    if (c.idempotent) {
      // PostHog's log_activity drops only an `updated` entry without changes: the definitions'
      // `changed` entries (event and property definitions, schema property groups) are written empty.
      const seen = new Set((await s.db.activityLog.findMany({ select: { id: true } })).map((e) => e.id));
      await prepared.send();
      const again = (await s.db.activityLog.findMany())
        .filter((e) => !seen.has(e.id))
        .filter(
          (e) => e.activity !== "changed" || ((e.detail as { changes: unknown[] }).changes ?? []).length > 0,
        );
      expect(again.map(describeEntry), `${label}: the same write again`).toEqual([]);
    }
  };

  it("walks every write route: audited, listed with the reason it logs nothing, or not built (501)", () => {
    const served = server().app.servedRoutes;
    const notBuilt = new Set(
      ROUTES.filter((r) => Object.keys(r.responses).join() === "501").map((r) => `${r.method} ${r.path}`),
    );
    const sdk = new Set(SDK_ROUTES.map((r) => r.path));
    const unlisted: string[] = [];
    for (const { methods, url } of served) {
      const declaredPath = ROUTES.some((r) => r.path === url);
      for (const method of methods.filter((m) => ["POST", "PUT", "PATCH", "DELETE"].includes(m))) {
        const name = `${method} ${url}`;
        if (!declaredPath) {
          // An SDK path logs nothing (SDK_REASON); other paths outside the route tables are listed.
          if (!sdk.has(url) && !(name in NO_ACTIVITY) && !(url in OUTSIDE_ROUTE_TABLES)) unlisted.push(name);
          continue;
        }
        // A method the path does not declare answers 405 (rest/routes.ts) and writes nothing.
        if (!ROUTES.some((r) => r.method === method && r.path === url)) continue;
        if (!(name in REST_CASES) && !(name in NO_ACTIVITY) && !notBuilt.has(name)) unlisted.push(name);
      }
    }
    expect(unlisted, "write routes neither audited nor listed as logging nothing").toEqual([]);
    for (const name of [...Object.keys(REST_CASES), ...Object.keys(NO_ACTIVITY)]) {
      const [method, path] = name.split(" "); // a third word names a second case of the route
      expect(
        served.some((r) => r.url === path && r.methods.includes(method!)),
        `${name} is not served`,
      ).toBe(true);
    }
    const mutations = rootFields()
      .filter((f) => f.operation === "mutation")
      .map((f) => f.field.name);
    const unlistedMutations = mutations.filter((m) => !(m in GRAPHQL_CASES) && !(m in NO_ACTIVITY_MUTATIONS));
    expect(unlistedMutations, "mutations neither audited nor listed as logging nothing").toEqual([]);
    for (const name of [...Object.keys(GRAPHQL_CASES), ...Object.keys(NO_ACTIVITY_MUTATIONS)])
      expect(mutations, `${name} is not a mutation`).toContain(name);
  });

  describe("REST", () => {
    for (const [name, c] of Object.entries(REST_CASES)) it(name, () => walk(name, c));
  });

  describe("GraphQL", () => {
    for (const [name, c] of Object.entries(GRAPHQL_CASES)) it(name, () => walk(name, c));
  });

  it(`logs nothing on the SDK paths: ${SDK_REASON}`, async () => {
    const s = server();
    const writes = SDK_ROUTES.filter((r) => r.methods.some((m) => m !== "GET"));
    expect(writes.length).toBeGreaterThan(0);
    const token = (await s.db.project.findUniqueOrThrow({ where: { id: project } })).apiToken;
    const before = await s.db.activityLog.count();
    const capture = await s.request("POST", "/e/", {
      key: null,
      body: { api_key: token, event: "audited", distinct_id: "audit-person", properties: {} },
    });
    expect(capture.status, capture.text).toBe(200);
    const flags = await s.request("POST", "/flags/?v=2", {
      key: null,
      body: { token, distinct_id: "audit-person" },
    });
    expect(flags.status, flags.text).toBe(200);
    expect(await s.db.activityLog.count()).toBe(before);
  });

  it("answers each operation not built yet with 501, writing nothing", async () => {
    const s = server();
    for (const route of ROUTES.filter((r) => Object.keys(r.responses).join() === "501")) {
      const path = route.path.replace(":project_id", String(project)).replace(":id", "1");
      const label = `${route.method} ${route.path}`;
      const response = await expectNothingWritten(s.db, label, () =>
        s.request(route.method, path, hasBody(route.method) ? { body: {} } : {}),
      );
      expect(response.status, `${label}: ${response.text}`).toBe(501);
    }
  });
});
