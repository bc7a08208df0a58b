/**
 * Two write rules of experiments over REST, on PGlite and PostgreSQL:
 * - the metric display order (`primary_metrics_ordered_uuids`, `secondary_metrics_ordered_uuids`)
 *   follows the inline and saved metrics on create and update, and an order that misses a metric
 *   is refused (PostHog's ExperimentSerializer, src/experiments/rules/metric-ordering.ts);
 * - a draft's variants rewrite its flag in the experiment write's transaction: when the experiment
 *   row cannot be written (a trigger refuses it), the flag keeps its filters and version.
 */
import { describe, expect, it } from "vitest";
import { describeEachBackend } from "../support/server.js";

const mean = (uuid: string, event = "buy") => ({
  kind: "ExperimentMetric",
  metric_type: "mean",
  uuid,
  source: { kind: "EventsNode", event },
});

describeEachBackend("experiment metric order and draft flag rewrites over REST", (server) => {
  const base = () => `/api/projects/${server().projectId}/experiments`;
  const create = (body: Record<string, unknown>) => server().request("POST", `${base()}/`, { body });
  const patch = (id: number, body: Record<string, unknown>) =>
    server().request("PATCH", `${base()}/${id}/`, { body });
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${++n}`;
  const savedMetric = async (uuid: string) => {
    const answer = await server().request(
      "POST",
      `/api/projects/${server().projectId}/experiment_saved_metrics/`,
      { body: { name: unique("saved"), query: mean(uuid, "signup") } },
    );
    expect(answer.status, answer.text).toBe(201);
    return answer.body.id as number;
  };

  describe("metric order", () => {
    it("appends the uuids of inline and saved metrics on create, after a requested order", async () => {
      const saved = await savedMetric("s-primary");
      const savedSecondary = await savedMetric("s-secondary");
      const answer = await create({
        name: "Ordered",
        feature_flag_key: unique("order"),
        metrics: [mean("a"), mean("b"), { ...mean("c"), uuid: undefined }],
        metrics_secondary: [mean("x")],
        primary_metrics_ordered_uuids: ["b"],
        saved_metrics_ids: [
          { id: saved, metadata: { type: "primary" } },
          { id: savedSecondary, metadata: { type: "secondary" } },
        ],
      });
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.primary_metrics_ordered_uuids).toEqual(["b", "a", "s-primary"]);
      expect(answer.body.secondary_metrics_ordered_uuids).toEqual(["x", "s-secondary"]);
    });

    it("leaves the orders null when the body carries no metrics", async () => {
      const answer = await create({ name: "Bare", feature_flag_key: unique("bare") });
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.primary_metrics_ordered_uuids).toBeNull();
      expect(answer.body.secondary_metrics_ordered_uuids).toBeNull();
    });

    it("drops removed metrics and appends added ones on update, keeping the stored order", async () => {
      const created = await create({
        name: "Reorder",
        feature_flag_key: unique("reorder"),
        metrics: [mean("a"), mean("b"), mean("c")],
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id as number;
      const reordered = await patch(id, { primary_metrics_ordered_uuids: ["c", "a", "b"] });
      expect(reordered.status, reordered.text).toBe(200);
      expect(reordered.body.primary_metrics_ordered_uuids).toEqual(["c", "a", "b"]);
      const changed = await patch(id, { metrics: [mean("a"), mean("c"), mean("d")] });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body.primary_metrics_ordered_uuids).toEqual(["c", "a", "d"]);
      // A name change leaves the order alone.
      const renamed = await patch(id, { name: "Renamed" });
      expect(renamed.body.primary_metrics_ordered_uuids).toEqual(["c", "a", "d"]);
    });

    it("follows saved metrics linked and unlinked by an update, primary and secondary apart", async () => {
      const one = await savedMetric("s-one");
      const two = await savedMetric("s-two");
      const created = await create({
        name: "Saved",
        feature_flag_key: unique("saved"),
        saved_metrics_ids: [{ id: one }],
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body.primary_metrics_ordered_uuids).toEqual(["s-one"]);
      const swapped = await patch(created.body.id, {
        saved_metrics_ids: [{ id: two, metadata: { type: "secondary" } }],
      });
      expect(swapped.status, swapped.text).toBe(200);
      expect(swapped.body.primary_metrics_ordered_uuids).toEqual([]);
      expect(swapped.body.secondary_metrics_ordered_uuids).toEqual(["s-two"]);
    });

    it("refuses an order that misses a metric, and writes nothing", async () => {
      const created = await create({
        name: "Strict",
        feature_flag_key: unique("strict"),
        metrics: [mean("a"), mean("b")],
        metrics_secondary: [mean("x")],
      });
      expect(created.status, created.text).toBe(201);
      const missing = await patch(created.body.id, { primary_metrics_ordered_uuids: ["a"], name: "Changed" });
      expect(missing.status, missing.text).toBe(400);
      expect(missing.body).toMatchObject({
        type: "validation_error",
        attr: null,
        detail:
          "primary_metrics_ordered_uuids is missing UUIDs: ['b']. This is likely a frontend bug - please refresh and try again.",
      });
      const nulled = await patch(created.body.id, { secondary_metrics_ordered_uuids: null });
      expect(nulled.status, nulled.text).toBe(400);
      expect(nulled.body.detail).toBe(
        "secondary_metrics_ordered_uuids is null but secondary metrics exist. This is likely a frontend bug - please refresh and try again.",
      );
      const after = await server().request("GET", `${base()}/${created.body.id}/`);
      expect(after.body).toMatchObject({
        name: "Strict",
        primary_metrics_ordered_uuids: ["a", "b"],
        secondary_metrics_ordered_uuids: ["x"],
      });
    });
  });

  describe("a draft's flag rewrite", () => {
    const threeVariants = {
      feature_flag_variants: [
        { key: "control", rollout_percentage: 34 },
        { key: "red", rollout_percentage: 33 },
        { key: "blue", rollout_percentage: 33 },
      ],
    };

    it("rewrites the flag and the experiment together", async () => {
      const created = await create({ name: "Draft", feature_flag_key: unique("draft") });
      expect(created.status, created.text).toBe(201);
      const answer = await patch(created.body.id, { parameters: threeVariants, description: "three arms" });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.description).toBe("three arms");
      const flag = await server().db.featureFlag.findUniqueOrThrow({
        where: { id: created.body.feature_flag.id },
      });
      expect(flag.filters).toMatchObject({ multivariate: { variants: threeVariants.feature_flag_variants } });
    });

    it("leaves the flag unchanged when the experiment write fails", async () => {
      const s = server();
      const created = await create({ name: "Doomed", feature_flag_key: unique("doomed") });
      expect(created.status, created.text).toBe(201);
      const flagId = created.body.feature_flag.id as number;
      const before = await s.db.featureFlag.findUniqueOrThrow({ where: { id: flagId } });
      const activityBefore = await s.db.activityLog.count({
        where: { scope: "FeatureFlag", itemId: String(flagId) },
      });
      // The database refuses this one experiment's update, after the flag's write in the same transaction.
      await s.db.$executeRawUnsafe(`CREATE FUNCTION refuse_experiment_update() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'experiment write refused by the test'; END $$`);
      await s.db.$executeRawUnsafe(`CREATE TRIGGER refuse_experiment_update BEFORE UPDATE ON experiments
        FOR EACH ROW WHEN (NEW.id = ${Number(created.body.id)}) EXECUTE FUNCTION refuse_experiment_update()`);
      try {
        const answer = await patch(created.body.id, { parameters: threeVariants });
        expect(answer.status, answer.text).toBe(500);
      } finally {
        await s.db.$executeRawUnsafe("DROP TRIGGER refuse_experiment_update ON experiments");
        await s.db.$executeRawUnsafe("DROP FUNCTION refuse_experiment_update()");
        s.errorLogs.length = 0;
      }
      const after = await s.db.featureFlag.findUniqueOrThrow({ where: { id: flagId } });
      expect(after.filters).toEqual(before.filters);
      expect(after.version).toBe(before.version);
      expect(await s.db.activityLog.count({ where: { scope: "FeatureFlag", itemId: String(flagId) } })).toBe(
        activityBefore,
      );
    });
  });
});
