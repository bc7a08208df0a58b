/**
 * Lookups keyed by a caller's text find only what they hold (src/core/own-keys.ts), on both
 * backends, through the real doors: each kind of lookup is tried with the names of
 * `Object.prototype`'s members, which a plain object literal would otherwise answer with
 * JavaScript's built-ins. Kinds: HogQL's unit and function-name tables, REST query and body values
 * looked up in a table (experiments' `order`, an endpoint run's `refresh`), a cohort's behavioral
 * count operator, GraphQL's field names for a validation error's `attr`, and the flag engine's
 * dictionaries keyed by flag keys and group type names.
 */
import { expect, it } from "vitest";
import { runHogQL } from "../lib/hogql/fixtures.js";
import { describeEachBackend } from "../support/server.js";

/** The names every test tries: members of `Object.prototype`. */
const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty"] as const;

describeEachBackend("lookups keyed by input", (server) => {
  it("HogQL: a unit or a function name is one of HogQL's or refused", async () => {
    for (const name of NAMES) {
      for (const call of ["dateAdd", "dateSub", "dateDiff"]) {
        const args = call === "dateDiff" ? "now(), now()" : "1, now()";
        const answer = await runHogQL(server(), `SELECT ${call}('${name}', ${args})`);
        expect(answer.status, `${call} ${name}`).toBe(400);
        expect(answer.body.detail).toBe(`${call}() does not know the unit '${name}'.`);
      }
      if (name === "toString") continue; // HogQL's own toString()
      const answer = await runHogQL(server(), `SELECT ${name}(1)`);
      expect(answer.status, name).toBe(400);
      expect(answer.body.detail).toBe(`Unsupported function call '${name}(...)'`);
    }
  });

  it("REST: an unknown experiments `order` is ignored, an unknown run `refresh` refused", async () => {
    const s = server();
    for (const [index, key] of ["own-a", "own-b", "own-c"].entries()) {
      const created = await s.request("POST", `/api/projects/${s.projectId}/experiments/`, {
        body: { name: key, feature_flag_key: key },
      });
      expect(created.status, created.text).toBe(201);
      // Creation times against the ids' order: the default order (newest first) is not the ids'.
      await s.db.experiment.update({
        where: { id: created.body.id },
        data: { createdAt: new Date(Date.UTC(2020, 0, 10 - index)) },
      });
    }
    const ids = async (query: string) =>
      (await s.request("GET", `/api/projects/${s.projectId}/experiments/${query}`)).body.results.map(
        (experiment: { id: number }) => experiment.id,
      );
    const byDefault = await ids("");
    expect(byDefault).toEqual([...byDefault].sort((a, b) => a - b));
    const endpoint = await s.request("POST", `/api/projects/${s.projectId}/endpoints/`, {
      body: { name: "own_keys", query: { kind: "HogQLQuery", query: "SELECT 1" }, is_materialized: false },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    for (const name of NAMES) {
      expect(await ids(`?order=${name}`), name).toEqual(byDefault);
      expect(await ids(`?order=-${name}`), name).toEqual(byDefault);
      const run = await s.request("POST", `/api/projects/${s.projectId}/endpoints/own_keys/run/`, {
        body: { refresh: name },
      });
      expect(run.status, name).toBe(400);
      expect(run.body).toMatchObject({ detail: `"${name}" is not a valid choice.`, attr: "refresh" });
    }
  });

  it("cohorts: a behavioral count operator is one of PostHog's or refused", async () => {
    const s = server();
    for (const name of NAMES) {
      const answer = await s.request("POST", `/api/projects/${s.projectId}/cohorts/`, {
        body: {
          name: `operator ${name}`,
          filters: {
            properties: {
              type: "OR",
              values: [
                {
                  type: "AND",
                  values: [
                    {
                      type: "behavioral",
                      key: "$pageview",
                      value: "performed_event_multiple",
                      event_type: "events",
                      operator: name,
                      operator_value: 2,
                      time_value: 30,
                      time_interval: "day",
                    },
                  ],
                },
              ],
            },
          },
        },
      });
      expect(answer.status, name).toBe(400);
      expect(answer.body.detail).toBe("count_operator must be gt(e), lt(e), exact, or None");
    }
  });

  it("GraphQL: a validation error names the input field a key of the caller's JSON makes", async () => {
    const s = server();
    const mutation = `mutation ($input: CreateFeatureFlagInput!) {
      createFeatureFlag(input: $input) { __typename ... on ValidationError { attr field } }
    }`;
    for (const name of NAMES) {
      const answer = await s.request("POST", "/graphql", {
        body: {
          query: mutation,
          variables: {
            input: {
              projectId: String(s.projectId),
              key: "own-field",
              filters: { payloads: { [name]: "\u0000" } },
            },
          },
        },
      });
      expect(answer.body.data.createFeatureFlag, name).toEqual({
        __typename: "ValidationError",
        attr: `filters__payloads__${name}`,
        // `__` separates attr's segments: `__proto__` reaches GraphQL as the segments "", "proto", "".
        field: name === "__proto__" ? "filters.payloads..proto." : `filters.payloads.${name}`,
      });
    }
  });

  it("flags: a flag or a group type named like a built-in is evaluated as any other", async () => {
    const s = server();
    const project = await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } });
    for (const name of NAMES) {
      const created = await s.request("POST", `/api/projects/${s.projectId}/feature_flags/`, {
        body: {
          key: name,
          ensure_experience_continuity: true,
          filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
        },
      });
      expect(created.status, created.text).toBe(201);
    }
    // Hashed by each caller's distinct id (no hash-key override was stored): about half are in.
    const seen = new Map<string, Set<boolean>>(NAMES.map((name) => [name, new Set()]));
    for (let i = 0; i < 24; i++) {
      const answer = await s.request("POST", "/flags/?v=2", {
        key: null,
        body: { token: project.apiToken, distinct_id: `own-keys-${i}` },
      });
      expect(answer.status, answer.text).toBe(200);
      for (const name of NAMES) seen.get(name)!.add(answer.body.flags[name].enabled);
    }
    for (const name of NAMES) expect([...seen.get(name)!].sort(), name).toEqual([false, true]);

    const evaluate = `query ($project: ID!, $groups: [FeatureFlagEvaluationGroupInput!]) {
      project(id: $project) {
        evaluateFeatureFlags(distinctId: "own-keys", groups: $groups) { __typename ... on Error { message } }
      }
    }`;
    for (const name of NAMES) {
      const answer = await s.request("POST", "/graphql", {
        body: {
          query: evaluate,
          variables: { project: String(s.projectId), groups: [{ groupType: name, groupKey: "k" }] },
        },
      });
      expect(answer.body.data.project.evaluateFeatureFlags, name).toEqual({
        __typename: "EvaluateFeatureFlagsSuccess",
      });
    }
  });
});
