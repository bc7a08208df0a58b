/**
 * The composition root: the one place that knows every domain. It builds the domain services once
 * and assembles what the front doors are handed: the REST route tables, the GraphQL schema and the
 * SDK route tables (token-authenticated paths PostHog's SDKs call), and the job definitions.
 * src/app.ts takes these and serves them; the doors themselves (`rest/`, `graphql/`) import no domain
 * (checked by `npm run lint`, see .dependency-cruiser.cjs).
 *
 * Adding a domain: import its service factory, REST module and GraphQL types here (docs/architecture.md, "Adding a domain").
 */
import type { GraphQLSchema } from "graphql";
import { approvalJobs } from "./approvals/approvals.jobs.js";
import { approvalRoutes } from "./approvals/approvals.rest.js";
import "./approvals/graphql/index.js";
import { createApprovalService, markChangeRequestsStale } from "./approvals/approvals.service.js";
import { cohortRoutes } from "./cohorts/cohorts.rest.js";
import "./cohorts/graphql/index.js";
import { createCohortService } from "./cohorts/cohorts.service.js";
import { loadConfig, type RateLimitConfig } from "./config.js";
import { createActivityLogService, onActivityRecorded } from "./core/activity-log.js";
import type { RateLimitSettings } from "./core/rate-limit.js";
import { endpointRoutes } from "./endpoints/endpoints.rest.js";
import "./endpoints/graphql/index.js";
import { dashboardRoutes } from "./dashboards/dashboards.rest.js";
import { createEndpointService } from "./endpoints/endpoints.service.js";
import { experimentJobs } from "./experiments/experiments.jobs.js";
import { experimentRoutes } from "./experiments/experiments.rest.js";
import "./experiments/graphql/index.js";
import { createExperimentService } from "./experiments/experiments.service.js";
import { experimentQueryKind } from "./experiments/results/experiment-query-kind.js";
import "./dashboards/graphql/index.js";
import { createDashboardService } from "./dashboards/dashboards.service.js";
import { endpointJobs } from "./endpoints/materialization/materialization.jobs.js";
import { createMaterializationService } from "./endpoints/materialization/materialization.service.js";
import { eventDefinitionRoutes } from "./event-definitions/event-definitions.rest.js";
import "./event-definitions/graphql/index.js";
import type { JobModule, JobQueue } from "./core/jobs/jobs.js";
import type { ServiceDeps, Services } from "./core/services.js";
import { createEventDefinitionService } from "./event-definitions/event-definitions.service.js";
import { schemaPropertiesByEvent } from "./event-definitions/event-schemas.queries.js";
import { eventSchemaRoutes } from "./event-definitions/event-schemas.rest.js";
import { createEventSchemaService } from "./event-definitions/event-schemas.service.js";
import { featureFlagRoutes } from "./feature-flags/feature-flags.rest.js";
import "./feature-flags/graphql/index.js";
import { createFlagDefinitionsService } from "./feature-flags/delivery/definitions.js";
import { flagsSdkRoutes } from "./feature-flags/delivery/flags.sdk.js";
import { localEvaluationRoutes } from "./feature-flags/delivery/local-evaluation.rest.js";
import { localEvaluationSdkRoutes } from "./feature-flags/delivery/local-evaluation.sdk.js";
import { localEvaluationStreamRoutes } from "./feature-flags/delivery/local-evaluation.stream.js";
import { ofrepSdkRoutes } from "./feature-flags/delivery/ofrep.sdk.js";
import { createFlagEvaluationService } from "./feature-flags/evaluation/evaluation.service.js";
import { featureFlagJobs } from "./feature-flags/feature-flags.jobs.js";
import { createFeatureFlagService } from "./feature-flags/feature-flags.service.js";
import { builder } from "./graphql/builder.js";
import { withSynchronousNodeIds } from "./graphql/node.js";
import { ingestionSdkRoutes } from "./ingestion/ingestion.sdk.js";
import { createIngestionService } from "./ingestion/ingestion.service.js";
import "./graphql/root.js";
import { groupRoutes } from "./groups/groups.rest.js";
import "./groups/graphql/index.js";
import { createGroupService } from "./groups/groups.service.js";
import { personRoutes } from "./persons/persons.rest.js";
import "./persons/graphql/index.js";
import { createPersonService } from "./persons/persons.service.js";
import { projectRoutes } from "./projects/projects.rest.js";
import { propertyDefinitionRoutes } from "./property-definitions/property-definitions.rest.js";
import { createHogQLQueryKind } from "./queries/hogql-query.js";
import { queryRoutes } from "./queries/queries.rest.js";
import { createQueryService } from "./queries/query.service.js";
import { createQueryWorkers } from "./queries/query-workers.js";
import "./scheduled-changes/graphql/index.js";
import { createTrendsQueryKind } from "./queries/trends/trends-query-kind.js";
import { scheduledChangeJobs } from "./scheduled-changes/scheduled-changes.jobs.js";
import { scheduledChangeRoutes } from "./scheduled-changes/scheduled-changes.rest.js";
import { createScheduledChangeService } from "./scheduled-changes/scheduled-changes.service.js";
import "./property-definitions/graphql/index.js";
import { createPropertyDefinitionService } from "./property-definitions/property-definitions.service.js";
import "./projects/projects.graphql.js";
import { createProjectService } from "./projects/projects.service.js";
import type { EventStreamModule } from "./rest/event-streams.js";
import type { RestModule } from "./rest/route.js";
import type { SdkModule } from "./sdk/route.js";
import { organizationMemberRoutes } from "./users/organization-members.rest.js";
import { userRoutes } from "./users/users.rest.js";
import "./users/users.graphql.js";
import { createUserService } from "./users/users.service.js";
import "./webhooks/graphql/index.js";
import { webhookJobs } from "./webhooks/webhooks.jobs.js";
import { webhookRoutes } from "./webhooks/webhooks.rest.js";
import { createWebhookService, enqueueWebhookDeliveries } from "./webhooks/webhooks.service.js";

// A flag's change makes the change requests pending on it stale, in the same transaction.
onActivityRecorded(markChangeRequestsStale);
// Every activity entry of a delivered kind enqueues its webhook deliveries in its own transaction.
// Registered once per process: the listener holds no state, it works in the transaction it is handed.
onActivityRecorded(enqueueWebhookDeliveries);

/**
 * Builds every domain service, and the query worker pool they share (its threads start with the
 * first query; `closeServices` stops them).
 */
export function createServices(
  deps: ServiceDeps = { now: () => new Date(), config: loadConfig({}) },
): Services {
  const queryWorkers = createQueryWorkers(deps.config);
  const cohorts = createCohortService(deps);
  const flagDefinitions = createFlagDefinitionsService(deps);
  const groups = createGroupService(deps);
  const persons = createPersonService(deps);
  const flagEvaluation = createFlagEvaluationService(deps, flagDefinitions);
  const queries = createQueryService(deps, [
    createHogQLQueryKind(queryWorkers, deps.clickhouse),
    createTrendsQueryKind(queryWorkers, deps.clickhouse),
    experimentQueryKind,
  ]);
  const dashboards = createDashboardService({ queries });
  const endpointMaterialization = createMaterializationService(deps, queries);
  const approvals = createApprovalService(deps);
  const featureFlags = createFeatureFlagService(deps, {
    cohorts,
    persons,
    groups,
    evaluation: flagEvaluation,
    dashboards,
    approvals,
  });
  // An approved flag change is applied through the flag's own update path (issue 27).
  approvals.registerApplier("feature_flag", {
    scope: "FeatureFlag",
    apply: (ctx, projectId, intent) => featureFlags.applyApprovedChange(ctx, projectId, intent),
  });
  return {
    activityLog: createActivityLogService(),
    approvals,
    cohorts,
    dashboards,
    endpoints: createEndpointService(deps, {
      materialization: endpointMaterialization,
      queries,
      queryWorkers,
    }),
    endpointMaterialization,
    eventDefinitions: createEventDefinitionService(deps, { schemaPropertiesByEvent }),
    eventSchemas: createEventSchemaService(deps),
    experiments: createExperimentService(deps, { featureFlags, cohorts }),
    featureFlags,
    flagDefinitions,
    flagEvaluation,
    groups,
    ingestion: createIngestionService(deps),
    persons,
    projects: createProjectService(),
    propertyDefinitions: createPropertyDefinitionService(deps),
    queries,
    queryWorkers,
    scheduledChanges: createScheduledChangeService(deps, { featureFlags, approvals }),
    users: createUserService(),
    webhooks: createWebhookService(deps),
  };
}

/** Releases what the services hold beyond the database (the query worker threads), at shutdown. */
export async function closeServices(services: Services): Promise<void> {
  await services.queryWorkers.close();
}

/** Every domain's REST module, in registration order. */
export const REST_MODULES: readonly RestModule[] = [
  projectRoutes,
  userRoutes,
  organizationMemberRoutes,
  featureFlagRoutes,
  localEvaluationRoutes,
  cohortRoutes,
  personRoutes,
  groupRoutes,
  eventDefinitionRoutes,
  eventSchemaRoutes,
  propertyDefinitionRoutes,
  endpointRoutes,
  queryRoutes,
  dashboardRoutes,
  experimentRoutes,
  webhookRoutes,
  scheduledChangeRoutes,
  approvalRoutes,
];

/** Every domain's event-stream module (Server-Sent Events on the REST door's authentication: rest/event-streams.ts). */
export const EVENT_STREAM_MODULES: readonly EventStreamModule[] = [localEvaluationStreamRoutes];

/** Every domain's SDK module (the paths SDKs call: capture, `/flags`, OpenFeature's OFREP, the flag definitions). */
export const SDK_MODULES: readonly SdkModule[] = [
  ingestionSdkRoutes,
  flagsSdkRoutes,
  ofrepSdkRoutes,
  localEvaluationSdkRoutes,
];

/**
 * The process's rate limits as configured: the key's two windows, and the route scopes each domain
 * declares (`RateScopes`): local-evaluation polls and `remote_config` per project, capture and flag
 * evaluation per project token (core/rate-limit.ts).
 */
export function rateLimitSettings(config: RateLimitConfig): RateLimitSettings {
  return {
    burst: config.burst,
    sustained: config.sustained,
    scopes: {
      local_evaluation: config.localEvaluation,
      remote_config: config.remoteConfig,
      capture: config.capture,
      flags: config.flags,
    },
  };
}

/** Every domain's jobs (scheduled and queued work, run by the server's job queue: src/core/jobs/). */
export const JOB_MODULES: readonly JobModule[] = [
  featureFlagJobs,
  approvalJobs,
  endpointJobs,
  webhookJobs,
  experimentJobs,
  scheduledChangeJobs,
];

/** Hands the started job queue to the services that enqueue work themselves (endpoint materialization, experiment timeseries, scheduled changes). */
export async function attachJobQueue(services: Services, queue: JobQueue): Promise<void> {
  await services.endpointMaterialization.attachQueue(queue);
  await services.experiments.attachTimeseriesQueue(queue);
  await services.scheduledChanges.attachQueue(queue);
}

/**
 * The executable GraphQL schema: the root types and every domain's types. codegen.ts prints it,
 * sorted, to schema/schema.graphql; test/graphql/schema-drift.test.ts fails when that file is stale.
 */
export const schema: GraphQLSchema = withSynchronousNodeIds(builder.toSchema());
