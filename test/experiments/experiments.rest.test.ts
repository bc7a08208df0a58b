/**
 * Experiments over REST (`experiments/`), on PGlite and PostgreSQL: create on a new (inactive,
 * multivariate) or reused flag, PostHog's validations, list filters and orders, PATCH rules (allowed
 * keys, launch activates the flag, frozen variants and holdout, archive, soft delete and restore),
 * DELETE 405, duplicate names, eligible flags, stats, fingerprints (1.0 kept a float), the flag side
 * (`type=experiment`, search by experiment name, `experiment_set`, delete refusal), the actions that
 * answer 501 (the exposure cohort and requires_flag_implementation: exposure-cohort.rest.test.ts),
 * bad input and missing scopes on every path.
 */
import { describe, expect, it } from "vitest";
import { computeMetricFingerprint, parseJsonNumbers } from "../../src/experiments/rules/fingerprint.js";
import { describeEachBackend } from "../support/server.js";

describeEachBackend("experiments over REST", (server) => {
  const base = (project = server().projectId) => `/api/projects/${project}/experiments`;
  const create = (body: Record<string, unknown>, key?: string) =>
    server().request("POST", `${base()}/`, { body, ...(key ? { key } : {}) });
  const patch = (id: number, body: Record<string, unknown>) =>
    server().request("PATCH", `${base()}/${id}/`, { body });
  const flagOf = async (key: string) =>
    server().db.featureFlag.findFirstOrThrow({ where: { projectId: server().projectId, key } });
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${++n}`;

  describe("create", () => {
    it("creates an inactive multivariate flag for a draft, with creation_context experiments", async () => {
      const key = unique("new-flag");
      const answer = await create({ name: "Checkout test", feature_flag_key: key });
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body).toMatchObject({
        name: "Checkout test",
        feature_flag_key: key,
        start_date: null,
        archived: false,
        deleted: false,
        status: "draft",
        type: "product",
        stats_config: { method: "bayesian" },
        saved_metrics: [],
        // PostHog's serializer lists the write field, and reads it back as null (agent-toolkit requires the key).
        saved_metrics_ids: null,
        holdout: null,
        created_by: { id: server().userId },
        feature_flag: { key, active: false },
      });
      const flag = await flagOf(key);
      expect(flag.active).toBe(false);
      expect(flag.creationContext).toBe("experiments");
      expect(flag.name).toBe("Feature Flag for Experiment Checkout test");
      expect(flag.filters).toMatchObject({
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: "control", name: "Control Group", rollout_percentage: 50 },
            { key: "test", name: "Test Variant", rollout_percentage: 50 },
          ],
        },
      });
      const flagAnswer = await server().request(
        "GET",
        `/api/projects/${server().projectId}/feature_flags/${flag.id}/`,
      );
      expect(flagAnswer.body.experiment_set).toEqual([answer.body.id]);
    });

    it("answers without the trailing slash too, and activates the new flag when start_date is given", async () => {
      const key = unique("launched");
      const answer = await server().request("POST", base(), {
        body: { name: "Launched", feature_flag_key: key, start_date: "2025-01-01T00:00:00Z" },
      });
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.status).toBe("running");
      expect((await flagOf(key)).active).toBe(true);
    });

    it("reuses an eligible flag and refuses one without control first or with too few variants", async () => {
      const s = server();
      const flags = `/api/projects/${s.projectId}/feature_flags/`;
      const variants = (keys: string[]) => ({
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: {
          variants: keys.map((k) => ({ key: k, rollout_percentage: 100 / keys.length })),
        },
      });
      const eligible = unique("eligible");
      expect(
        (await s.request("POST", flags, { body: { key: eligible, filters: variants(["control", "test"]) } }))
          .status,
      ).toBe(201);
      const reused = await create({ name: "Reuse", feature_flag_key: eligible });
      expect(reused.status, reused.text).toBe(201);
      expect(reused.body.feature_flag.id).toBe((await flagOf(eligible)).id);

      const testFirst = unique("test-first");
      await s.request("POST", flags, { body: { key: testFirst, filters: variants(["test", "control"]) } });
      const refused = await create({ name: "Bad", feature_flag_key: testFirst });
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toBe("Feature flag must have control as the first variant.");

      const boolean = unique("boolean");
      await s.request("POST", flags, {
        body: { key: boolean, filters: { groups: [{ rollout_percentage: 100 }] } },
      });
      const notEligible = await create({ name: "Bad", feature_flag_key: boolean });
      expect(notEligible.status).toBe(400);
      expect(notEligible.body.detail).toBe("Feature flag is not eligible for experiments.");
    });

    it("refuses bad input with PostHog's messages, writing nothing", async () => {
      const before = await server().db.experiment.count();
      const cases: Array<[Record<string, unknown>, string, string | null]> = [
        [{ feature_flag_key: "x" }, "This field is required.", "name"],
        [{ name: "x" }, "This field is required.", "feature_flag_key"],
        [
          {
            name: "x",
            feature_flag_key: unique("k"),
            start_date: "2025-02-01T00:00:00Z",
            end_date: "2025-01-01T00:00:00Z",
          },
          "End date must be after start date",
          null,
        ],
        [
          {
            name: "x",
            feature_flag_key: unique("k"),
            parameters: { feature_flag_variants: [{ key: "a" }, { key: "b" }] },
          },
          "Feature flag variants must contain a control variant",
          "parameters",
        ],
        [
          {
            name: "x",
            feature_flag_key: unique("k"),
            parameters: {
              feature_flag_variants: Array.from({ length: 21 }, (_, i) => ({ key: i ? `v${i}` : "control" })),
            },
          },
          "Feature flag variants must be less than 21",
          "parameters",
        ],
        [
          { name: "x", feature_flag_key: unique("k"), saved_metrics_ids: [{ id: 999999 }] },
          "Saved metric does not exist or does not belong to this project",
          "saved_metrics_ids",
        ],
        [
          { name: "x", feature_flag_key: "bad key!" },
          "Only letters, numbers, hyphens (-) & underscores (_) are allowed.",
          "key",
        ],
        [
          { name: "x", feature_flag_key: unique("k"), start_date: "yesterday" },
          expect.stringContaining("Datetime has wrong format") as unknown as string,
          "start_date",
        ],
      ];
      for (const [body, detail, attr] of cases) {
        const answer = await create(body);
        expect(answer.status, answer.text).toBe(400);
        expect(answer.body).toMatchObject({ type: "validation_error", detail, attr });
      }
      expect(await server().db.experiment.count()).toBe(before);
    });

    it("computes metric fingerprints from the body as written (1.0 stays a float) and recomputes them on update", async () => {
      const metric =
        '{"kind":"ExperimentMetric","metric_type":"funnel","series":[{"kind":"EventsNode","event":"café"}],"goal":"increase","conversion_window":1.0,"uuid":"m1"}';
      const key = unique("fp");
      const answer = await server().request("POST", `${base()}/`, {
        rawBody: `{"name":"FP","feature_flag_key":"${key}","stats_config":{"method":"frequentist"},"metrics":[${metric}]}`,
        headers: { "content-type": "application/json" },
      });
      expect(answer.status, answer.text).toBe(201);
      const expected = computeMetricFingerprint(
        parseJsonNumbers(metric) as Record<string, unknown>,
        null,
        { method: "frequentist" },
        null,
      );
      expect(answer.body.metrics[0].fingerprint).toBe(expected);
      // The float matters: the same metric with an int window hashes differently.
      const asInt = computeMetricFingerprint(
        parseJsonNumbers(metric.replace("1.0", "1")) as Record<string, unknown>,
        null,
        { method: "frequentist" },
        null,
      );
      expect(asInt).not.toBe(expected);
      const launched = await patch(answer.body.id, { start_date: "2024-01-01T00:00:00Z" });
      expect(launched.status, launched.text).toBe(200);
      expect(launched.body.metrics[0].fingerprint).toBe(
        computeMetricFingerprint(
          parseJsonNumbers(metric) as Record<string, unknown>,
          new Date("2024-01-01T00:00:00Z"),
          { method: "frequentist" },
          null,
        ),
      );
    });
  });

  describe("update", () => {
    it("launches (flag activated), freezes variants and holdout, ends, archives, concludes", async () => {
      const key = unique("life");
      const created = await create({ name: "Life", feature_flag_key: key });
      const id = created.body.id;
      const launch = await patch(id, { start_date: "2025-01-01T00:00:00Z" });
      expect(launch.status, launch.text).toBe(200);
      expect(launch.body.status).toBe("running");
      expect((await flagOf(key)).active).toBe(true);

      const variants = await patch(id, {
        parameters: { feature_flag_variants: [{ key: "control" }, { key: "other" }] },
      });
      expect(variants.status).toBe(400);
      expect(variants.body.detail).toBe("Can't update feature_flag_variants on Experiment");

      const holdout = await server().request(
        "POST",
        `/api/projects/${server().projectId}/experiment_holdouts/`,
        {
          body: { name: "H", filters: [{ properties: [], rollout_percentage: 10 }] },
        },
      );
      const frozen = await patch(id, { holdout_id: holdout.body.id });
      expect(frozen.status).toBe(400);
      expect(frozen.body.detail).toBe("Can't update holdout on running Experiment");

      const ended = await patch(id, {
        end_date: "2025-02-01T00:00:00Z",
        conclusion: "won",
        conclusion_comment: "Clear",
      });
      expect(ended.status, ended.text).toBe(200);
      expect(ended.body).toMatchObject({ status: "stopped", conclusion: "won", conclusion_comment: "Clear" });
      const archived = await patch(id, { archived: true });
      expect(archived.body.archived).toBe(true);
    });

    it("refuses keys PostHog does not update, and global filter properties", async () => {
      const created = await create({ name: "Keys", feature_flag_key: unique("keys") });
      const answer = await patch(created.body.id, { type: "web", feature_flag_key: "other" });
      expect(answer.status).toBe(400);
      // Named by the serializer field's source, as PostHog's validated_data holds it.
      expect(answer.body.detail).toBe("Can't update keys: get_feature_flag_key, type on Experiment");
      const same = await patch(created.body.id, {
        feature_flag_key: created.body.feature_flag_key,
        name: "Renamed",
      });
      expect(same.status, same.text).toBe(200);
      const props = await patch(created.body.id, { filters: { properties: [{ key: "a", value: "b" }] } });
      expect(props.body.detail).toBe("Experiments do not support global filter properties");
    });

    it("rewrites a draft's flag variants and holdout groups through the flag rules", async () => {
      const key = unique("draft");
      const created = await create({ name: "Draft", feature_flag_key: key });
      const holdout = await server().request(
        "POST",
        `/api/projects/${server().projectId}/experiment_holdouts/`,
        {
          body: { name: "H2", filters: [{ properties: [], rollout_percentage: 5 }] },
        },
      );
      const answer = await patch(created.body.id, {
        holdout_id: holdout.body.id,
        parameters: {
          feature_flag_variants: [
            { key: "control", rollout_percentage: 34 },
            { key: "a", rollout_percentage: 33 },
            { key: "b", rollout_percentage: 33 },
          ],
        },
      });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.holdout).toMatchObject({ id: holdout.body.id, name: "H2" });
      const flag = await flagOf(key);
      expect((flag.filters as { multivariate: { variants: unknown[] } }).multivariate.variants).toHaveLength(
        3,
      );
      expect((flag.filters as { holdout_groups: unknown }).holdout_groups).toEqual([
        { properties: [], rollout_percentage: 5, variant: `holdout-${holdout.body.id}` },
      ]);
      const bad = await patch(created.body.id, {
        parameters: {
          feature_flag_variants: [
            { key: "control", rollout_percentage: 10 },
            { key: "a", rollout_percentage: 10 },
          ],
        },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.attr).toBe("filters");
    });

    it("soft-deletes, takes only a restore after that, and logs deleted/restored", async () => {
      const s = server();
      const created = await create({ name: "Gone", feature_flag_key: unique("gone") });
      const id = created.body.id;
      expect((await patch(id, { deleted: true })).body.deleted).toBe(true);
      expect((await s.request("GET", `${base()}/?search=Gone`)).body.count).toBe(0);
      expect((await patch(id, { name: "Nope" })).status).toBe(404);
      const restored = await patch(id, { deleted: false });
      expect(restored.status, restored.text).toBe(200);
      expect(restored.body.deleted).toBe(false);
      const entries = await s.db.activityLog.findMany({
        where: { scope: "Experiment", itemId: String(id) },
        orderBy: { createdAt: "asc" },
      });
      expect(entries.map((e) => e.activity)).toEqual(["created", "deleted", "restored"]);
    });

    it("refuses deleting a flag a live experiment runs on", async () => {
      const s = server();
      const key = unique("guarded");
      const created = await create({ name: "Guard", feature_flag_key: key });
      const flag = await flagOf(key);
      const answer = await s.request("PATCH", `/api/projects/${s.projectId}/feature_flags/${flag.id}/`, {
        body: { deleted: true },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.detail).toBe(
        `Cannot delete a feature flag that is linked to active experiment(s) with ID(s): ${created.body.id}. Please delete the experiment(s) before deleting the flag.`,
      );
    });

    it("lets a flag be deleted once its experiments are, and its key be reused, keeping the old row", async () => {
      const s = server();
      const key = unique("reused-key");
      const created = await create({ name: "Old", feature_flag_key: key });
      const flag = await flagOf(key);
      expect((await patch(created.body.id, { deleted: true })).status).toBe(200);
      const flagUrl = `/api/projects/${s.projectId}/feature_flags/`;
      const deleted = await s.request("PATCH", `${flagUrl}${flag.id}/`, { body: { deleted: true } });
      expect(deleted.status, deleted.text).toBe(200);
      const again = await s.request("POST", flagUrl, { body: { key } });
      expect(again.status, again.text).toBe(201);
      const old = await s.db.featureFlag.findUniqueOrThrow({ where: { id: flag.id } });
      expect(old.key).toBe(`${key}:deleted:${flag.id}`);
      const experiment = await s.request("GET", `${base()}/${created.body.id}/`);
      expect(experiment.body.feature_flag.id).toBe(flag.id);
    });

    it("answers DELETE with 405 and an empty body", async () => {
      const created = await create({ name: "Stay", feature_flag_key: unique("stay") });
      const answer = await server().request("DELETE", `${base()}/${created.body.id}/`);
      expect(answer.status).toBe(405);
      expect(answer.text).toBe("");
    });
  });

  describe("list, duplicate, eligible flags, stats", () => {
    it("filters by status, archived, search and orders by duration and status", async () => {
      const s = server();
      const project = await s.createProject("Listing");
      const url = `/api/projects/${project}/experiments/`;
      const make = async (name: string, extra: Record<string, unknown>) =>
        (await s.request("POST", url, { body: { name, feature_flag_key: unique("l"), ...extra } })).body
          .id as number;
      const draft = await make("Draft one", {});
      const running = await make("Running one", { start_date: "2025-01-01T00:00:00Z" });
      const done = await make("Done one", {
        start_date: "2025-01-01T00:00:00Z",
        end_date: "2025-01-03T00:00:00Z",
      });
      const archived = await make("Archived one", { archived: true });
      const ids = async (query: string) => {
        const answer = await s.request("GET", `${url}?${query}`);
        expect(answer.status, answer.text).toBe(200);
        return answer.body.results.map((x: { id: number }) => x.id);
      };
      expect(await ids("")).toEqual([done, running, draft]);
      expect(await ids("status=draft")).toEqual([draft]);
      expect(await ids("status=running")).toEqual([running]);
      expect(await ids("status=complete")).toEqual([done]);
      expect(await ids("archived=true")).toEqual([archived]);
      expect(await ids("search=RUNNING")).toEqual([running]);
      expect(await ids("order=status")).toEqual([draft, running, done]);
      expect(await ids("order=-duration")).toEqual([running, done, draft]);
      expect(await ids(`created_by_id=${s.userId}&limit=1`)).toHaveLength(1);
      const paged = await s.request("GET", `${url}?limit=1`);
      expect(paged.body).toMatchObject({ count: 3, previous: null });
      expect(paged.body.next).toContain("offset=1");
      const bad = await s.request("GET", `${url}?status=sideways`);
      expect(bad.status).toBe(400);
    });

    it("duplicates as (Copy), (Copy) 1, on the same flag, as drafts with their saved metrics", async () => {
      const s = server();
      const metric = await s.request("POST", `/api/projects/${s.projectId}/experiment_saved_metrics/`, {
        body: {
          name: "Revenue",
          query: {
            kind: "ExperimentMetric",
            metric_type: "mean",
            source: { kind: "EventsNode", event: "buy" },
          },
        },
      });
      expect(metric.status, metric.text).toBe(201);
      const created = await create({
        name: "Original",
        feature_flag_key: unique("dup"),
        start_date: "2025-01-01T00:00:00Z",
        saved_metrics_ids: [{ id: metric.body.id, metadata: { type: "primary" } }],
        metrics: [
          {
            kind: "ExperimentMetric",
            metric_type: "mean",
            uuid: "u1",
            source: { kind: "EventsNode", event: "buy" },
          },
        ],
      });
      expect(created.status, created.text).toBe(201);
      const first = await s.request("POST", `${base()}/${created.body.id}/duplicate/`, { body: {} });
      expect(first.status, first.text).toBe(201);
      expect(first.body).toMatchObject({
        name: "Original (Copy)",
        start_date: null,
        status: "draft",
        feature_flag: { id: created.body.feature_flag.id },
        saved_metrics: [{ saved_metric: metric.body.id, metadata: { type: "primary" }, name: "Revenue" }],
        saved_metrics_ids: null,
      });
      expect(first.body.metrics[0].fingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(first.body.metrics[0].fingerprint).not.toBe(created.body.metrics[0].fingerprint);
      const second = await s.request("POST", `${base()}/${created.body.id}/duplicate`);
      expect(second.body.name).toBe("Original (Copy) 1");
      const missing = await s.request("POST", `${base()}/999999/duplicate/`);
      expect(missing.status).toBe(404);
    });

    it("lists eligible flags with its own page and refuses a bad limit", async () => {
      const s = server();
      const project = await s.createProject("Eligible");
      const flags = `/api/projects/${project}/feature_flags/`;
      const multivariate = (keys: string[]) => ({
        groups: [{ rollout_percentage: 100 }],
        multivariate: { variants: keys.map((k) => ({ key: k, rollout_percentage: 100 / keys.length })) },
      });
      await s.request("POST", flags, { body: { key: "mv-ok", filters: multivariate(["control", "b"]) } });
      await s.request("POST", flags, { body: { key: "mv-bad", filters: multivariate(["b", "control"]) } });
      await s.request("POST", flags, {
        body: { key: "plain", filters: { groups: [{ rollout_percentage: 100 }] } },
      });
      const url = `/api/projects/${project}/experiments/eligible_feature_flags/`;
      const answer = await s.request("GET", url);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.count).toBe(1);
      expect(answer.body.results.map((f: { key: string }) => f.key)).toEqual(["mv-ok"]);
      expect(answer.body.results[0]).toHaveProperty("experiment_set", []);
      expect(answer.body).not.toHaveProperty("next");
      const bad = await s.request("GET", `${url}?limit=abc`);
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ error: "Invalid limit or offset" });
      const flagKey = await s.createKey(["feature_flag:read"]);
      expect((await s.request("GET", url, { key: flagKey })).status).toBe(200);
      const experimentKey = await s.createKey(["experiment:read"]);
      expect((await s.request("GET", url, { key: experimentKey })).status).toBe(403);
    });

    it("answers velocity stats", async () => {
      const s = server();
      const project = await s.createProject("Stats");
      const url = `/api/projects/${project}/experiments/`;
      const recent = new Date(Date.now() - 3 * 86_400_000).toISOString();
      const older = new Date(Date.now() - 45 * 86_400_000).toISOString();
      await s.request("POST", url, { body: { name: "a", feature_flag_key: "s1", start_date: recent } });
      await s.request("POST", url, {
        body: { name: "b", feature_flag_key: "s2", start_date: older, end_date: recent },
      });
      await s.request("POST", url, { body: { name: "c", feature_flag_key: "s3" } });
      const answer = await s.request("GET", `${url}stats/`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({
        launched_last_30d: 1,
        launched_previous_30d: 1,
        percent_change: 0,
        active_experiments: 1,
        completed_last_30d: 1,
      });
    });

    it("filters the flag list by type=experiment and finds flags by experiment name", async () => {
      const s = server();
      const project = await s.createProject("Flag side");
      await s.request("POST", `/api/projects/${project}/experiments/`, {
        body: { name: "Pricing page test", feature_flag_key: "pp" },
      });
      await s.request("POST", `/api/projects/${project}/feature_flags/`, { body: { key: "unrelated" } });
      const keys = async (query: string) =>
        (await s.request("GET", `/api/projects/${project}/feature_flags/?${query}`)).body.results.map(
          (f: { key: string }) => f.key,
        );
      expect(await keys("type=experiment")).toEqual(["pp"]);
      expect(await keys("search=pricing")).toEqual(["pp"]);
    });
  });

  describe("scopes and actions not built", () => {
    it("needs experiment:read to read and experiment:write to write", async () => {
      const s = server();
      const created = await create({ name: "Scoped", feature_flag_key: unique("scoped") });
      const reader = await s.createKey(["experiment:read"]);
      const none = await s.createKey(["feature_flag:write"]);
      expect((await s.request("GET", `${base()}/`, { key: none })).status).toBe(403);
      expect((await s.request("GET", `${base()}/${created.body.id}/`, { key: reader })).status).toBe(200);
      expect((await s.request("GET", `${base()}/stats/`, { key: none })).status).toBe(403);
      for (const [method, path] of [
        ["POST", `${base()}/`],
        ["PATCH", `${base()}/${created.body.id}/`],
        ["DELETE", `${base()}/${created.body.id}/`],
        ["POST", `${base()}/${created.body.id}/duplicate/`],
      ] as const) {
        const answer = await s.request(method, path, {
          key: reader,
          body: { name: "x", feature_flag_key: "y" },
        });
        expect(answer.status, `${method} ${path}`).toBe(403);
      }
    });
  });
});
