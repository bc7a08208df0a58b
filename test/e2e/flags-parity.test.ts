/**
 * Issue 8's real-client comparison ("How it is shown", 2nd bullet), on PGlite and PostgreSQL: flags
 * of every shape created through REST (a plain rollout, a multivariate flag with a variant override,
 * many operators, a dynamic and a static cohort, flag dependencies, a multivariate group flag,
 * payloads, an inactive flag), 1,000 persons and a few groups sent through posthog-node (`identify`,
 * `groupIdentify`), some persons added to the static cohort through REST; then, for each of the
 * 1,000 distinct ids, with the properties it was identified with and its group:
 * - A: posthog-node with a personal API key, in local-evaluation mode on its own polling of
 *   `/flags/definitions` (revalidated with its ETag: a 304), `getAllFlagsAndPayloads` falling back
 *   to the server where it cannot decide a flag, and what it decides locally on its own
 *   (`evaluateFlags` with `onlyEvaluateLocally`, test/support/flag-parity.ts);
 * - B: posthog-node without a personal key (every call a remote `POST /flags/?v=2`);
 * - R: `GET feature_flags/evaluation_reasons/?distinct_id=` (the stored person and group).
 * Every flag's value is the same in A, in A's local decisions, in B and in R, and A's payloads are
 * B's. posthog-node's `getAllFlagsAndPayloads` takes the server's answer for every flag once it
 * cannot decide one (a flag on a static cohort, here for everyone), so its local decisions are
 * compared on their own, and the test checks that each flag but the one on the static cohort alone
 * was decided locally for most persons, and that every flag takes more than one value.
 * Requests run 20 at a time (see `COMPARISON_TIMEOUT_MS` for how long they take).
 */
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import pLimit from "p-limit";
import type { PostHog } from "posthog-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { posthogNodeClient } from "../support/capture.js";
import { bagOf, type GeneratedPerson, PERSON_DOMAINS } from "../support/flag-arbitraries.js";
import { type LocalOutcomes, locallyDecided, parsedPayload } from "../support/flag-parity.js";
import { createFlag, flagsPath } from "../support/flags.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

/** How many persons are compared, and how many requests of each kind are in flight at once. */
const PERSONS = 1_000;
const IN_FLIGHT = 20;
/**
 * The comparison's time limit: 3,000 requests take 15–25 s on PostgreSQL and 25–55 s on PGlite (the
 * database in the test's own process) on a loaded 2-core machine, beside the default 60 s.
 */
const COMPARISON_TIMEOUT_MS = 180_000;

/** The companies (group type `company`, index 0) persons belong to, as `groupIdentify` sets them. */
const COMPANIES: Record<string, Record<string, unknown>> = {
  acme: { name: "Acme", employees: 500, industry: "saas" },
  globex: { name: "Globex", employees: 50, industry: "retail" },
  initech: { name: "initech", employees: 5, industry: "SaaS" },
  umbrella: { name: "ACME corp", employees: 49.5, industry: null },
  hooli: { name: "Hooli", employees: 5000, industry: "retail" },
};

/**
 * The 1,000 persons, drawn from a fixed seed: every property of `PERSON_DOMAINS` (the values the
 * engine's parity property draws from: mixed case, numbers as text, versions, dates, booleans as
 * text, nulls), `country` left out for about one in five (so `is_set`/`is_not_set` differ, and
 * posthog-node meets a missing property), four in five in a company.
 */
function generatePersons(): GeneratedPerson[] {
  const draws = fc.sample(
    fc.record({
      properties: bagOf(PERSON_DOMAINS),
      withoutCountry: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
      company: fc.option(fc.constantFrom(...Object.keys(COMPANIES)), { freq: 5 }),
    }),
    { seed: 8_1000, numRuns: PERSONS },
  );
  return draws.map(({ properties, withoutCountry, company }, i): GeneratedPerson => {
    const { country, ...rest } = properties;
    return {
      distinctId: `parity-${String(i).padStart(4, "0")}`,
      properties: withoutCountry ? rest : { ...rest, country },
      groups: company === null ? {} : { company },
      groupProperties: company === null ? {} : { company: COMPANIES[company]! },
      staticCohortIds: [],
    };
  });
}

/** Whether the person at `index` is put in the static cohort (one in seven). */
const isListed = (index: number) => index % 7 === 0;

/** A person-property filter. */
const personFilter = (key: string, operator: string, value: unknown) => ({
  key,
  type: "person",
  operator,
  value,
});

/** A `flag_evaluates_to` filter on the flag of `id` (PostHog stores dependencies by id, §2.6). */
const dependsOn = (id: number, value: boolean | string) => ({
  key: String(id),
  type: "flag",
  operator: "flag_evaluates_to",
  value,
});

/** A cohort membership filter. */
const inCohort = (id: number) => ({ key: "id", type: "cohort", operator: "in", value: id });

/** A `company` group-property filter. */
const companyFilter = (key: string, operator: string, value: unknown) => ({
  key,
  type: "group",
  group_type_index: 0,
  operator,
  value,
});

/** The flag on the static cohort alone: posthog-node never decides it locally. */
const SERVER_ONLY = "listed";

/**
 * Creates the cohorts and flags through REST, as a user would (see the module header); returns the
 * static cohort's id.
 */
async function createFlags(s: TestServer): Promise<number> {
  const cohort = async (body: Record<string, unknown>): Promise<number> => {
    const response = await s.request("POST", `/api/projects/${s.projectId}/cohorts/`, { body });
    expect(response.status, response.text).toBe(201);
    return response.body.id;
  };
  const paying = await cohort({
    name: "Paying or staff",
    filters: {
      properties: {
        type: "OR",
        values: [
          { type: "AND", values: [personFilter("plan", "exact", ["pro", "enterprise"])] },
          { type: "AND", values: [personFilter("email", "icontains", "posthog")] },
        ],
      },
    },
  });
  const listed = await cohort({ name: "Listed", is_static: true });
  const flag = async (key: string, filters: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    (await createFlag(s, { key, filters, ...extra })).id as number;

  const rollout = await flag("rollout-37", {
    groups: [{ properties: [], rollout_percentage: 37 }],
    payloads: { true: '{"tier":"basic"}' },
  });
  const checkout = await flag("checkout-variants", {
    // The override comes second: PostHog evaluates conditions with a variant override first.
    groups: [
      { properties: [], rollout_percentage: 80 },
      {
        properties: [personFilter("plan", "exact", ["enterprise"])],
        rollout_percentage: 100,
        variant: "test-b",
      },
    ],
    multivariate: {
      variants: [
        { key: "control", rollout_percentage: 34 },
        { key: "test-a", rollout_percentage: 33 },
        { key: "test-b", rollout_percentage: 33 },
      ],
    },
    payloads: { control: '"c"', "test-a": '{"layout":"a"}', "test-b": "[1,2]" },
  });
  await flag("email-rules", {
    groups: [
      { properties: [personFilter("email", "icontains", "example"), personFilter("plan", "is_not", "free")] },
      { properties: [personFilter("email", "regex", "@posthog\\.com$")], rollout_percentage: 50 },
    ],
  });
  await flag("numbers", {
    groups: [
      { properties: [personFilter("age", "gt", "17"), personFilter("age", "lt", "65")] },
      { properties: [personFilter("score", "gte", "10"), personFilter("score", "lte", "50")] },
    ],
  });
  await flag("country-set", { groups: [{ properties: [personFilter("country", "is_set", "is_set")] }] });
  await flag("country-not-set", {
    groups: [{ properties: [personFilter("country", "is_not_set", "is_not_set")] }],
  });
  await flag("signup-dates", {
    groups: [
      { properties: [personFilter("signed_up", "is_date_after", "-2y")] },
      { properties: [personFilter("signed_up", "is_date_before", "2024-01-01")], rollout_percentage: 50 },
    ],
  });
  await flag("app-versions", {
    groups: [
      {
        properties: [
          personFilter("app_version", "semver_gte", "1.2.0"),
          personFilter("app_version", "semver_lt", "2.0.0"),
        ],
      },
      { properties: [personFilter("app_version", "semver_wildcard", "0.*")] },
      { properties: [personFilter("app_version", "semver_tilde", "2.0.0")], rollout_percentage: 50 },
    ],
  });
  await flag("beta-users", { groups: [{ properties: [personFilter("beta", "exact", ["true"])] }] });
  await flag("paying-cohort", { groups: [{ properties: [inCohort(paying)], rollout_percentage: 60 }] });
  const listedFlag = await flag("listed", {
    groups: [{ properties: [inCohort(listed)] }],
    payloads: { true: '"listed"' },
  });
  await flag("follows-checkout", {
    groups: [
      { properties: [dependsOn(checkout, "test-a")] },
      { properties: [dependsOn(rollout, false), personFilter("country", "exact", ["US", "GB"])] },
    ],
  });
  await flag("listed-beta", {
    groups: [{ properties: [dependsOn(listedFlag, true), personFilter("beta", "exact", ["true"])] }],
  });
  await flag("company-rollout", {
    aggregation_group_type_index: 0,
    groups: [
      { properties: [companyFilter("employees", "gte", "50")], rollout_percentage: 70 },
      { properties: [companyFilter("industry", "icontains", "saas")], variant: "small" },
    ],
    multivariate: {
      variants: [
        { key: "big", rollout_percentage: 50 },
        { key: "small", rollout_percentage: 50 },
      ],
    },
    payloads: { big: '{"seats":100}' },
  });
  await flag("switched-off", { groups: [{ properties: [], rollout_percentage: 100 }] }, { active: false });
  return listed;
}

/** Every flag's value and payload as posthog-node's `getAllFlagsAndPayloads` hands them to its users. */
interface ClientFlags {
  featureFlags: Record<string, boolean | string>;
  featureFlagPayloads: Record<string, unknown>;
}

/** `getAllFlagsAndPayloads` of `client`, both records present (posthog-node types them optional). */
async function allFlags(client: PostHog, person: GeneratedPerson): Promise<ClientFlags> {
  const { featureFlags, featureFlagPayloads } = await client.getAllFlagsAndPayloads(person.distinctId, {
    personProperties: person.properties,
    groups: person.groups,
    groupProperties: person.groupProperties,
  });
  return { featureFlags: featureFlags ?? {}, featureFlagPayloads: featureFlagPayloads ?? {} };
}

/** What the three evaluate for one person. */
interface Outcomes {
  a: ClientFlags;
  aLocal: LocalOutcomes;
  b: ClientFlags;
  reasons: Record<string, { value: boolean | string; evaluation: { reason: string } }>;
}

describeEachBackend(
  "posthog-node, locally and remotely, and evaluation_reasons, for 1,000 persons",
  (server) => {
    const persons = generatePersons();
    let flagKeys: string[];
    let local: PostHog;
    let remote: PostHog;
    /** The status of each `/flags/definitions` poll of client A, and the `/flags` calls of A and B. */
    const polls: number[] = [];
    const flagsCalls = { a: 0, b: 0 };

    beforeAll(async () => {
      const s = server();
      const started = performance.now();
      // Companies first, so that `company` is the first group type (index 0) capture assigns.
      const sender = await posthogNodeClient(s, { flushAt: 100 });
      for (const [groupKey, properties] of Object.entries(COMPANIES)) {
        sender.groupIdentify({ groupType: "company", groupKey, properties });
      }
      for (const person of persons) {
        sender.identify({ distinctId: person.distinctId, properties: { $set: person.properties } });
      }
      await sender.shutdown();

      const listed = await createFlags(s);
      flagKeys = (await s.request("GET", flagsPath(s, "?limit=100"))).body.results.map(
        (flag: { key: string }) => flag.key,
      );

      // The persons as stored (capture answers once they are written), through REST.
      const stored = new Map<string, { uuid: string; properties: Record<string, unknown> }>();
      for (let next: string | null = `/api/projects/${s.projectId}/persons/?limit=500`; next; ) {
        const page = await s.request("GET", next.replace(s.baseUrl, ""));
        expect(page.status, page.text).toBe(200);
        for (const row of page.body.results) for (const id of row.distinct_ids) stored.set(id, row);
        next = page.body.next;
      }
      const keys = Object.keys(PERSON_DOMAINS);
      for (const person of persons) {
        const row = stored.get(person.distinctId);
        expect(row, person.distinctId).toBeDefined();
        const kept = Object.fromEntries(
          Object.entries(row!.properties).filter(([key]) => keys.includes(key)),
        );
        expect(kept, person.distinctId).toStrictEqual(person.properties);
      }
      const members = persons
        .filter((_, i) => isListed(i))
        .map((person) => stored.get(person.distinctId)!.uuid);
      const added = await s.request(
        "PATCH",
        `/api/projects/${s.projectId}/cohorts/${listed}/add_persons_to_static_cohort/`,
        {
          body: { person_ids: members },
        },
      );
      expect(added.status, added.text).toBe(200);

      const recording =
        (calls: "a" | "b") =>
        async (url: string, options: RequestInit): Promise<Response> => {
          const response = await fetch(url, options);
          const path = new URL(url).pathname;
          if (path === "/flags/definitions") polls.push(response.status);
          if (path === "/flags/") flagsCalls[calls]++;
          return response;
        };
      local = await posthogNodeClient(s, {
        personalApiKey: s.key,
        featureFlagsPollingInterval: 600_000,
        fetch: recording("a"),
      });
      remote = await posthogNodeClient(s, { fetch: recording("b") });
      expect(await local.waitForLocalEvaluationReady(10_000)).toBe(true);
      console.info(
        `[${s.backend}] set up (persons sent, stored, read back; flags) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    });

    afterAll(async () => {
      await Promise.all([local?.shutdown(), remote?.shutdown()]);
    });

    it("polls /flags/definitions with its ETag: the second poll is a 304", async () => {
      await local.reloadFeatureFlags();
      expect(polls).toEqual([200, 304]);
    });

    it(
      "gives every flag the same value locally (with server fallback), remotely and in evaluation_reasons, for 1,000 distinct ids",
      async () => {
        const s = server();
        expect(flagKeys).toHaveLength(15);
        const limit = pLimit(IN_FLIGHT);
        const evaluate = async (person: GeneratedPerson): Promise<Outcomes> => {
          const query = new URLSearchParams({
            distinct_id: person.distinctId,
            groups: JSON.stringify(person.groups),
          });
          const [a, aLocal, b, reasons] = await Promise.all([
            allFlags(local, person),
            locallyDecided(local, person),
            allFlags(remote, person),
            s.request("GET", flagsPath(s, `evaluation_reasons/?${query}`)),
          ]);
          expect(reasons.status, reasons.text).toBe(200);
          return { a, aLocal, b, reasons: reasons.body };
        };
        const started = performance.now();
        const outcomes = await Promise.all(persons.map((person) => limit(() => evaluate(person))));
        const seconds = (performance.now() - started) / 1000;

        const mismatches: string[] = [];
        /** Per flag: how many persons A decided locally, and the values seen. */
        const decidedLocally = new Map<string, number>();
        const valuesSeen = new Map<string, Set<boolean | string>>();
        const withPayload = new Set<string>();
        outcomes.forEach(({ a, aLocal, b, reasons }, i) => {
          const { distinctId } = persons[i]!;
          expect(Object.keys(reasons).sort(), distinctId).toEqual([...flagKeys].sort());
          for (const key of flagKeys) {
            const expected = reasons[key]!.value;
            const local = aLocal.decided.get(key);
            // /flags leaves inactive flags out (posthog-node then has no value); local evaluation says false.
            const remoteValue = b.featureFlags[key] ?? (key === "switched-off" ? false : undefined);
            const same =
              a.featureFlags[key] === expected &&
              remoteValue === expected &&
              (local === undefined || local.value === expected) &&
              isDeepStrictEqual(a.featureFlagPayloads[key], b.featureFlagPayloads[key]) &&
              (local === undefined ||
                isDeepStrictEqual(local.payload, parsedPayload(a.featureFlagPayloads[key])));
            if (!same) {
              mismatches.push(
                `${distinctId} ${key}: local+fallback ${JSON.stringify(a.featureFlags[key])}, ` +
                  `local only ${local === undefined ? `(undecided: ${aLocal.unresolved[key]})` : JSON.stringify(local.value)}, ` +
                  `remote ${JSON.stringify(b.featureFlags[key])}, evaluation_reasons ${JSON.stringify(expected)} ` +
                  `(${reasons[key]!.evaluation.reason}); payloads ${JSON.stringify(a.featureFlagPayloads[key])} / ` +
                  `${JSON.stringify(b.featureFlagPayloads[key])}`,
              );
            }
            if (a.featureFlagPayloads[key] !== undefined) withPayload.add(key);
            if (local !== undefined) decidedLocally.set(key, (decidedLocally.get(key) ?? 0) + 1);
            const seen = valuesSeen.get(key) ?? new Set();
            valuesSeen.set(key, seen.add(expected));
          }
          expect(b.featureFlags["switched-off"], distinctId).toBeUndefined();
        });
        console.info(
          `[${s.backend}] ${PERSONS} persons × ${flagKeys.length} flags in ${seconds.toFixed(1)} s; ` +
            `/flags calls: A ${flagsCalls.a}, B ${flagsCalls.b}; decided locally: ` +
            JSON.stringify(Object.fromEntries(decidedLocally)),
        );
        expect(mismatches, mismatches.slice(0, 30).join("\n")).toEqual([]);

        // Not vacuous: every flag but the inactive one takes more than one value, the multivariate
        // flags every variant; posthog-node decided each flag locally for most persons (`listed-beta`
        // where `beta` alone rules the person out), except the one on the static cohort alone.
        for (const key of flagKeys) {
          if (key !== "switched-off") expect(valuesSeen.get(key)!.size, key).toBeGreaterThan(1);
          if (key === SERVER_ONLY) expect(decidedLocally.get(key) ?? 0, key).toBe(0);
          else expect(decidedLocally.get(key) ?? 0, key).toBeGreaterThan(PERSONS / 2);
        }
        expect(withPayload).toEqual(
          new Set(["rollout-37", "checkout-variants", "listed", "company-rollout"]),
        );
        expect(valuesSeen.get("checkout-variants")).toEqual(new Set([false, "control", "test-a", "test-b"]));
        expect(valuesSeen.get("company-rollout")).toEqual(new Set([false, "big", "small"]));
        // Every person has a flag on the static cohort, so A asked the server once per person, as B did.
        expect(flagsCalls).toEqual({ a: PERSONS, b: PERSONS });
      },
      COMPARISON_TIMEOUT_MS,
    );
  },
);
