/**
 * Webhook deliveries end to end, on both backends, against a receiver on loopback (allowed here by
 * `WEBHOOK_ALLOW_LOOPBACK`, the test-only setting): a committed flag write reaches the receiver
 * signed per Standard Webhooks (verified here with the spec's algorithm, independently of the
 * service's code), a 500 is retried after the queue's back-off, a redirect is not followed, a rolled-back
 * write sends nothing, and every attempt is in the delivery log (REST). The SSRF refusals without
 * the loopback setting are in webhooks.ssrf.test.ts.
 */
import { createHmac } from "node:crypto";
import net from "node:net";
import { beforeAll, expect, it } from "vitest";
import { recordActivity } from "../../src/core/activity-log.js";
import { createFlag } from "../support/flags.js";
import { describeEachBackend, type TestServer } from "../support/server.js";
import { eventually, useReceiver } from "./receiver.js";

/** Standard Webhooks verification (standardwebhooks.com spec, "Verifying"): the receiver's side. */
function verify(secret: string, headers: Record<string, unknown>, body: string): boolean {
  const id = String(headers["webhook-id"]);
  const timestamp = String(headers["webhook-timestamp"]);
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  const tolerance = Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300;
  const signatures = String(headers["webhook-signature"]).split(" ");
  return tolerance && signatures.some((s) => s === `v1,${expected}`);
}

describeEachBackend(
  "webhook deliveries",
  (server) => {
    let s: TestServer;
    const receiver = useReceiver();
    beforeAll(() => {
      s = server();
    });

    const createWebhook = async (path: string, kinds: string[]) => {
      const created = await s.request("POST", `/api/projects/${s.projectId}/webhooks/`, {
        body: { url: `${receiver().base}${path}`, kinds },
      });
      expect(created.status, created.text).toBe(201);
      return created.body as { id: number; secret: string };
    };
    const deliveries = async (id: number) => {
      const response = await s.request("GET", `/api/projects/${s.projectId}/webhooks/${id}/deliveries/`);
      expect(response.status, response.text).toBe(200);
      return response.body as { count: number; results: Array<Record<string, unknown>> };
    };
    const disable = (id: number) =>
      s.request("PATCH", `/api/projects/${s.projectId}/webhooks/${id}/`, { body: { enabled: false } });

    it("delivers a committed change signed per Standard Webhooks, and logs it", async () => {
      const hook = await createWebhook("/ok", ["feature_flag.created", "feature_flag.deleted"]);
      const flag = await createFlag(s, { key: "webhook-signed" });
      const [request] = await receiver().waitFor("/ok", 1);
      expect(request).toBeDefined();
      expect(verify(hook.secret, request!.headers, request!.body)).toBe(true);
      expect(verify(`whsec_${Buffer.alloc(24).toString("base64")}`, request!.headers, request!.body)).toBe(
        false,
      );

      const entry = await s.db.activityLog.findFirstOrThrow({
        where: { projectId: s.projectId, scope: "FeatureFlag", itemId: String(flag.id), activity: "created" },
      });
      expect(request!.headers["webhook-id"]).toBe(entry.id);
      expect(request!.headers["content-type"]).toBe("application/json");
      const payload = JSON.parse(request!.body);
      expect(payload).toMatchObject({
        type: "feature_flag.created",
        timestamp: entry.createdAt.toISOString(),
        data: {
          event_id: entry.id,
          kind: "feature_flag.created",
          project_id: s.projectId,
          scope: "FeatureFlag",
          item_id: String(flag.id),
          activity: "created",
          user: { email: "admin@example.com" },
          is_system: false,
        },
      });
      expect(payload.data.detail).toEqual(entry.detail);

      const log = await eventually(async () => {
        const page = await deliveries(hook.id);
        return page.count >= 1 ? page : undefined;
      });
      expect(log.results[0]).toMatchObject({
        event_id: entry.id,
        kind: "feature_flag.created",
        attempt: 1,
        status: "succeeded",
        status_code: 200,
        error: null,
      });
      expect(log.results[0]!["response_time_ms"]).toBeGreaterThanOrEqual(0);

      // An update is not a subscribed kind of this webhook: nothing more arrives.
      await s.request("PATCH", `/api/projects/${s.projectId}/feature_flags/${flag.id}/`, {
        body: { name: "changed" },
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await deliveries(hook.id)).count).toBe(1);
      await disable(hook.id);
    });

    it("retries a receiver that answers 500, after the queue's back-off, with the same webhook-id", async () => {
      const hook = await createWebhook("/fail", ["experiment.*", "feature_flag.*"]);
      await createFlag(s, { key: "webhook-retried" });
      const [first, second] = await receiver().waitFor("/fail", 2, 15_000);
      await disable(hook.id);
      expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
      expect(verify(hook.secret, second!.headers, second!.body)).toBe(true);
      // graphile-worker's exp(1) s (2.7 s) before the first retry, on both runners.
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(2_500);
      const log = await eventually(async () => {
        const page = await deliveries(hook.id);
        return page.count >= 2 ? page : undefined;
      });
      expect(log.results.map((d) => [d["attempt"], d["status"], d["status_code"]])).toEqual([
        [2, "failed", 500],
        [1, "failed", 500],
      ]);
      expect(log.results[0]!["error"]).toBe("receiver answered 500");
    }, 30_000);

    it("logs a failed connection by Node's error code, without the address connected to", async () => {
      const closed = net.createServer();
      await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
      const { port } = closed.address() as net.AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const created = await s.request("POST", `/api/projects/${s.projectId}/webhooks/`, {
        body: { url: `http://localhost:${port}/gone`, kinds: ["cohort.created"] },
      });
      expect(created.status, created.text).toBe(201);
      const cohort = await s.request("POST", `/api/projects/${s.projectId}/cohorts/`, {
        body: { name: "webhook to a closed port" },
      });
      expect(cohort.status, cohort.text).toBe(201);
      const log = await eventually(async () => {
        const page = await deliveries(created.body.id);
        return page.count >= 1 ? page : undefined;
      });
      await disable(created.body.id);
      expect(log.results[0]).toMatchObject({
        status: "failed",
        status_code: null,
        error: "connection failed: ECONNREFUSED",
      });
    });

    it("does not follow a redirect, even to an allowed target", async () => {
      const hook = await createWebhook("/redirect", ["cohort.created"]);
      const created = await s.request("POST", `/api/projects/${s.projectId}/cohorts/`, {
        body: { name: "webhook cohort" },
      });
      expect(created.status, created.text).toBe(201);
      await receiver().waitFor("/redirect", 1);
      const log = await eventually(async () => {
        const page = await deliveries(hook.id);
        return page.count >= 1 ? page : undefined;
      });
      await disable(hook.id);
      expect(log.results[0]).toMatchObject({ status: "failed", status_code: 302, attempt: 1 });
      expect(receiver().received.filter((r) => r.path === "/redirected")).toEqual([]);
    });

    it("sends nothing for a rolled-back write, and delivers the same write committed", async () => {
      const hook = await createWebhook("/ok?rollback", ["feature_flag.updated"]);
      const entry = (itemId: string) => ({
        projectId: s.projectId,
        userId: s.userId,
        scope: "FeatureFlag" as const,
        itemId,
        activity: "updated",
        name: "rolled",
        changes: [
          {
            type: "FeatureFlag" as const,
            action: "changed" as const,
            field: "name",
            before: "a",
            after: "b",
          },
        ],
      });
      await expect(
        s.db.$transaction(async (tx) => {
          await recordActivity(tx, entry("rolled-back"));
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      await s.db.$transaction(async (tx) => {
        await recordActivity(tx, entry("committed"));
      });
      const [request] = await receiver().waitFor("/ok?rollback", 1);
      expect(JSON.parse(request!.body).data.item_id).toBe("committed");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver().received.filter((r) => r.path === "/ok?rollback")).toHaveLength(1);
      const log = await deliveries(hook.id);
      expect(log.count).toBe(1);
      await disable(hook.id);
    });
  },
  { env: { WEBHOOK_ALLOW_LOOPBACK: "true", JOB_POLL_INTERVAL_MS: "100", WEBHOOK_TIMEOUT_MS: "3000" } },
);
