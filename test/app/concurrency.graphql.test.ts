/**
 * Concurrency (issue 13 item 1): many writers at once through the real HTTP server, every request
 * fired before any answer is read (`Promise.all`), on PGlite (one connection: the writes are
 * serialised, but their reads still interleave with other requests' transactions) and PostgreSQL
 * (a pool: the writes truly overlap).
 *
 * What "conflicting writers" means per domain, decided from PostHog's behaviour and our services:
 * - Flags (posthog-behavior.md §2.7, `version` + `original_flag`; GraphQL's strict `expectedVersion`):
 *   50 writers send the same stale-to-be `version` and change the same field. Exactly one wins (200 /
 *   `UpdateFeatureFlagSuccess`), the other 49 get PostHog's 409 (`ConflictError`), the stored flag is
 *   the winner's, its version moved by one and it has exactly one `updated` activity entry. Without
 *   `original_flag` PostHog refuses none (its update locks the row and bumps the version): 50 writers
 *   each changing `name` all get 200, the version moves by 50 and there are 50 `updated` entries.
 * - Experiments (§5.4, PostHog's PATCH model of ~Nov 2025: launch = `start_date` on a draft, soft
 *   end = `end_date`, archive = `archived: true`, soft delete = `deleted: true`; an experiment has no
 *   `version`): a state transition happens once. 50 concurrent launches (then ends, then archives)
 *   all answer 200, since PostHog accepts the same field again and the same value changes nothing,
 *   but each transition gets one `updated` entry, and the launch turns the flag on once (one flag
 *   entry, version +1). 50 concurrent soft deletes: one 200, 49 × PostHog's 404 (a deleted experiment
 *   takes only `deleted: false`), one `deleted` entry.
 * - Endpoints (§4.3–4.4): every query change makes a version, so 50 concurrent query changes each make
 *   their own: all 200, versions 2..51 each once, every query stored once, 50 `version_created`
 *   entries, none lost. 50 concurrent creates of one name: one 201, 49 × PostHog's 400
 *   `Failed to create endpoint.`, one `created` entry.
 * - Creates with distinct keys: 200 flags (and 50 endpoints, whose create parses HogQL) at once, all
 *   201, all stored, distinct ids, one `created` entry each.
 * Every domain takes its row locks through src/core/row-lock.ts; the other domains' writers (concurrent
 * DELETEs and PATCHes of holdouts, saved metrics, cohorts, definitions, property groups, event
 * schemas, webhooks, endpoint deletes and `?version=N` toggles, static cohort members) are tested in
 * concurrency.domains.test.ts.
 */
import { describe, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend, type TestResponse, type TestServer } from "../support/server.js";
import { statusCounts, together } from "../support/together.js";

const WRITERS = 50;
const CREATES = 200;

const CreateFlag = graphql(`
  mutation ConcurrencyCreateFlag($input: CreateFeatureFlagInput!) {
    createFeatureFlag(input: $input) {
      __typename
      ... on CreateFeatureFlagSuccess { featureFlag { id databaseId version } }
      ... on Error { message }
    }
  }
`);

const UpdateFlag = graphql(`
  mutation ConcurrencyUpdateFlag($input: UpdateFeatureFlagInput!) {
    updateFeatureFlag(input: $input) {
      __typename
      ... on UpdateFeatureFlagSuccess { featureFlag { name version } }
      ... on Error { message code }
    }
  }
`);

describeEachBackend("concurrent writers", (server) => {
  const flags = (s: TestServer) => `/api/projects/${s.projectId}/feature_flags/`;
  const experiments = (s: TestServer) => `/api/projects/${s.projectId}/experiments/`;
  const endpoints = (s: TestServer) => `/api/projects/${s.projectId}/endpoints/`;
  const activity = (s: TestServer, scope: string, itemId: string | number) =>
    s.db.activityLog.findMany({ where: { scope, itemId: String(itemId) }, orderBy: { id: "asc" } });
  const created = async (response: Promise<TestResponse>) => {
    const answer = await response;
    expect(answer.status, answer.text).toBe(201);
    return answer.body;
  };

  describe("feature flags", () => {
    it(`REST: ${WRITERS} writers with one version and original_flag: one 200, the rest PostHog's 409`, async () => {
      const s = server();
      const flag = await created(
        s.request("POST", flags(s), { body: { key: "rest-contended", name: "Original" } }),
      );
      const original_flag = { key: "rest-contended", name: "Original" };
      const answers = await together(WRITERS, (i) =>
        s.request("PATCH", `${flags(s)}${flag.id}/`, {
          body: { name: `writer ${i}`, version: flag.version, original_flag },
        }),
      );

      expect(statusCounts(answers)).toEqual({ 200: 1, 409: WRITERS - 1 });
      const winner = answers.find((a) => a.status === 200)!;
      for (const loser of answers.filter((a) => a.status === 409)) {
        expect(loser.body).toEqual({
          type: "server_error",
          code: "conflict",
          detail:
            "The feature flag was updated by admin@example.com since you started editing it. Please refresh and try again.",
          attr: null,
        });
      }
      const stored = await s.request("GET", `${flags(s)}${flag.id}/`);
      expect(stored.body).toMatchObject({ name: winner.body.name, version: flag.version + 1 });
      expect(stored.body).toEqual(winner.body);
      const entries = await activity(s, "FeatureFlag", flag.id);
      expect(entries.map((e) => e.activity)).toEqual(["created", "updated"]);
      expect(entries[1]!.detail).toMatchObject({
        changes: expect.arrayContaining([
          expect.objectContaining({ field: "name", before: "Original", after: winner.body.name }),
        ]),
      });
    });

    it(`REST: ${WRITERS} writers without original_flag take turns: all 200, the version moved ${WRITERS} times`, async () => {
      const s = server();
      const flag = await created(
        s.request("POST", flags(s), { body: { key: "rest-turns", name: "Original" } }),
      );
      const names = Array.from({ length: WRITERS }, (_, i) => `writer ${i}`);
      const answers = await together(WRITERS, (i) =>
        s.request("PATCH", `${flags(s)}${flag.id}/`, { body: { name: names[i] } }),
      );

      expect(statusCounts(answers)).toEqual({ 200: WRITERS });
      // Each writer's change was applied on top of the one before it: every version is answered once.
      expect(answers.map((a) => a.body.version).sort((a, b) => a - b)).toEqual(
        Array.from({ length: WRITERS }, (_, i) => flag.version + 1 + i),
      );
      const stored = await s.request("GET", `${flags(s)}${flag.id}/`);
      expect(stored.body.version).toBe(flag.version + WRITERS);
      expect(names).toContain(stored.body.name);
      expect(stored.body).toEqual(answers.find((a) => a.body.version === flag.version + WRITERS)!.body);
      const entries = await activity(s, "FeatureFlag", flag.id);
      expect(entries.map((e) => e.activity)).toEqual(["created", ...names.map(() => "updated")]);
    });

    it(`GraphQL: ${WRITERS} writers with one expectedVersion: one success, the rest ConflictError`, async () => {
      const s = server();
      const made = await execute(s, CreateFlag, {
        input: { projectId: String(s.projectId), key: "graphql-contended", name: "Original" },
      });
      if (made.data.createFeatureFlag?.__typename !== "CreateFeatureFlagSuccess") throw new Error("no flag");
      const flag = made.data.createFeatureFlag.featureFlag;
      const answers = await together(WRITERS, (i) =>
        execute(s, UpdateFlag, {
          input: {
            projectId: String(s.projectId),
            id: flag.id,
            expectedVersion: flag.version,
            name: `writer ${i}`,
          },
        }),
      );

      const results = answers.map((a) => a.data.updateFeatureFlag);
      const winners = results.filter((r) => r?.__typename === "UpdateFeatureFlagSuccess");
      const conflicts = results.filter((r) => r?.__typename === "ConflictError");
      expect({ winners: winners.length, conflicts: conflicts.length }).toEqual({
        winners: 1,
        conflicts: WRITERS - 1,
      });
      const winner = winners[0]!;
      if (winner.__typename !== "UpdateFeatureFlagSuccess") throw new Error("unreachable");
      expect(winner.featureFlag.version).toBe(flag.version + 1);
      const stored = await s.db.featureFlag.findUniqueOrThrow({ where: { id: flag.databaseId } });
      expect({ name: stored.name, version: stored.version }).toEqual(winner.featureFlag);
      const entries = await activity(s, "FeatureFlag", flag.databaseId);
      expect(entries.map((e) => e.activity)).toEqual(["created", "updated"]);
    });

    it(`${WRITERS} creates of one key: one 201, the rest PostHog's duplicate-key 400`, async () => {
      const s = server();
      const answers = await together(WRITERS, (i) =>
        s.request("POST", flags(s), { body: { key: "one-key", name: `creator ${i}` } }),
      );
      expect(statusCounts(answers)).toEqual({ 201: 1, 400: WRITERS - 1 });
      for (const refused of answers.filter((a) => a.status === 400)) {
        expect(refused.body).toMatchObject({
          code: "unique",
          attr: "key",
          detail: "There is already a feature flag with this key.",
        });
      }
      const stored = await s.db.featureFlag.findMany({ where: { projectId: s.projectId, key: "one-key" } });
      expect(stored).toHaveLength(1);
      expect(await activity(s, "FeatureFlag", stored[0]!.id)).toHaveLength(1);
    });

    it(`${CREATES} creates with distinct keys: all 201, all stored, one created entry each`, async () => {
      const s = server();
      const answers = await together(CREATES, (i) =>
        s.request("POST", flags(s), { body: { key: `bulk-${i}`, name: `Bulk ${i}` } }),
      );
      expect(statusCounts(answers)).toEqual({ 201: CREATES });
      const ids = answers.map((a) => a.body.id as number);
      expect(new Set(ids).size).toBe(CREATES);
      const stored = await s.db.featureFlag.findMany({
        where: { projectId: s.projectId, key: { startsWith: "bulk-" } },
      });
      expect(stored.map((f) => f.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
      const entries = await s.db.activityLog.findMany({
        where: { scope: "FeatureFlag", activity: "created", itemId: { in: ids.map(String) } },
      });
      expect(entries).toHaveLength(CREATES);
    });
  });

  describe("experiments", () => {
    const draft = async (s: TestServer, name: string) =>
      created(s.request("POST", experiments(s), { body: { name, feature_flag_key: name.toLowerCase() } }));

    it(`${WRITERS} concurrent launches, then ends, then archives: each transition made and logged once`, async () => {
      const s = server();
      const experiment = await draft(s, "Lifecycle-race");
      const url = `${experiments(s)}${experiment.id}/`;
      const flagBefore = await s.db.featureFlag.findUniqueOrThrow({
        where: { id: experiment.feature_flag.id },
      });
      const transitions = [
        { body: { start_date: "2025-03-01T00:00:00Z" }, field: "start_date", status: "running" },
        { body: { end_date: "2025-04-01T00:00:00Z" }, field: "end_date", status: "stopped" },
        { body: { archived: true }, field: "archived", status: "stopped" },
      ];
      for (const [round, { body, field, status }] of transitions.entries()) {
        const answers = await together(WRITERS, () => s.request("PATCH", url, { body }));
        expect(statusCounts(answers), field).toEqual({ 200: WRITERS });
        const stored = await s.request("GET", url);
        expect(stored.body.status).toBe(status);
        const entries = await activity(s, "Experiment", experiment.id);
        expect(entries.map((e) => e.activity)).toEqual(["created", ...Array(round + 1).fill("updated")]);
        expect(entries.at(-1)!.detail).toMatchObject({ changes: [expect.objectContaining({ field })] });
      }
      // The launch turned the flag on once: one entry, its version moved by one.
      const flag = await s.db.featureFlag.findUniqueOrThrow({ where: { id: experiment.feature_flag.id } });
      expect({ active: flag.active, version: flag.version }).toEqual({
        active: true,
        version: flagBefore.version + 1,
      });
      const flagEntries = await activity(s, "FeatureFlag", flag.id);
      expect(flagEntries.map((e) => e.activity)).toEqual(["created", "updated"]);
    });

    it(`${WRITERS} concurrent soft deletes: one 200, the rest PostHog's 404, one deleted entry`, async () => {
      const s = server();
      const experiment = await draft(s, "Delete-race");
      const answers = await together(WRITERS, () =>
        s.request("PATCH", `${experiments(s)}${experiment.id}/`, { body: { deleted: true } }),
      );

      expect(statusCounts(answers)).toEqual({ 200: 1, 404: WRITERS - 1 });
      for (const refused of answers.filter((a) => a.status === 404)) {
        expect(refused.body).toMatchObject({ code: "not_found", detail: "Not found." });
      }
      const stored = await s.db.experiment.findUniqueOrThrow({ where: { id: experiment.id } });
      expect(stored.deleted).toBe(true);
      const entries = await activity(s, "Experiment", experiment.id);
      expect(entries.map((e) => e.activity)).toEqual(["created", "deleted"]);
    });
  });

  describe("endpoints", () => {
    const hogql = (query: string) => ({ kind: "HogQLQuery", query });

    it(`${WRITERS} concurrent query changes each make their own version, none lost`, async () => {
      const s = server();
      const endpoint = await created(
        s.request("POST", endpoints(s), {
          body: { name: "versions_race", query: hogql("SELECT 0"), is_materialized: false },
        }),
      );
      const answers = await together(WRITERS, (i) =>
        s.request("PATCH", `${endpoints(s)}${endpoint.name}/`, { body: { query: hogql(`SELECT ${i + 1}`) } }),
      );

      expect(statusCounts(answers)).toEqual({ 200: WRITERS });
      const versions = await s.db.endpointVersion.findMany({
        where: { endpointId: endpoint.id },
        orderBy: { version: "asc" },
      });
      expect(versions.map((v) => v.version)).toEqual(Array.from({ length: WRITERS + 1 }, (_, i) => i + 1));
      const queries = versions.map((v) => (v.query as { query: string }).query).sort();
      expect(queries).toEqual(Array.from({ length: WRITERS + 1 }, (_, i) => `SELECT ${i}`).sort());
      const stored = await s.db.endpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      expect(stored.currentVersion).toBe(WRITERS + 1);
      const entries = await activity(s, "Endpoint", endpoint.id);
      const made = entries.filter((e) => e.activity === "version_created");
      expect(made).toHaveLength(WRITERS);
      const afters = made.map((e) => (e.detail as { changes: Array<{ after: number }> }).changes[0]!.after);
      expect(afters).toEqual(Array.from({ length: WRITERS }, (_, i) => i + 2));
    });

    it(`${WRITERS} creates of one name: one 201, the rest PostHog's 400`, async () => {
      const s = server();
      const answers = await together(WRITERS, (i) =>
        s.request("POST", endpoints(s), {
          body: { name: "one_name", query: hogql(`SELECT ${i}`), is_materialized: false },
        }),
      );
      expect(statusCounts(answers)).toEqual({ 201: 1, 400: WRITERS - 1 });
      for (const refused of answers.filter((a) => a.status === 400)) {
        expect(refused.body).toMatchObject({ detail: "Failed to create endpoint." });
      }
      const stored = await s.db.endpoint.findMany({ where: { projectId: s.projectId, name: "one_name" } });
      expect(stored).toHaveLength(1);
      expect((await activity(s, "Endpoint", stored[0]!.id)).map((e) => e.activity)).toEqual(["created"]);
    });

    it(`${WRITERS} creates with distinct names: all 201, all stored, one created entry each`, async () => {
      const s = server();
      const answers = await together(WRITERS, (i) =>
        s.request("POST", endpoints(s), {
          body: { name: `bulk_${i}`, query: hogql(`SELECT ${i}`), is_materialized: false },
        }),
      );
      expect(statusCounts(answers)).toEqual({ 201: WRITERS });
      const ids = answers.map((a) => a.body.id as string);
      expect(new Set(ids).size).toBe(WRITERS);
      const stored = await s.db.endpoint.findMany({
        where: { projectId: s.projectId, name: { startsWith: "bulk_" } },
      });
      expect(stored.map((e) => e.id).sort()).toEqual([...ids].sort());
      const entries = await s.db.activityLog.findMany({
        where: { scope: "Endpoint", activity: "created", itemId: { in: ids } },
      });
      expect(entries).toHaveLength(WRITERS);
    });
  });
});
