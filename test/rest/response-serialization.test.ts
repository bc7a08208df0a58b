/**
 * fastify writes REST bodies with the routes' response schemas (fast-json-stringify), which write only
 * the properties a schema names and coerce values to its types. These tests pin that the bytes on the
 * wire parse back to exactly what the serialisers return, for records with every kind of value:
 * variants, payloads, tags, nulls, unicode, free-form JSON with keys no schema names.
 */
import { expect, it } from "vitest";
import { createServices } from "../../src/composition.js";
import { loadConfig } from "../../src/config.js";
import { authenticate } from "../../src/core/auth/authenticate.js";
import { createServiceContext, dataAccessOf, type ServiceContext } from "../../src/core/context.js";
import { featureFlagSchema, serializeFlag } from "../../src/feature-flags/feature-flags.responses.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

const RICH_FLAG = {
  key: "rich-flag",
  name: 'Rich "flag" ✨ with\u2028separators\\ and </script>',
  filters: {
    groups: [
      {
        properties: [
          { key: "email", type: "person", value: ["a@example.com", "b@example.com"], operator: "exact" },
          { key: "age", type: "person", value: "42.5", operator: "gt" },
        ],
        rollout_percentage: 33.3,
        variant: "test",
      },
      { properties: [], rollout_percentage: null, variant: null },
    ],
    multivariate: {
      variants: [
        { key: "control", name: "Control", rollout_percentage: 50 },
        { key: "test", name: "", rollout_percentage: 50 },
      ],
    },
    payloads: { control: { color: "blue", sizes: [1, 2.5, null] }, test: "[1, 2]" },
    aggregation_group_type_index: null,
  },
  tags: ["growth", "beta", "web"],
  evaluation_tags: ["web"],
  rollback_conditions: [{ threshold: 5, threshold_type: "insight", threshold_metric: { events: [] } }],
  ensure_experience_continuity: true,
  evaluation_runtime: "client",
  bucketing_identifier: "device_id",
  creation_context: "experiments",
  _create_in_folder: "Unfiled/Flags",
};

describeEachBackend("REST bodies written with the response schemas", (server) => {
  const flags = (suffix = "") => `/api/projects/${server().projectId}/feature_flags/${suffix}`;
  const services = createServices();

  /** The service context of the all-scopes key, as the REST door builds it. */
  async function context(s: TestServer): Promise<ServiceContext> {
    const actor = await authenticate(dataAccessOf(s.database), {
      key: s.key,
      source: "Authorization header",
    });
    return createServiceContext(dataAccessOf(s.database), actor, loadConfig({}).limits);
  }

  /** What `serializeFlag` returns for the flag, read in-process through the service. */
  async function serialized(id: number) {
    const ctx = await context(server());
    const flag = await services.featureFlags.get(ctx, server().projectId, { id });
    return serializeFlag(flag, ctx, services.featureFlags.status(flag));
  }

  it("answers a rich flag with exactly what serializeFlag returns, in the schema's field order", async () => {
    const created = await server().request("POST", flags(), { body: RICH_FLAG });
    expect(created.status, created.text).toBe(201);
    const read = await server().request("GET", flags(`${created.body.id}/`));
    expect(read.status).toBe(200);
    const expected = await serialized(created.body.id);
    expect(JSON.parse(read.text)).toStrictEqual(expected);
    expect(JSON.parse(created.text)).toStrictEqual({ ...expected, updated_at: created.body.updated_at });
    expect(Object.keys(JSON.parse(read.text))).toEqual(Object.keys(featureFlagSchema.shape));
  });

  it("answers nulls as null, and stored filters and JSON with every key, schema or not", async () => {
    const s = server();
    const row = await s.db.featureFlag.create({
      data: {
        projectId: s.projectId,
        key: "stored-directly",
        filters: {
          groups: [{ properties: [], rollout_percentage: 100 }],
          super_groups: [{ properties: [], rollout_percentage: 10 }],
          holdout: { id: 3, exclusion_percentage: 10 },
          "key with spaces": { nested: { deeper: [true, false, { x: null }] } },
        },
        rollbackConditions: { free: ["form", 1, null] },
        lastCalledAt: new Date("2026-01-02T03:04:05.678Z"),
      },
    });
    const read = await s.request("GET", flags(`${row.id}/`));
    expect(read.status).toBe(200);
    const body = JSON.parse(read.text);
    expect(body).toStrictEqual(await serialized(row.id));
    expect(body.created_by).toBeNull();
    expect(body.last_modified_by).toBeNull();
    expect(body._create_in_folder).toBeNull();
    expect(body.performed_rollback).toBeNull();
    // As Django REST framework writes it: six digits of fraction (src/rest/date-time.ts).
    expect(body.last_called_at).toBe("2026-01-02T03:04:05.678000Z");
    expect(body.filters["key with spaces"]).toEqual({ nested: { deeper: [true, false, { x: null }] } });
    expect(body.filters.holdout).toEqual({ id: 3, exclusion_percentage: 10 });
  });

  it("answers a page of flags with exactly the serialised records and DRF's page fields", async () => {
    const s = server();
    const list = await s.request("GET", flags("?limit=100"));
    expect(list.status).toBe(200);
    const ctx = await context(s);
    const page = await services.featureFlags.list(ctx, s.projectId, {}, { limit: 100, offset: 0 });
    expect(JSON.parse(list.text)).toStrictEqual({
      count: page.count,
      next: null,
      previous: null,
      results: page.results.map((flag) => serializeFlag(flag, ctx, services.featureFlags.status(flag))),
    });
  });

  it("answers activity entries with their stored detail, keys the schema does not name included", async () => {
    const s = server();
    const created = await s.request("POST", flags(), { body: { key: "activity-serialized" } });
    const patched = await s.request("PATCH", flags(`${created.body.id}/`), {
      body: { filters: RICH_FLAG.filters, tags: ["x"], name: "Renamed", rollback_conditions: { a: [1] } },
    });
    expect(patched.status, patched.text).toBe(200);
    const latest = await s.db.activityLog.findFirstOrThrow({
      where: { itemId: String(created.body.id) },
      orderBy: { createdAt: "desc" },
    });
    const detail = { ...(latest.detail as Record<string, unknown>), extra: { kept: [1, "two", null] } };
    await s.db.activityLog.update({ where: { id: latest.id }, data: { detail } });
    await s.db.activityLog.create({
      data: {
        projectId: s.projectId,
        userId: null,
        isSystem: true,
        scope: "FeatureFlag",
        itemId: String(created.body.id),
        activity: "updated",
        detail: { changes: null, trigger: null, type: null, name: null, short_id: null },
        createdAt: new Date(Date.now() + 60_000),
      },
    });

    const page = await s.request("GET", flags(`${created.body.id}/activity/`));
    expect(page.status).toBe(200);
    const [system, update] = JSON.parse(page.text).results;
    expect(system.user).toStrictEqual({ first_name: "System", email: null, is_system: true });
    expect(system.detail).toStrictEqual({
      changes: null,
      trigger: null,
      type: null,
      name: null,
      short_id: null,
    });
    expect(update.id).toBe(latest.id);
    expect(update.user).toStrictEqual({ first_name: expect.any(String), email: "admin@example.com" });
    expect(update.detail).toStrictEqual(detail);
    expect(update.detail.changes.map((c: { field: string }) => c.field)).toEqual(
      expect.arrayContaining(["filters", "tags", "name"]),
    );
  });
});
