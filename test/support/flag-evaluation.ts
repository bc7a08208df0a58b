/**
 * The flags, person, group and cohort the flag-evaluation tests evaluate (remote `/flags`,
 * `evaluation_reasons`, `my_flags`, GraphQL), each chosen so its value for `EVALUATED_ID` follows
 * from PostHog's rules alone (posthog-behavior.md §3; the variant from §3.1's published vector:
 * `hash("new-checkout.", "u_42", "variant") = 0.185…`, below 0.5, so `control`). Flags and cohorts go
 * through the REST door as a client would create them; the person and group are fixture rows, as
 * capture would leave them.
 */
import { expect } from "vitest";
import { createFlag } from "./flags.js";
import { insertGroups, insertGroupType } from "./groups.js";
import { insertPerson } from "./people.js";
import type { TestServer } from "./server.js";

/** The distinct id the fixtures are evaluated for. */
export const EVALUATED_ID = "u_42";

/**
 * The values of the fixtures' flags for `EVALUATED_ID` in company `acme` that every runtime
 * evaluates (`server-only` and `client-only` come on top, per runtime; `inactive-flag` never).
 */
export const EVALUATED_VALUES: Readonly<Record<string, boolean | string>> = {
  "on-for-all": true,
  "off-for-all": false,
  "pro-only": true,
  "new-checkout": "control",
  "override-variant": "test",
  "company-flag": true,
  "vip-flag": true,
  tagged: true,
};

/** A person-property condition. */
export const personCondition = (key: string, value: unknown, rollout = 100) => ({
  properties: [{ key, value, type: "person", operator: "exact" }],
  rollout_percentage: rollout,
});

/**
 * Every fixture flag's value for `EVALUATED_ID` in company `acme`, inactive and runtime-limited flags
 * included (as an evaluation that filters nothing gives them: `evaluation_reasons`, OFREP).
 */
export const FIXTURE_VALUES: Readonly<Record<string, boolean | string>> = {
  "on-for-all": true,
  "off-for-all": false,
  "pro-only": true,
  "new-checkout": "control",
  "override-variant": "test",
  "company-flag": true,
  "vip-flag": true,
  "inactive-flag": false,
  "server-only": true,
  "client-only": true,
  tagged: true,
};

/** What the fixtures created. */
export interface EvaluationFixtures {
  /** Flag key → id. */
  flags: Record<string, number>;
  staticCohort: number;
  personId: bigint;
}

/**
 * Creates on `s`: the person `u_42` (`plan: pro`) in static cohort `vip`; group type `company` (index
 * 0) with group `acme` (`tier: enterprise`); and the flags:
 * - `on-for-all` (100%, payload `{"a":1}`), `off-for-all` (0%: out of rollout), `pro-only` (plan = pro);
 * - `new-checkout`: control/test 50/50 with payloads (`u_42` gets control);
 * - `override-variant`: a condition forcing variant `test`;
 * - `company-flag`: aggregated by `company`, tier = enterprise;
 * - `vip-flag`: in static cohort `vip`;
 * - `inactive-flag` (inactive), `server-only` and `client-only` (evaluation runtimes), `tagged`
 *   (evaluation tag `web`).
 */
export async function createEvaluationFixtures(s: TestServer): Promise<EvaluationFixtures> {
  const person = await insertPerson(s.db, s.projectId, {
    distinctIds: [EVALUATED_ID],
    properties: { plan: "pro", email: "u42@example.com" },
    isIdentified: true,
  });
  await insertGroupType(s.db, s.projectId, 0, "company");
  await insertGroups(s.db, s.projectId, [
    { groupTypeIndex: 0, groupKey: "acme", properties: { tier: "enterprise" } },
  ]);
  const cohort = await s.request("POST", `/api/projects/${s.projectId}/cohorts/`, {
    body: { name: "vip", is_static: true, _create_static_person_ids: [person.uuid] },
  });
  expect(cohort.status, cohort.text).toBe(201);
  const staticCohort: number = cohort.body.id;

  const variants = (...keys: string[]) => ({
    variants: keys.map((key) => ({ key, rollout_percentage: 100 / keys.length })),
  });
  const definitions: Array<Record<string, unknown>> = [
    { key: "on-for-all", filters: { groups: [{ rollout_percentage: 100 }], payloads: { true: '{"a":1}' } } },
    { key: "off-for-all", filters: { groups: [{ rollout_percentage: 0 }] } },
    { key: "pro-only", filters: { groups: [personCondition("plan", "pro")] } },
    {
      key: "new-checkout",
      filters: {
        groups: [{ rollout_percentage: 100 }],
        multivariate: variants("control", "test"),
        payloads: { control: '"c"', test: '"t"' },
      },
    },
    {
      key: "override-variant",
      filters: {
        groups: [{ rollout_percentage: 100, variant: "test" }],
        multivariate: variants("control", "test"),
      },
    },
    {
      key: "company-flag",
      filters: {
        aggregation_group_type_index: 0,
        groups: [
          {
            properties: [{ key: "tier", value: "enterprise", type: "group", group_type_index: 0 }],
            rollout_percentage: 100,
          },
        ],
      },
    },
    {
      key: "vip-flag",
      filters: {
        groups: [
          { properties: [{ key: "id", value: staticCohort, type: "cohort" }], rollout_percentage: 100 },
        ],
      },
    },
    { key: "inactive-flag", active: false, filters: { groups: [{ rollout_percentage: 100 }] } },
    { key: "server-only", evaluation_runtime: "server", filters: { groups: [{ rollout_percentage: 100 }] } },
    { key: "client-only", evaluation_runtime: "client", filters: { groups: [{ rollout_percentage: 100 }] } },
    {
      key: "tagged",
      tags: ["web"],
      evaluation_tags: ["web"],
      filters: { groups: [{ rollout_percentage: 100 }] },
    },
  ];
  const flags: Record<string, number> = {};
  for (const body of definitions) flags[body["key"] as string] = (await createFlag(s, body)).id;
  return { flags, staticCohort, personId: person.id };
}
