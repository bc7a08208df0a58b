/**
 * A real browser against our server, on PGlite and PostgreSQL: headless Chromium (Debian's
 * `chromium`, driven by playwright-core) opens a page served by this test (its own origin, as a
 * customer's site) that loads posthog-js from node_modules pointed at our server (`api_host`), and
 * OpenFeature's web SDK with its OFREP provider. posthog-js identifies a user (with a person
 * property), captures an event and reads a multivariate flag targeted on that property; the OFREP
 * web provider resolves the same flag, then re-polls with the ETag it was given. The test checks the
 * event and the person are stored, and that both browser clients got the variant
 * `evaluation_reasons` gives. Skipped, with the reason printed, only where no Chromium is installed.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  findChromium,
  openFeatureBundle,
  type PageServer,
  posthogJsBundle,
  servePages,
} from "../support/browser.js";
import { projectToken, storedEvents } from "../support/capture.js";
import { createFlag, flagsPath } from "../support/flags.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

const CHROMIUM = findChromium();
if (!CHROMIUM) {
  console.warn(
    "SKIPPED test/e2e/browser.test.ts: no Chromium found (set CHROMIUM_PATH, or apt-get install chromium; .ci/run installs it)",
  );
}

/** The flag both browser clients read: three variants for persons on plan pro. */
const FLAG = "browser-checkout";
const USER = "browser-user-7";
const EVENT = "browser test event";

/** What the page's OpenFeature client resolved (the SDK's evaluation details). */
interface OpenFeatureDetails {
  value: string;
  variant?: string;
  reason?: string;
  errorCode?: string;
  flagMetadata: Record<string, unknown>;
}

/**
 * In the page: posthog-js initialised against our server (no first-load flags, so the one `/flags`
 * request is the identified user's), `identify` with `plan: pro`, one event, then the flag's value
 * once posthog-js has it.
 */
function runPosthogJs(args: { apiHost: string; token: string; user: string; flag: string; event: string }) {
  const { posthog } = window as unknown as {
    posthog: {
      init(token: string, config: Record<string, unknown>): void;
      identify(id: string, properties: Record<string, unknown>): void;
      capture(event: string, properties: Record<string, unknown>): void;
      onFeatureFlags(callback: () => void): void;
      getFeatureFlag(key: string): string | boolean | undefined;
    };
  };
  posthog.init(args.token, {
    api_host: args.apiHost,
    opt_out_useragent_filter: true,
    request_batching: false,
    autocapture: false,
    capture_pageview: false,
    capture_pageleave: false,
    disable_session_recording: true,
    disable_surveys: true,
    advanced_disable_feature_flags_on_first_load: true,
    persistence: "memory",
  });
  posthog.identify(args.user, { plan: "pro" });
  posthog.capture(args.event, { source: "browser-test" });
  return new Promise<string | boolean>((resolve) => {
    posthog.onFeatureFlags(() => {
      const value = posthog.getFeatureFlag(args.flag);
      if (value !== undefined) resolve(value);
    });
  });
}

describe.skipIf(!CHROMIUM)("a real browser", () => {
  let browser: Browser;
  let pages: PageServer;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM!,
      headless: true,
      args: ["--no-sandbox", "--disable-dev-shm-usage"],
    });
    pages = await servePages({
      "/": {
        type: "text/html",
        body: '<!doctype html><html><head><script src="/posthog.js"></script><script src="/openfeature.js"></script></head><body>Signalbox browser test</body></html>',
      },
      "/posthog.js": { type: "application/javascript", body: await posthogJsBundle() },
      "/openfeature.js": { type: "application/javascript", body: await openFeatureBundle() },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
  });

  describeEachBackend("posthog-js and OpenFeature's web SDK in headless Chromium", (server) => {
    let page: Page;
    /** Statuses of the page's OFREP requests, in order. */
    const ofrepStatuses: number[] = [];
    beforeAll(async () => {
      await createFlag(server(), {
        key: FLAG,
        filters: {
          groups: [
            {
              properties: [{ key: "plan", value: "pro", type: "person", operator: "exact" }],
              rollout_percentage: 100,
            },
          ],
          multivariate: {
            variants: [
              { key: "red", rollout_percentage: 34 },
              { key: "green", rollout_percentage: 33 },
              { key: "blue", rollout_percentage: 33 },
            ],
          },
        },
      });
      const context = await browser.newContext();
      page = await context.newPage();
      page.on("response", (response) => {
        if (response.url().includes("/ofrep/v1/evaluate/flags")) ofrepStatuses.push(response.status());
      });
      await page.goto(`${pages.url}/`);
    });
    afterAll(async () => {
      await page?.context().close();
    });

    /** `evaluation_reasons`' value of the flag for the user. */
    const expectedVariant = async (s: TestServer) => {
      const answer = await s.request("GET", flagsPath(s, `evaluation_reasons/?distinct_id=${USER}`));
      expect(answer.status, answer.text).toBe(200);
      return answer.body[FLAG].value as string | boolean;
    };

    it("posthog-js identifies, captures and reads the variant evaluation_reasons gives", async () => {
      const s = server();
      const token = await projectToken(s);
      const variant = await page.evaluate(runPosthogJs, {
        apiHost: s.baseUrl,
        token,
        user: USER,
        flag: FLAG,
        event: EVENT,
      });
      // The event and the identify are stored. posthog-js sends them unbatched, as two requests in
      // flight at once, so either may land first: wait for both.
      const storedNames = async () => (await storedEvents(s)).map((event) => event.event).sort();
      await expect
        .poll(storedNames, { timeout: 30_000 })
        .toEqual(expect.arrayContaining(["$identify", EVENT]));
      const [event] = (await storedEvents(s)).filter((stored) => stored.event === EVENT);
      expect(event).toMatchObject({ distinctId: USER, properties: { source: "browser-test", $lib: "web" } });
      const persons = await s.request("GET", `/api/projects/${s.projectId}/persons/?distinct_id=${USER}`);
      expect(persons.status, persons.text).toBe(200);
      expect(persons.body.results).toHaveLength(1);
      expect(persons.body.results[0].properties).toMatchObject({ plan: "pro" });

      const expected = await expectedVariant(s);
      expect(["red", "green", "blue"]).toContain(expected);
      expect(variant).toBe(expected);
    });

    it("OpenFeature's web SDK with the OFREP web provider resolves the same variant, then gets 304 on its ETag", async () => {
      const s = server();
      const token = await projectToken(s);
      const details = (await page.evaluate(
        ({ baseUrl, token: phc, user, flag }) =>
          (
            window as unknown as {
              resolveWithOpenFeature(b: string, t: string, c: object, f: string): Promise<unknown>;
            }
          ).resolveWithOpenFeature(baseUrl, phc, { targetingKey: user }, flag),
        { baseUrl: s.baseUrl, token, user: USER, flag: FLAG },
      )) as OpenFeatureDetails;
      const expected = await expectedVariant(s);
      expect(details).toMatchObject({
        value: expected,
        variant: expected,
        reason: "TARGETING_MATCH",
        flagMetadata: { reason: "condition_match", conditionIndex: 0 },
      });
      expect(details.errorCode).toBeUndefined();

      // The same targeting key with an attribute that changes nothing: the provider answers from its
      // cache and refreshes it in the background with the ETag it could read (CORS exposes it),
      // which our server answers 304.
      const again = (await page.evaluate(
        ({ user, flag }) =>
          (
            window as unknown as { changeOpenFeatureContext(c: object, f: string): Promise<unknown> }
          ).changeOpenFeatureContext({ targetingKey: user, locale: "en" }, flag),
        { user: USER, flag: FLAG },
      )) as OpenFeatureDetails;
      expect(again.value).toBe(expected);
      await expect.poll(() => ofrepStatuses, { timeout: 30_000 }).toEqual([200, 304]);
    });
  });
});
