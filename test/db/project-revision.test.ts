/**
 * The per-project revision (migration `project_revision`): every table with a `project_id` column
 * carries the revision trigger, so a new domain's table that forgets it fails here; a transaction
 * bumps exactly the projects whose rows it changed, once each, when it commits.
 */
import { expect, it } from "vitest";
import { describeEachBackend, type TestServer } from "../support/server.js";

async function revisionOf(s: TestServer, projectId: number): Promise<bigint> {
  return (await s.db.project.findUniqueOrThrow({ where: { id: projectId } })).revision;
}

describeEachBackend("project revision", (server) => {
  it("tracks every table with a project_id column with a deferred trigger on insert, update and delete", async () => {
    const s = server();
    const tables = await s.db.$queryRaw<Array<{ table_name: string }>>`
      SELECT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'project_id' ORDER BY table_name`;
    // tgtype bits: 4 INSERT, 8 DELETE, 16 UPDATE (pg_trigger.h); deferred to COMMIT.
    const triggers = await s.db.$queryRaw<Array<{ table_name: string; trigger_name: string }>>`
      SELECT c.relname AS table_name, t.tgname AS trigger_name
      FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE t.tgdeferrable AND t.tginitdeferred AND (t.tgtype & 28) = 28`;
    const names = new Set(triggers.map((t) => `${t.table_name}.${t.trigger_name}`));
    // Data tables change with every captured batch and are read by non-conditional GETs only
    // (migration `analytics_data`): they are the one deliberate exception. Experience-continuity
    // hash keys (migration `flag_hash_key_overrides`) are per-person data written by `/flags`
    // requests, part of no project's configuration: bumping the revision on each would invalidate
    // every cached definition and ETag with SDK traffic. The endpoints' execution log (migration
    // `endpoints`) is written by every run, a read; `last_execution_times` (a POST) reads it. A
    // materialized endpoint's result rows (migration `endpoint_materialization`) are query output no
    // management GET shows; the materialization's status row beside them is tracked. Experiment
    // timeseries (migration `experiment_timeseries`) are derived results and their recalculation
    // requests, written by the job and read only by the non-conditional `timeseries_results`. The
    // webhook delivery log (migration `webhooks`) is written by the delivery job on every attempt; its
    // REST list answers no ETag (the webhooks themselves are tracked).
    const dataTables = new Set([
      "events",
      "persons",
      "person_distinct_ids",
      "groups",
      "cohort_people",
      "feature_flag_hash_key_overrides",
      "endpoint_executions",
      "endpoint_materialized_rows",
      "experiment_timeseries_recalculations",
      "experiment_metric_results",
      "webhook_deliveries",
    ]);
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(["activity_logs", "feature_flag_tags", "feature_flags", "tags"]),
    );
    for (const { table_name: table } of tables) {
      if (dataTables.has(table)) {
        expect(names.has(`${table}.${table}_revision`), `${table} is not tracked`).toBe(false);
        continue;
      }
      expect(names.has(`${table}.${table}_revision`), `${table}_revision`).toBe(true);
    }
  });

  it("bumps only the projects whose rows a transaction changed, once each, and nothing when it changed none", async () => {
    const s = server();
    const other = await s.createProject("Other");
    const [mine, theirs] = [await revisionOf(s, s.projectId), await revisionOf(s, other)];
    await s.db.featureFlag.create({ data: { projectId: s.projectId, key: "bumps-mine" } });
    expect(await revisionOf(s, s.projectId)).toBe(mine + 1n);
    expect(await revisionOf(s, other)).toBe(theirs);

    await s.db.featureFlag.updateMany({ where: { key: "no-such-flag" }, data: { name: "x" } });
    await s.db.featureFlag.deleteMany({ where: { key: "no-such-flag" } });
    expect(await revisionOf(s, s.projectId)).toBe(mine + 1n);

    await s.db.featureFlag.updateMany({ where: { projectId: s.projectId }, data: { name: "all" } });
    expect(await revisionOf(s, s.projectId)).toBe(mine + 2n);
    await s.db.featureFlag.deleteMany({ where: { key: "bumps-mine" } });
    expect(await revisionOf(s, s.projectId)).toBe(mine + 3n);
    expect(await revisionOf(s, other)).toBe(theirs);

    await s.db.$transaction(async (tx) => {
      await tx.featureFlag.create({ data: { projectId: s.projectId, key: "one-transaction" } });
      await tx.featureFlag.create({ data: { projectId: other, key: "one-transaction" } });
      await tx.featureFlag.updateMany({ where: { key: "one-transaction" }, data: { name: "twice" } });
    });
    expect(await revisionOf(s, s.projectId)).toBe(mine + 4n);
    expect(await revisionOf(s, other)).toBe(theirs + 1n);
  });
});
