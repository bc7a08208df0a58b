/**
 * Experiment holdouts (`experiment_holdouts/`) and saved metrics (`experiment_saved_metrics/`) over
 * REST, on PGlite and PostgreSQL: CRUD as PostHog models them, holdout groups stamped
 * `variant: "holdout-<id>"`, a draft experiment's flag following its holdout (in the holdout's
 * transaction: a failed holdout write leaves its drafts' flags as they were), PostHog's validation,
 * missing scopes, activity entries.
 */
import { describe, expect, it } from "vitest";
import { describeEachBackend } from "../support/server.js";

describeEachBackend("experiment holdouts and saved metrics over REST", (server) => {
  const holdouts = () => `/api/projects/${server().projectId}/experiment_holdouts`;
  const metrics = () => `/api/projects/${server().projectId}/experiment_saved_metrics`;
  const query = {
    kind: "ExperimentMetric",
    metric_type: "mean",
    source: { kind: "EventsNode", event: "buy" },
  };

  describe("holdouts", () => {
    it("creates, lists, retrieves, updates and deletes, stamping each group's variant", async () => {
      const s = server();
      const created = await s.request("POST", `${holdouts()}/`, {
        body: {
          name: "Ten percent",
          description: "kept out",
          filters: [{ properties: [], rollout_percentage: 10 }],
        },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id;
      expect(created.body).toMatchObject({
        name: "Ten percent",
        description: "kept out",
        filters: [{ properties: [], rollout_percentage: 10, variant: `holdout-${id}` }],
        created_by: { id: s.userId },
      });
      const listed = await s.request("GET", holdouts());
      expect(listed.status).toBe(200);
      expect(listed.body.results.map((h: { id: number }) => h.id)).toContain(id);
      expect((await s.request("GET", `${holdouts()}/${id}`)).body.name).toBe("Ten percent");

      // A draft experiment on the holdout: its flag's holdout groups follow the holdout's changes.
      const experiment = await s.request("POST", `/api/projects/${s.projectId}/experiments/`, {
        body: { name: "With holdout", feature_flag_key: "with-holdout", holdout_id: id },
      });
      expect(experiment.status, experiment.text).toBe(201);
      expect(experiment.body.holdout).toMatchObject({ id });
      const patched = await s.request("PATCH", `${holdouts()}/${id}/`, {
        body: { filters: [{ properties: [], rollout_percentage: 20 }] },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.filters).toEqual([
        { properties: [], rollout_percentage: 20, variant: `holdout-${id}` },
      ]);
      const flag = await s.db.featureFlag.findFirstOrThrow({ where: { key: "with-holdout" } });
      expect((flag.filters as { holdout_groups: unknown }).holdout_groups).toEqual(patched.body.filters);

      const replaced = await s.request("PUT", `${holdouts()}/${id}/`, {
        body: { name: "Renamed", filters: [{ properties: [], rollout_percentage: 5 }] },
      });
      expect(replaced.status, replaced.text).toBe(200);
      expect(replaced.body.name).toBe("Renamed");

      const removed = await s.request("DELETE", `${holdouts()}/${id}/`);
      expect(removed.status).toBe(204);
      expect((await s.request("GET", `${holdouts()}/${id}/`)).status).toBe(404);
      const after = await s.request("GET", `/api/projects/${s.projectId}/experiments/${experiment.body.id}/`);
      expect(after.body.holdout).toBeNull();
      const entries = await s.db.activityLog.findMany({
        where: { scope: "ExperimentHoldout", itemId: String(id) },
      });
      expect(entries.map((e) => e.activity).sort()).toEqual(["created", "deleted", "updated", "updated"]);
    });

    it("writes nothing, neither its drafts' flags nor an entry, when the holdout's own update fails", async () => {
      const s = server();
      const created = await s.request("POST", `${holdouts()}/`, {
        body: { name: "Doomed holdout", filters: [{ properties: [], rollout_percentage: 10 }] },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id as number;
      const flagIds: number[] = [];
      for (const key of ["doomed-holdout-a", "doomed-holdout-b"]) {
        const draft = await s.request("POST", `/api/projects/${s.projectId}/experiments/`, {
          body: { name: key, feature_flag_key: key, holdout_id: id },
        });
        expect(draft.status, draft.text).toBe(201);
        flagIds.push(draft.body.feature_flag.id);
      }
      const flagsBefore = await s.db.featureFlag.findMany({
        where: { id: { in: flagIds } },
        orderBy: { id: "asc" },
      });
      const entriesBefore = await s.db.activityLog.count({
        where: {
          OR: [
            { scope: "FeatureFlag", itemId: { in: flagIds.map(String) } },
            { scope: "ExperimentHoldout", itemId: String(id) },
          ],
        },
      });
      // The database refuses this holdout's update, after its drafts' flags were written in the same transaction.
      await s.db.$executeRawUnsafe(`CREATE FUNCTION refuse_holdout_update() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'holdout write refused by the test'; END $$`);
      await s.db.$executeRawUnsafe(`CREATE TRIGGER refuse_holdout_update BEFORE UPDATE ON experiment_holdouts
        FOR EACH ROW WHEN (NEW.id = ${Number(id)}) EXECUTE FUNCTION refuse_holdout_update()`);
      try {
        const answer = await s.request("PATCH", `${holdouts()}/${id}/`, {
          body: { filters: [{ properties: [], rollout_percentage: 30 }] },
        });
        expect(answer.status, answer.text).toBe(500);
      } finally {
        await s.db.$executeRawUnsafe("DROP TRIGGER refuse_holdout_update ON experiment_holdouts");
        await s.db.$executeRawUnsafe("DROP FUNCTION refuse_holdout_update()");
        s.errorLogs.length = 0;
      }
      const flagsAfter = await s.db.featureFlag.findMany({
        where: { id: { in: flagIds } },
        orderBy: { id: "asc" },
      });
      expect(flagsAfter.map((f) => ({ filters: f.filters, version: f.version }))).toEqual(
        flagsBefore.map((f) => ({ filters: f.filters, version: f.version })),
      );
      const entriesAfter = await s.db.activityLog.count({
        where: {
          OR: [
            { scope: "FeatureFlag", itemId: { in: flagIds.map(String) } },
            { scope: "ExperimentHoldout", itemId: String(id) },
          ],
        },
      });
      expect(entriesAfter).toBe(entriesBefore);

      // Without the trigger the same update rewrites both drafts' flags, each with its own entry.
      const patched = await s.request("PATCH", `${holdouts()}/${id}/`, {
        body: { filters: [{ properties: [], rollout_percentage: 30 }] },
      });
      expect(patched.status, patched.text).toBe(200);
      const rewritten = await s.db.featureFlag.findMany({
        where: { id: { in: flagIds } },
        orderBy: { id: "asc" },
      });
      for (const [i, flag] of rewritten.entries()) {
        expect((flag.filters as { holdout_groups: unknown }).holdout_groups).toEqual(patched.body.filters);
        expect(flag.version).toBe(flagsBefore[i]!.version + 1);
      }
      expect(
        await s.db.activityLog.count({
          where: {
            OR: [
              { scope: "FeatureFlag", itemId: { in: flagIds.map(String) } },
              { scope: "ExperimentHoldout", itemId: String(id) },
            ],
          },
        }),
      ).toBe(entriesBefore + 3);
    });

    it("refuses groups without a rollout percentage in [0, 100], and a missing name", async () => {
      const s = server();
      for (const [body, detail, attr] of [
        [{ name: "x", filters: [{ properties: [] }] }, "Rollout percentage must be present.", "filters"],
        [
          { name: "x", filters: [{ rollout_percentage: 101 }] },
          "Rollout percentage must be between 0 and 100.",
          "filters",
        ],
        [{ filters: [] }, "This field is required.", "name"],
        [{ name: "x", filters: "all" }, expect.any(String), "filters"],
      ] as const) {
        const answer = await s.request("POST", `${holdouts()}/`, { body });
        expect(answer.status, answer.text).toBe(400);
        expect(answer.body).toMatchObject({ detail, attr });
      }
    });

    it("needs experiment_holdout scopes", async () => {
      const s = server();
      const created = await s.request("POST", `${holdouts()}/`, { body: { name: "Scoped", filters: [] } });
      const reader = await s.createKey(["experiment_holdout:read"]);
      const other = await s.createKey(["experiment:write"]);
      expect((await s.request("GET", `${holdouts()}/`, { key: other })).status).toBe(403);
      expect((await s.request("GET", `${holdouts()}/${created.body.id}/`, { key: reader })).status).toBe(200);
      expect(
        (await s.request("POST", `${holdouts()}/`, { key: reader, body: { name: "x", filters: [] } })).status,
      ).toBe(403);
      expect(
        (await s.request("PATCH", `${holdouts()}/${created.body.id}/`, { key: reader, body: {} })).status,
      ).toBe(403);
      expect((await s.request("DELETE", `${holdouts()}/${created.body.id}/`, { key: reader })).status).toBe(
        403,
      );
    });
  });

  describe("saved metrics", () => {
    it("creates, lists, retrieves, updates and deletes", async () => {
      const s = server();
      const created = await s.request("POST", `${metrics()}/`, { body: { name: "Revenue", query } });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id;
      expect(created.body).toMatchObject({
        name: "Revenue",
        description: null,
        query,
        created_by: { id: s.userId },
      });
      expect((await s.request("GET", metrics())).body.count).toBeGreaterThanOrEqual(1);
      expect((await s.request("GET", `${metrics()}/${id}/`)).body.name).toBe("Revenue");
      const patched = await s.request("PATCH", `${metrics()}/${id}/`, { body: { description: "money" } });
      expect(patched.body.description).toBe("money");
      const replaced = await s.request("PUT", `${metrics()}/${id}/`, { body: { name: "Sales", query } });
      expect(replaced.status, replaced.text).toBe(200);
      expect((await s.request("DELETE", `${metrics()}/${id}/`)).status).toBe(204);
      expect((await s.request("GET", `${metrics()}/${id}/`)).status).toBe(404);
    });

    it("refuses a query of another kind, and a missing query", async () => {
      const s = server();
      const wrong = await s.request("POST", `${metrics()}/`, {
        body: { name: "x", query: { kind: "TrendsQuery" } },
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.attr).toBe("query");
      const missing = await s.request("POST", `${metrics()}/`, { body: { name: "x" } });
      expect(missing.body).toMatchObject({ detail: "This field is required.", attr: "query" });
    });

    it("needs experiment_saved_metric scopes", async () => {
      const s = server();
      const created = await s.request("POST", `${metrics()}/`, { body: { name: "Scoped", query } });
      const reader = await s.createKey(["experiment_saved_metric:read"]);
      const other = await s.createKey(["experiment:write"]);
      expect((await s.request("GET", `${metrics()}/`, { key: other })).status).toBe(403);
      expect((await s.request("GET", `${metrics()}/${created.body.id}/`, { key: reader })).status).toBe(200);
      expect(
        (await s.request("POST", `${metrics()}/`, { key: reader, body: { name: "x", query } })).status,
      ).toBe(403);
      expect(
        (await s.request("PUT", `${metrics()}/${created.body.id}/`, { key: reader, body: {} })).status,
      ).toBe(403);
      expect((await s.request("DELETE", `${metrics()}/${created.body.id}/`, { key: reader })).status).toBe(
        403,
      );
    });
  });
});
