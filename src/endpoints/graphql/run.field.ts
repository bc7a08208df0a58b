/**
 * `Endpoint.run(input:)`: REST's `POST :name/run/` for GraphQL, through the same service method (the
 * input re-encoded into REST's body, so the same rules, cache, execution log and messages apply).
 * PostHog's run is a read, so it is a field of the `Endpoint` object (scope `endpoint:read`, as the
 * object), not a mutation. Its result is typed: `columns`, `types` and `rows` for a HogQL endpoint,
 * `trends` (one series per result) for a Trends endpoint; `response` holds REST's whole body.
 * Failures are typed errors with REST's messages (a version error is a `NotFoundError`; 429 a
 * `TooManyRequestsError`).
 */
import { builder } from "../../graphql/builder.js";
import { QUERY_RUN_ERRORS } from "../../graphql/errors.graphql.js";
import type { EndpointRunResult } from "../run/endpoint-run.js";
import { EndpointRef } from "./endpoint.type.js";

/** `refresh` of a run. */
const EndpointRunRefreshEnum = builder.enumType("EndpointRunRefresh", {
  description: "How a run uses the result cache (REST's `refresh`).",
  values: {
    BLOCKING: {
      value: "blocking",
      description: "Reuse a cached result younger than the version's cache age; else compute (the default).",
    },
    FORCE_BLOCKING: { value: "force_blocking", description: "Always compute, and cache the new result." },
  } as const,
});

const EndpointRunInput = builder.inputType("EndpointRunInput", {
  description: "Options of a run (REST's run body). Overrides are not offered: PostHog refuses them.",
  fields: (t) => ({
    variables: t.field({
      type: "JSON",
      description:
        "A JSON object. HogQL endpoints: `{code_name: value}` for the query's variables. Trends endpoints: " +
        "`date_from`, `date_to` and the breakdown property's name.",
    }),
    version: t.int({ description: "The version to run; the current one when absent." }),
    refresh: t.field({ type: EndpointRunRefreshEnum, description: "BLOCKING when absent." }),
    limit: t.int({ description: "HogQL endpoints only: rows per page (default 100, at most 50,000)." }),
    offset: t.int({ description: "HogQL endpoints only: rows to skip." }),
  }),
});

/** One column of a HogQL result. */
const EndpointColumnTypeRef = builder
  .objectRef<{ name: string; type: string }>("EndpointColumnType")
  .implement({
    description: "A HogQL result column and its type, as PostHog names types (ClickHouse's names).",
    fields: (t) => ({
      name: t.exposeString("name", { description: "The column's name." }),
      type: t.exposeString("type", {
        description: "Its type, e.g. `String`, `UInt64`, `Nullable(Float64)`.",
      }),
    }),
  });

/** One Trends series of a result (PostHog's TrendResult, the fields clients plot). */
interface TrendsSeries {
  label: string;
  days: string[];
  data: number[];
  count: number;
  breakdown_value?: unknown;
  aggregated_value?: number;
}

const EndpointTrendsSeriesRef = builder.objectRef<TrendsSeries>("EndpointTrendsSeries").implement({
  description: "One series of a Trends result (per series and breakdown value): PostHog's TrendResult.",
  fields: (t) => ({
    label: t.exposeString("label", { description: "The event name, the breakdown value, or both." }),
    days: t.exposeStringList("days", { description: "Bucket starts (`YYYY-MM-DD`, or with a time)." }),
    data: t.exposeFloatList("data", { description: "One value per bucket." }),
    count: t.exposeFloat("count", { description: "The sum of `data`." }),
    breakdownValue: t.field({
      type: "JSON",
      nullable: true,
      description: "The breakdown value of this series; null without a breakdown.",
      resolve: (series) => series.breakdown_value ?? null,
    }),
    aggregatedValue: t.float({
      nullable: true,
      description:
        "The one number of a total-value display (`BoldNumber`, `ActionsTable`, ...); null otherwise.",
      resolve: (series) => series.aggregated_value ?? null,
    }),
  }),
});

const isHogQL = (result: EndpointRunResult) => result.kind === "HogQLQuery";

const EndpointRunResultRef = builder.objectRef<EndpointRunResult>("EndpointRunResult").implement({
  description: "The result of running an endpoint (REST's run response, typed).",
  fields: (t) => ({
    columns: t.stringList({
      nullable: true,
      description: "HogQL: the result's column names; null for other kinds.",
      resolve: (result) => (isHogQL(result) ? (result.body["columns"] as string[]) : null),
    }),
    types: t.field({
      type: [EndpointColumnTypeRef],
      nullable: true,
      description: "HogQL: each column's type; null for other kinds.",
      resolve: (result) =>
        isHogQL(result)
          ? ((result.body["types"] as Array<[string, string]>) ?? []).map(([name, type]) => ({ name, type }))
          : null,
    }),
    rows: t.field({
      type: t.listRef(t.listRef("JSON", { nullable: true })),
      nullable: true,
      description: "HogQL: the rows, each a list of values in `columns` order; null for other kinds.",
      resolve: (result) => (isHogQL(result) ? (result.body["results"] as unknown[][]) : null),
    }),
    trends: t.field({
      type: [EndpointTrendsSeriesRef],
      nullable: true,
      description: "Trends: one series per series and breakdown value; null for other kinds.",
      resolve: (result) =>
        result.kind === "TrendsQuery" ? (result.body["results"] as TrendsSeries[]) : null,
    }),
    hasMore: t.boolean({
      description: "HogQL: more rows follow this page; Trends: an `Other` breakdown bucket exists.",
      resolve: (result) => result.body["hasMore"] === true,
    }),
    isCached: t.boolean({
      description: "Whether the result came from the cache.",
      resolve: (result) => result.body["is_cached"] === true,
    }),
    lastRefresh: t.field({
      type: "DateTime",
      description: "When the result was computed (the cached result's own time on a hit).",
      resolve: (result) => new Date(String(result.body["last_refresh"])),
    }),
    endpointVersion: t.int({
      description: "The version that ran.",
      resolve: (result) => Number(result.body["endpoint_version"]),
    }),
    executionId: t.string({
      description: "The run's id in the execution log.",
      resolve: (result) => String(result.body["execution_id"]),
    }),
    response: t.field({
      type: "JSON",
      description: "REST's whole run response (PostHog's shape, `results` first).",
      resolve: (result) => result.body,
    }),
  }),
});

builder.objectFields(EndpointRef, (t) => ({
  run: t.field({
    type: EndpointRunResultRef,
    description:
      "Runs the endpoint (REST `POST :name/run/`): PostHog's rules, the result cache and the execution log. " +
      "Only active endpoints and versions run. Scope `endpoint:read`.",
    args: { input: t.arg({ type: EndpointRunInput, description: "Options of the run." }) },
    errors: {
      types: QUERY_RUN_ERRORS,
      union: { name: "EndpointRunOutcome", description: "The run's result, or why it failed." },
      result: { name: "EndpointRunSuccess", description: "The endpoint ran." },
      dataField: { name: "result", description: "The run's result." },
    },
    resolve: async (endpoint, args, ctx) => {
      const input = args.input ?? {};
      const body: Record<string, unknown> = {};
      if (input.variables !== null && input.variables !== undefined) body["variables"] = input.variables;
      if (input.version !== null && input.version !== undefined) body["version"] = input.version;
      if (input.refresh !== null && input.refresh !== undefined) body["refresh"] = input.refresh;
      if (input.limit !== null && input.limit !== undefined) body["limit"] = input.limit;
      if (input.offset !== null && input.offset !== undefined) body["offset"] = input.offset;
      return ctx.services.endpoints.run(
        await ctx.serviceContext(),
        endpoint.projectId,
        { id: endpoint.id },
        { body, versionParam: null },
      );
    },
  }),
}));
