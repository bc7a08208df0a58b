/**
 * Dashboards through the GraphQL door, on both backends: a flag's `usageDashboard` with its tiles,
 * insights and typed Trends series (the same numbers REST shows, from one service), `Project.dashboards`,
 * and the mutations `createFlagUsageDashboard` / `enrichFlagUsageDashboard` with typed errors carrying
 * REST's messages and the scope refusals. The behaviour is covered through REST in dashboards.rest.test.ts.
 */
import { encodeGlobalID } from "@pothos/plugin-relay";
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { capture } from "../queries/trends/fixture.js";
import { createFlag } from "../support/flags.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const NOW = new Date("2026-11-20T15:00:00Z");

const FlagDashboard = graphql(`
  query FlagUsageDashboard($id: ID!) {
    node(id: $id) {
      ... on FeatureFlag {
        key
        usageDashboard {
          id
          databaseId
          name
          creationMode
          filters
          tags
          tiles {
            color
            insight {
              name
              shortId
              query
              result {
                hasMore
                timezone
                lastRefresh
                series { label days data count aggregatedValue breakdownValue }
              }
            }
          }
        }
      }
    }
  }
`);

const ProjectDashboards = graphql(`
  query ProjectDashboards($id: ID!) {
    node(id: $id) {
      ... on Project {
        dashboards(first: 10) { totalCount edges { node { databaseId name } } }
      }
    }
  }
`);

const CreateUsageDashboard = graphql(`
  mutation CreateFlagUsageDashboard($input: FlagUsageDashboardInput!) {
    createFlagUsageDashboard(input: $input) {
      __typename
      ... on CreateFlagUsageDashboardSuccess { dashboard { databaseId name } }
      ... on Error { message code }
    }
  }
`);

const EnrichUsageDashboard = graphql(`
  mutation EnrichFlagUsageDashboard($input: FlagUsageDashboardInput!) {
    enrichFlagUsageDashboard(input: $input) {
      __typename
      ... on EnrichFlagUsageDashboardSuccess { dashboard { databaseId tiles { insight { name } } } }
      ... on Error { message code }
    }
  }
`);

describeEachBackend(
  "dashboards (GraphQL)",
  (server) => {
    let flag: { id: number; key: string; usage_dashboard: number };
    const flagNode = () => encodeGlobalID("FeatureFlag", `${server().projectId}:${flag.id}`);

    beforeAll(async () => {
      const s = server();
      flag = await createFlag(s, { key: "gql-flag" });
      const call = (distinct_id: string, response: string, day: string) => ({
        event: "$feature_flag_called",
        distinct_id,
        timestamp: `2026-11-${day}T08:00:00Z`,
        properties: { $feature_flag: "gql-flag", $feature_flag_response: response },
      });
      await capture(s, s.projectId, [
        call("a", "true", "19"),
        call("a", "true", "20"),
        call("b", "true", "20"),
        call("c", "false", "20"),
      ]);
    });

    it("shows the flag's usage dashboard with typed series per variant", async () => {
      const s = server();
      const answer = await execute(s, FlagDashboard, { id: flagNode() });
      expect(answer.errors).toBeUndefined();
      const node = answer.data.node;
      if (!node || !("usageDashboard" in node) || !node.usageDashboard) throw new Error(JSON.stringify(node));
      const dashboard = node.usageDashboard;
      expect(dashboard).toMatchObject({
        databaseId: flag.usage_dashboard,
        name: "Generated Dashboard: gql-flag Usage",
        creationMode: "template",
        filters: { date_from: "-30d" },
        tags: ["feature flags"],
      });
      const [volume, users] = dashboard.tiles;
      expect(volume?.color).toBe("blue");
      const byValue = (tile: typeof volume, value: string) =>
        tile?.insight.result?.series.find((s) => s.breakdownValue?.[0] === value);
      const yes = byValue(volume, "true");
      expect(yes?.days.at(-1)).toBe("2026-11-20");
      expect(yes?.data?.slice(-2)).toEqual([1, 2]);
      expect(yes?.count).toBe(3);
      expect(byValue(volume, "false")?.count).toBe(1);
      expect(byValue(users, "true")?.aggregatedValue).toBe(2);
      expect(byValue(users, "false")?.aggregatedValue).toBe(1);
      expect(volume?.insight.result?.lastRefresh).toBe(NOW.toISOString());
      // The same numbers REST shows.
      const rest = await s.request("GET", `/api/projects/${s.projectId}/dashboards/${flag.usage_dashboard}/`);
      expect(rest.body.tiles[0].insight.result.map((r: { count: number }) => r.count).sort()).toEqual(
        volume?.insight.result?.series.map((r) => r.count).sort(),
      );
    });

    it("lists the project's dashboards as a connection", async () => {
      const s = server();
      const answer = await execute(s, ProjectDashboards, {
        id: encodeGlobalID("Project", String(s.projectId)),
      });
      expect(answer.errors).toBeUndefined();
      const node = answer.data.node;
      if (!node || !("dashboards" in node)) throw new Error(JSON.stringify(node));
      expect(node.dashboards?.totalCount).toBeGreaterThanOrEqual(1);
      expect(node.dashboards?.edges.map((e) => e.node.databaseId)).toContain(flag.usage_dashboard);
    });

    it("createFlagUsageDashboard writes another dashboard and links it", async () => {
      const s = server();
      const answer = await execute(s, CreateUsageDashboard, {
        input: { projectId: String(s.projectId), featureFlagId: flagNode() },
      });
      const result = answer.data.createFlagUsageDashboard;
      if (result?.__typename !== "CreateFlagUsageDashboardSuccess") throw new Error(JSON.stringify(answer));
      expect(result.dashboard.name).toBe("Generated Dashboard: gql-flag Usage");
      const stored = await s.db.featureFlag.findUniqueOrThrow({ where: { id: flag.id } });
      expect(stored.usageDashboardId).toBe(result.dashboard.databaseId);
    });

    it("enrichFlagUsageDashboard refuses with REST's message, then enriches", async () => {
      const s = server();
      const input = { projectId: String(s.projectId), featureFlagId: String(flag.id) };
      const refused = await execute(s, EnrichUsageDashboard, { input });
      expect(refused.data.enrichFlagUsageDashboard).toMatchObject({
        __typename: "ValidationError",
        message: "No enriched analytics available for this feature flag",
      });
      await capture(s, s.projectId, [
        {
          event: "$feature_view",
          distinct_id: "a",
          timestamp: "2026-11-20T09:00:00Z",
          properties: { feature_flag: "gql-flag" },
        },
      ]);
      const ok = await execute(s, EnrichUsageDashboard, { input });
      const result = ok.data.enrichFlagUsageDashboard;
      if (result?.__typename !== "EnrichFlagUsageDashboardSuccess") throw new Error(JSON.stringify(ok));
      expect(result.dashboard.tiles.map((t) => t.insight.name)).toContain("Feature Viewed Total Volume");
      const again = await execute(s, EnrichUsageDashboard, { input });
      expect(again.data.enrichFlagUsageDashboard).toMatchObject({
        __typename: "ValidationError",
        message: "Usage dashboard already has enriched data",
      });
    });

    it("answers typed errors for an unknown flag and a missing scope", async () => {
      const s = server();
      const unknown = await execute(s, CreateUsageDashboard, {
        input: { projectId: String(s.projectId), featureFlagId: "987654" },
      });
      expect(unknown.data.createFlagUsageDashboard?.__typename).toBe("NotFoundError");
      const before = await s.db.dashboard.count();
      const flagsOnly = await s.createKey(["feature_flag:write"]);
      const denied = await execute(
        s,
        CreateUsageDashboard,
        { input: { projectId: String(s.projectId), featureFlagId: String(flag.id) } },
        flagsOnly,
      );
      expect(denied.data.createFlagUsageDashboard?.__typename).toBe("PermissionDeniedError");
      expect(await s.db.dashboard.count()).toBe(before);
      const read = await execute(s, FlagDashboard, { id: flagNode() }, flagsOnly);
      const node = read.data.node;
      expect(node && "usageDashboard" in node ? node.usageDashboard : "absent").toBeNull();
      expect(read.errors?.[0]?.message).toMatch(/dashboard:read/);
    });
  },
  { now: () => NOW },
);
