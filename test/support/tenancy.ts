/**
 * The tenants an authorization test needs around a test server's bootstrap project: a flag, a
 * person with group type 0 and its group `x`, a dynamic cohort and a static cohort holding the
 * person, an event definition with a schema property group attached, a saved-query endpoint, another project of the same organization with its own flag, person, group and cohorts, a second organization the user is also a member of,
 * and an organization (with a project) the user is not a member of. Flags and cohorts are created
 * through the REST door with the all-scopes key, as a client would; the person is a fixture row.
 */

import { expect } from "vitest";
import { createChangeRequestFixture, createPolicyFixture } from "./approvals.js";
import { createFlag } from "./flags.js";
import { insertGroups, insertGroupType } from "./groups.js";
import { insertPerson } from "./people.js";
import type { TestServer } from "./server.js";

/** Ids of the fixtures; "own" is the bootstrap project and organization. */
export interface Tenancy {
  project: number;
  organization: string;
  /** A flag of the bootstrap project. */
  flag: number;
  /** Another project of the bootstrap organization. */
  otherProject: number;
  /** A flag of `otherProject`. */
  otherFlag: number;
  /** A dynamic cohort of the bootstrap project. */
  cohort: number;
  /** A static cohort of the bootstrap project, holding `person`. */
  staticCohort: number;
  /** A person of the bootstrap project (its integer id and uuid), with group type 0 and its group `x`. */
  person: { id: number; uuid: string };
  /** The usage dashboard of `flag` (written with it). */
  dashboard: number;
  /** The usage dashboard of `otherFlag`. */
  otherDashboard: number;
  /** A person of `otherProject`. */
  otherPerson: { id: number; uuid: string };
  /** A dynamic and a static cohort of `otherProject`. */
  otherCohort: number;
  otherStaticCohort: number;
  /** An event definition (UUID) of the bootstrap project and one of `otherProject`. */
  eventDefinition: string;
  otherEventDefinition: string;
  /** A schema property group (UUID) of the bootstrap project and one of `otherProject`. */
  schemaPropertyGroup: string;
  otherSchemaPropertyGroup: string;
  /** An event schema (UUID) of each: `eventDefinition` with `schemaPropertyGroup`, and the other project's pair. */
  eventSchema: string;
  otherEventSchema: string;
  /** A property definition (UUID) of the bootstrap project and one of `otherProject`. */
  propertyDefinition: string;
  otherPropertyDefinition: string;
  /** A saved-query endpoint (its name and UUID) of the bootstrap project and one of `otherProject`. */
  endpoint: string;
  endpointId: string;
  otherEndpoint: string;
  otherEndpointId: string;
  /** An experiment (draft, on its own flag), a holdout and a saved metric of the bootstrap project and of `otherProject`. */
  experiment: number;
  otherExperiment: number;
  holdout: number;
  otherHoldout: number;
  savedMetric: number;
  otherSavedMetric: number;
  /** A webhook (disabled: fixtures deliver nothing) of the bootstrap project and one of `otherProject`. */
  webhook: number;
  otherWebhook: number;
  /** A scheduled change (due in 2099: it never applies) of `flag`, and one of `otherFlag`. */
  scheduledChange: number;
  otherScheduledChange: number;
  /** An approval policy no write matches, of the bootstrap project and of `otherProject` (support/approvals.ts). */
  approvalPolicy: string;
  otherApprovalPolicy: string;
  /** A pending change request by another member, of the bootstrap project and of `otherProject`. */
  changeRequest: string;
  otherChangeRequest: string;
  /** Another organization the user is a member of (with no projects). */
  secondOrganization: string;
  /** An organization the user is not a member of. */
  foreignOrganization: string;
  /** A project of `foreignOrganization`. */
  foreignProject: number;
}

/** Creates the fixtures on `s` (see the module comment); `label` keeps names unique per caller. */
export async function createTenancy(s: TestServer, label: string): Promise<Tenancy> {
  const otherProject = await s.createProject(`${label} other`);
  const second = await s.db.organization.create({ data: { name: `${label} second` } });
  await s.db.organizationMembership.create({ data: { organizationId: second.id, userId: s.userId } });
  const foreignProject = await s.createForeignProject(`${label} foreign`);
  const foreign = await s.db.project.findUniqueOrThrow({ where: { id: foreignProject } });
  const person = await insertPerson(s.db, s.projectId, { distinctIds: [`${label}-own-person`] });
  const otherPerson = await insertPerson(s.db, otherProject, { distinctIds: [`${label}-other-person`] });
  for (const project of [s.projectId, otherProject]) {
    await insertGroupType(s.db, project, 0, "company");
    // Key "x": what the route-walking tests give a required string argument (`groupKey`).
    await insertGroups(s.db, project, [{ groupTypeIndex: 0, groupKey: "x" }]);
  }
  const cohort = (project: number, body: Record<string, unknown>) => createCohort(s, project, body);
  const eventDefinition = await createEventDefinition(s, s.projectId, `${label} own event`);
  const otherEventDefinition = await createEventDefinition(s, otherProject, `${label} other event`);
  const schemaPropertyGroup = await createSchemaPropertyGroup(s, s.projectId, `${label} own group`);
  const otherSchemaPropertyGroup = await createSchemaPropertyGroup(s, otherProject, `${label} other group`);
  const ownEndpoint = await createEndpointRecord(s, s.projectId, `${endpointName(label)}_own`);
  const otherEndpoint = await createEndpointRecord(s, otherProject, `${endpointName(label)}_other`);
  const flag = await createFlag(s, { key: `${label}-own` });
  const experiment = (project: number, name: string) => createExperiment(s, project, name);
  const holdout = (project: number, name: string) => createHoldout(s, project, name);
  const savedMetric = (project: number, name: string) => createSavedMetric(s, project, name);
  const otherFlag = await createFlag(s, { key: `${label}-other` }, otherProject);
  return {
    cohort: await cohort(s.projectId, { name: `${label} dynamic` }),
    staticCohort: await cohort(s.projectId, {
      name: `${label} static`,
      is_static: true,
      _create_static_person_ids: [person.uuid],
    }),
    person: { id: Number(person.id), uuid: person.uuid },
    otherPerson: { id: Number(otherPerson.id), uuid: otherPerson.uuid },
    otherCohort: await cohort(otherProject, { name: `${label} other dynamic` }),
    otherStaticCohort: await cohort(otherProject, { name: `${label} other static`, is_static: true }),
    eventDefinition,
    otherEventDefinition,
    schemaPropertyGroup,
    otherSchemaPropertyGroup,
    eventSchema: await createEventSchema(s, s.projectId, eventDefinition, schemaPropertyGroup),
    otherEventSchema: await createEventSchema(
      s,
      otherProject,
      otherEventDefinition,
      otherSchemaPropertyGroup,
    ),
    propertyDefinition: await createPropertyDefinition(s, s.projectId, `${label} own property`),
    otherPropertyDefinition: await createPropertyDefinition(s, otherProject, `${label} other property`),
    endpoint: ownEndpoint.name,
    endpointId: ownEndpoint.id,
    otherEndpoint: otherEndpoint.name,
    otherEndpointId: otherEndpoint.id,
    project: s.projectId,
    organization: s.organizationId,
    flag: flag.id,
    dashboard: flag.usage_dashboard,
    otherProject,
    otherFlag: otherFlag.id,
    otherDashboard: otherFlag.usage_dashboard,
    experiment: await experiment(s.projectId, `${label}-own-experiment`),
    otherExperiment: await experiment(otherProject, `${label}-other-experiment`),
    holdout: await holdout(s.projectId, `${label} own holdout`),
    otherHoldout: await holdout(otherProject, `${label} other holdout`),
    savedMetric: await savedMetric(s.projectId, `${label} own metric`),
    otherSavedMetric: await savedMetric(otherProject, `${label} other metric`),
    webhook: await createWebhook(s, s.projectId),
    otherWebhook: await createWebhook(s, otherProject),
    scheduledChange: await createScheduledChange(s, s.projectId, flag.id),
    otherScheduledChange: await createScheduledChange(s, otherProject, otherFlag.id),
    approvalPolicy: await createPolicyFixture(s, s.projectId),
    otherApprovalPolicy: await createPolicyFixture(s, otherProject),
    changeRequest: await createChangeRequestFixture(s, s.projectId, flag.id),
    otherChangeRequest: await createChangeRequestFixture(s, otherProject, otherFlag.id),
    secondOrganization: second.id,
    foreignOrganization: foreign.organizationId,
    foreignProject,
  };
}

/** Creates a cohort through REST with the all-scopes key; returns its id. */
async function createCohort(s: TestServer, project: number, body: Record<string, unknown>): Promise<number> {
  const response = await s.request("POST", `/api/projects/${project}/cohorts/`, { body });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

/** Creates an event definition named `name` through REST with the all-scopes key; returns its UUID. */
export async function createEventDefinition(s: TestServer, project: number, name: string): Promise<string> {
  const created = await s.request("POST", `/api/projects/${project}/event_definitions/`, { body: { name } });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

/** Creates a schema property group named `name` (one `String` property) through REST; returns its UUID. */
export async function createSchemaPropertyGroup(
  s: TestServer,
  project: number,
  name: string,
): Promise<string> {
  const created = await s.request("POST", `/api/projects/${project}/schema_property_groups/`, {
    body: { name, properties: [{ name: "plan", property_type: "String" }] },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

/** Attaches group `group` to event definition `event` through REST; returns the event schema's UUID. */
export async function createEventSchema(
  s: TestServer,
  project: number,
  event: string,
  group: string,
): Promise<string> {
  const created = await s.request("POST", `/api/projects/${project}/event_schemas/`, {
    body: { event_definition: event, property_group_id: group },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

/**
 * Records an event property named `name` in `project`'s catalogue, as capture does (a fixture row:
 * nothing creates property definitions through the API); returns its UUID.
 */
export async function createPropertyDefinition(
  s: TestServer,
  project: number,
  name: string,
): Promise<string> {
  const created = await s.db.propertyDefinition.create({
    data: { projectId: project, name, type: 1, propertyType: "String" },
    select: { id: true },
  });
  return created.id;
}

/** `label` as the start of an endpoint name (a letter, then letters, digits, `_` and `-`). */
export function endpointName(label: string): string {
  return `e${label.replace(/[^a-zA-Z0-9_-]/g, "_")}`;
}

/** Creates a saved-query endpoint named `name` (a HogQL query) through REST with the all-scopes key; returns its name. */
export async function createEndpoint(s: TestServer, project: number, name: string): Promise<string> {
  return (await createEndpointRecord(s, project, name)).name;
}

/**
 * `createEndpoint`, answering the endpoint's name and UUID. Not materialized (a HogQL endpoint is by
 * default): a refresh would write in the background while a test compares the database's rows.
 */
export async function createEndpointRecord(
  s: TestServer,
  project: number,
  name: string,
): Promise<{ name: string; id: string }> {
  const created = await s.request("POST", `/api/projects/${project}/endpoints/`, {
    body: {
      name,
      query: { kind: "HogQLQuery", query: "SELECT count() FROM events" },
      is_materialized: false,
    },
  });
  expect(created.status, created.text).toBe(201);
  return { name: created.body.name, id: created.body.id };
}

/**
 * Creates an experiment named `name` (on a new flag keyed by the name) through REST, a draft unless
 * `extra` (more body fields) gives a `start_date`; returns its id.
 */
export async function createExperiment(
  s: TestServer,
  project: number,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const key = name.replace(/[^a-zA-Z0-9_-]/g, "-");
  const created = await s.request("POST", `/api/projects/${project}/experiments/`, {
    body: { name, feature_flag_key: key, ...extra },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

/** Creates a holdout (10% of users) through REST; returns its id. */
export async function createHoldout(s: TestServer, project: number, name: string): Promise<number> {
  const created = await s.request("POST", `/api/projects/${project}/experiment_holdouts/`, {
    body: { name, filters: [{ properties: [], rollout_percentage: 10 }] },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

/** Creates a saved mean metric through REST; returns its id. */
export async function createSavedMetric(s: TestServer, project: number, name: string): Promise<number> {
  const created = await s.request("POST", `/api/projects/${project}/experiment_saved_metrics/`, {
    body: {
      name,
      query: { kind: "ExperimentMetric", metric_type: "mean", source: { kind: "EventsNode", event: "buy" } },
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

/**
 * Creates a webhook through REST, disabled (so that the fixtures' writes enqueue no delivery) and
 * pointed at a private address (refused if it ever were enabled); returns its id.
 */
export async function createWebhook(s: TestServer, project: number): Promise<number> {
  const created = await s.request("POST", `/api/projects/${project}/webhooks/`, {
    body: { url: "http://10.0.0.1/fixture", kinds: ["feature_flag.deleted"], enabled: false },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

/**
 * Creates a scheduled change of flag `flagId` through REST, turning it off in 2099 (so that it never
 * applies during a test); returns its id.
 */
export async function createScheduledChange(s: TestServer, project: number, flagId: number): Promise<number> {
  const created = await s.request("POST", `/api/projects/${project}/scheduled_changes/`, {
    body: {
      record_id: flagId,
      model_name: "FeatureFlag",
      payload: { operation: "update_status", value: false },
      scheduled_at: "2099-01-01T00:00:00Z",
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}
