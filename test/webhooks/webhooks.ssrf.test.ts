/**
 * Server-side request forgery, on both backends, with the production default (loopback refused):
 * webhooks may be saved with any http(s) URL, but each delivery resolves the host and refuses
 * loopback, private, link-local (cloud metadata), unique-local, unspecified targets and the IPv6
 * forms that embed them before connecting; the refusal is a failed delivery in the log, with no
 * status code, that names no address nor range (a name that does not resolve reads the same), and is
 * not retried. The receiver on 127.0.0.1 must never hear from the service. The address rules
 * themselves are in test/webhooks/ssrf.rules.test.ts.
 */
import { beforeAll, expect, it } from "vitest";
import { createFlag } from "../support/flags.js";
import { describeEachBackend, type TestServer } from "../support/server.js";
import { eventually, useReceiver } from "./receiver.js";

describeEachBackend(
  "webhook SSRF protection",
  (server) => {
    let s: TestServer;
    const receiver = useReceiver();
    beforeAll(() => {
      s = server();
    });

    it("refuses private, loopback and link-local targets after resolution, and logs each as failed", async () => {
      const targets = [
        `http://127.0.0.1:${receiver().port}/ok`,
        `http://localhost:${receiver().port}/ok`,
        `http://[::1]:${receiver().port}/ok`,
        `http://[::ffff:127.0.0.1]:${receiver().port}/ok`,
        `http://[::127.0.0.1]:${receiver().port}/ok`,
        `http://[0:0:0:0:0:0:7F00:1]:${receiver().port}/ok`,
        `http://[64:ff9b::127.0.0.1]:${receiver().port}/ok`,
        "http://[::ffff:169.254.169.254]/latest/meta-data/",
        "http://[2002:a9fe:a9fe::1]/latest/meta-data/",
        `http://0.0.0.0:${receiver().port}/ok`,
        "http://10.1.2.3/hook",
        "http://192.168.1.1/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00::1]/hook",
        "http://[fe80::1]/hook",
        "https://224.0.0.1/hook",
        "http://no-such-host.invalid/hook",
      ];
      const hooks: Array<{ url: string; id: number }> = [];
      for (const url of targets) {
        const created = await s.request("POST", `/api/projects/${s.projectId}/webhooks/`, {
          body: { url, kinds: ["feature_flag.created"] },
        });
        expect(created.status, `${url}: ${created.text}`).toBe(201);
        hooks.push({ url, id: created.body.id });
      }
      await createFlag(s, { key: "ssrf-bait" });
      for (const hook of hooks) {
        const log = await eventually(async () => {
          const page = await s.request("GET", `/api/projects/${s.projectId}/webhooks/${hook.id}/deliveries/`);
          return page.body.count >= 1 ? page.body : undefined;
        });
        expect(log.results[0], hook.url).toMatchObject({ status: "failed", status_code: null, attempt: 1 });
        const host = new URL(hook.url).hostname.replace(/^\[|\]$/g, "");
        expect(log.results[0].error, hook.url).toBe(
          /^[\d.]+$|:/.test(host)
            ? `refused target ${host}: not a public address`
            : `refused target ${host}: does not resolve to public addresses only`,
        );
      }
      // Not retried: still one attempt each after the first retry would have come (2.7 s).
      await new Promise((resolve) => setTimeout(resolve, 3_200));
      for (const hook of hooks) {
        const page = await s.request("GET", `/api/projects/${s.projectId}/webhooks/${hook.id}/deliveries/`);
        expect(page.body.count, hook.url).toBe(1);
      }
      expect(receiver().received).toEqual([]);
    }, 30_000);
  },
  { env: { JOB_POLL_INTERVAL_MS: "100" } },
);
