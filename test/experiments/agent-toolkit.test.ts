/**
 * PostHog's own MCP client, @posthog/agent-toolkit (unchanged), against the server on PGlite and
 * PostgreSQL: issue 26 item A1. The toolkit's `ApiClient` (what `PostHogAgentToolkit.getContext()`
 * hands its tools) creates, gets, lists and updates experiments and feature flags under
 * `/api/projects/{id}/`, and every answer passes the toolkit's own zod validation (`ExperimentSchema`
 * requires `saved_metrics_ids`, null when none; `FeatureFlagSchema`; the paginated list shape). Then
 * the MCP tools themselves (`experiment-create`, `experiment-get`, `experiment-get-all`,
 * `experiment-update` and the four feature-flag tools) run through their handlers, which first find
 * the project from `GET /api/personal_api_keys/@current` and `GET /api/users/@me/` (so the key
 * carries `user:read` beside `experiment:write` and `feature_flag:write`, as PostHog's would) and
 * pick the tools the key's scopes allow.
 */
import { PostHogAgentToolkit } from "@posthog/agent-toolkit";
import { beforeAll, describe, expect, it } from "vitest";
import { describeEachBackend } from "../support/server.js";

/** A toolkit call's result (`{ success, data }` or `{ success: false, error }`). */
interface ToolkitResult {
  success: boolean;
  data?: unknown;
  error?: unknown;
}

/** The data of a toolkit call that succeeded; its error (a validation failure names the field) otherwise. */
// biome-ignore lint/suspicious/noExplicitAny: the toolkit's endpoints are typed `Record<string, any>`
function dataOf(result: ToolkitResult): any {
  if (!result.success) throw new Error(`toolkit call failed: ${String(result.error)}`);
  return result.data;
}

describeEachBackend("@posthog/agent-toolkit", (server) => {
  let toolkit: PostHogAgentToolkit;
  let projectId: string;
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${++n}`;

  beforeAll(async () => {
    const s = server();
    const key = await s.createKey(["experiment:write", "feature_flag:write", "user:read"]);
    toolkit = new PostHogAgentToolkit({ posthogApiToken: key, posthogApiBaseUrl: s.baseUrl });
    projectId = String(s.projectId);
  });

  describe("ApiClient experiments()", () => {
    const experiments = () => toolkit.getContext().api.experiments({ projectId });

    it("creates, gets, lists and updates an experiment, each answer passing ExperimentSchema", async () => {
      const flagKey = unique("toolkit-exp");
      const created = dataOf(
        await experiments().create({
          name: "Toolkit checkout test",
          description: "Does the new checkout convert better?",
          feature_flag_key: flagKey,
          primary_metrics: [{ name: "Purchases", metric_type: "mean", event_name: "purchase" }],
          secondary_metrics: [
            { metric_type: "funnel", event_name: "view", funnel_steps: ["view", "cart", "purchase"] },
          ],
          variants: [
            { key: "control", name: "Control", rollout_percentage: 50 },
            { key: "test", name: "Test", rollout_percentage: 50 },
          ],
          minimum_detectable_effect: 25,
        }),
      );
      expect(created).toMatchObject({
        name: "Toolkit checkout test",
        description: "Does the new checkout convert better?",
        feature_flag_key: flagKey,
        type: "product",
        saved_metrics_ids: null,
        saved_metrics: [],
        start_date: null,
        end_date: null,
        archived: false,
        deleted: false,
        parameters: {
          feature_flag_variants: [
            { key: "control", name: "Control", rollout_percentage: 50 },
            { key: "test", name: "Test", rollout_percentage: 50 },
          ],
          minimum_detectable_effect: 25,
        },
        feature_flag: { key: flagKey, active: false },
      });
      expect(created.metrics).toMatchObject([
        {
          kind: "ExperimentMetric",
          name: "Purchases",
          metric_type: "mean",
          source: { kind: "EventsNode", event: "purchase" },
        },
      ]);
      expect(created.metrics_secondary).toMatchObject([
        {
          kind: "ExperimentMetric",
          metric_type: "funnel",
          series: [
            { kind: "EventsNode", event: "view" },
            { kind: "EventsNode", event: "cart" },
            { kind: "EventsNode", event: "purchase" },
          ],
        },
      ]);

      const got = dataOf(await experiments().get({ experimentId: created.id }));
      expect(got).toStrictEqual(created);

      const listed = dataOf(await experiments().list());
      expect(listed.find((e: { id: number }) => e.id === created.id)).toStrictEqual(created);

      const updated = dataOf(
        await experiments().update({
          experimentId: created.id,
          updateData: {
            name: "Toolkit checkout test, renamed",
            description: "Renamed by the toolkit",
            parameters: { ...created.parameters, minimum_detectable_effect: 15 },
          },
        }),
      );
      expect(updated).toMatchObject({
        id: created.id,
        name: "Toolkit checkout test, renamed",
        description: "Renamed by the toolkit",
        feature_flag_key: flagKey,
        saved_metrics_ids: null,
        parameters: {
          minimum_detectable_effect: 15,
          feature_flag_variants: created.parameters.feature_flag_variants,
        },
      });
      expect(dataOf(await experiments().get({ experimentId: created.id }))).toStrictEqual(updated);
    });

    it("links shared metrics through saved_metrics_ids, answering them in saved_metrics (saved_metrics_ids stays null, as PostHog's)", async () => {
      const s = server();
      const metric = await s.request("POST", `/api/projects/${projectId}/experiment_saved_metrics/`, {
        body: {
          name: "Shared revenue",
          query: {
            kind: "ExperimentMetric",
            metric_type: "mean",
            source: { kind: "EventsNode", event: "purchase" },
          },
        },
      });
      expect(metric.status, metric.text).toBe(201);
      const created = dataOf(
        await experiments().create({ name: "With shared", feature_flag_key: unique("shared") }),
      );
      const updated = dataOf(
        await experiments().update({
          experimentId: created.id,
          updateData: { saved_metrics_ids: [{ id: metric.body.id, metadata: { type: "primary" } }] },
        }),
      );
      expect(updated.saved_metrics).toMatchObject([
        { saved_metric: metric.body.id, metadata: { type: "primary" }, name: "Shared revenue" },
      ]);
      expect(updated.saved_metrics_ids).toBeNull();
      expect(dataOf(await experiments().get({ experimentId: created.id }))).toStrictEqual(updated);
    });
  });

  describe("ApiClient featureFlags()", () => {
    const flags = () => toolkit.getContext().api.featureFlags({ projectId });

    it("creates, gets, lists, finds by key and updates a flag, each answer passing FeatureFlagSchema", async () => {
      const key = unique("toolkit-flag");
      const created = dataOf(
        await flags().create({
          data: {
            name: "Toolkit flag",
            key,
            description: "Made by the agent toolkit",
            active: true,
            filters: {
              groups: [
                {
                  properties: [{ key: "email", value: "@example.com", operator: "icontains" }],
                  rollout_percentage: 40,
                },
              ],
            },
          },
        }),
      );
      // PostHog's flags have no `description` (their `name` is the description): the toolkit sends one, and neither keeps it.
      expect(created).toMatchObject({ key, name: "Toolkit flag", active: true });
      expect(created.description).toBeUndefined();
      expect(created.filters.groups).toMatchObject([
        {
          properties: [{ key: "email", value: "@example.com", operator: "icontains", type: "person" }],
          rollout_percentage: 40,
        },
      ]);

      expect(dataOf(await flags().get({ flagId: created.id }))).toStrictEqual(created);
      expect(dataOf(await flags().list())).toContainEqual({
        id: created.id,
        key,
        name: "Toolkit flag",
        active: true,
      });
      expect(dataOf(await flags().findByKey({ key }))).toStrictEqual(created);

      const updated = dataOf(
        await flags().update({
          key,
          data: {
            name: "Toolkit flag, renamed",
            active: false,
            filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
          },
        }),
      );
      expect(updated).toMatchObject({
        id: created.id,
        key,
        name: "Toolkit flag, renamed",
        active: false,
      });
      expect(updated.filters.groups).toMatchObject([{ properties: [], rollout_percentage: 100 }]);
      expect(dataOf(await flags().get({ flagId: created.id }))).toStrictEqual(updated);
    });
  });

  describe("MCP tools", () => {
    /** Runs the toolkit's tool `name` as its MCP server does: input parsed by the tool's schema, then its handler; the JSON it answers. */
    const run = async (name: string, input: Record<string, unknown>) => {
      const tool = (await toolkit.getTools()).find((t) => t.name === name);
      if (!tool) throw new Error(`no tool ${name} for this key`);
      const answer = await tool.handler(toolkit.getContext(), tool.schema.parse(input));
      return JSON.parse(answer.content[0].text);
    };

    it("offers the experiment and flag tools the key's scopes allow", async () => {
      const names = (await toolkit.getTools()).map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          "experiment-create",
          "experiment-get",
          "experiment-get-all",
          "experiment-update",
          "create-feature-flag",
          "feature-flag-get-definition",
          "feature-flag-get-all",
          "update-feature-flag",
        ]),
      );
      expect(names).not.toContain("dashboard-create");
    });

    it("experiment-create, experiment-get, experiment-get-all and experiment-update succeed", async () => {
      const s = server();
      const flagKey = unique("tool-exp");
      const created = await run("experiment-create", {
        name: "Tool experiment",
        feature_flag_key: flagKey,
        primary_metrics: [{ metric_type: "mean", event_name: "$pageview" }],
      });
      expect(created).toMatchObject({
        name: "Tool experiment",
        feature_flag_key: flagKey,
        type: "product",
        saved_metrics_ids: null,
        parameters: {
          feature_flag_variants: [
            { key: "control", name: "Control", rollout_percentage: 50 },
            { key: "test", name: "Test", rollout_percentage: 50 },
          ],
          minimum_detectable_effect: 30,
        },
        url: `${s.baseUrl}/project/${s.projectId}/experiments/${created.id}`,
      });

      const got = await run("experiment-get", { experimentId: created.id });
      expect(got).toMatchObject({ id: created.id, name: "Tool experiment", saved_metrics_ids: null });

      const all = await run("experiment-get-all", {});
      expect(all.map((e: { id: number }) => e.id)).toContain(created.id);

      const updated = await run("experiment-update", {
        experimentId: created.id,
        data: { name: "Tool experiment, renamed", description: "Updated by the MCP tool", archive: true },
      });
      expect(updated).toMatchObject({
        id: created.id,
        name: "Tool experiment, renamed",
        description: "Updated by the MCP tool",
        archived: true,
        saved_metrics_ids: null,
      });
    });

    it("create-feature-flag, feature-flag-get-definition, feature-flag-get-all and update-feature-flag succeed", async () => {
      const key = unique("tool-flag");
      const created = await run("create-feature-flag", {
        name: "Tool flag",
        key,
        description: "Made by the MCP tool",
        active: true,
        filters: { groups: [{ properties: [], rollout_percentage: 25 }] },
      });
      expect(created).toMatchObject({ key, name: "Tool flag", active: true });

      expect(await run("feature-flag-get-definition", { flagId: created.id })).toMatchObject({
        id: created.id,
        key,
      });
      expect(await run("feature-flag-get-definition", { flagKey: key })).toMatchObject({
        id: created.id,
        key,
      });
      expect(await run("feature-flag-get-all", {})).toContainEqual({
        id: created.id,
        key,
        name: "Tool flag",
        active: true,
      });

      const updated = await run("update-feature-flag", { flagKey: key, data: { active: false } });
      expect(updated).toMatchObject({ id: created.id, key, name: "Tool flag", active: false });
    });
  });
});
