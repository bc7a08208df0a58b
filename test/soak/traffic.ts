/**
 * The soak's traffic: what it seeds through the REST door before the load (flags, a cohort, two
 * HogQL endpoints) and the request kinds of the mix, each with its weight (its share of the
 * requests, out of the weights' sum) and what makes its answer an error beyond the status.
 *
 * Writes keep the data the reads see at a steady size, so that memory can be judged flat: flag
 * PATCHes change seeded flags in place, and every flag created is soft-deleted later (creates and
 * deletes have one weight, with `CHURN_FLAGS` created up front as the deletes' head start). Capture
 * sends `USERS` distinct ids over and over, so persons stop growing once each has been seen; only
 * events grow, as they do in service.
 */

/** Where the soak's server listens and who it is (test/soak/server.ts `SoakReady`). */
export interface SoakTarget {
  url: string;
  key: string;
  projectId: number;
  projectToken: string;
}

/** One request of the mix, as sent. */
export interface SoakRequest {
  method: "GET" | "POST" | "PATCH";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** One kind of request in the mix. */
export interface RequestKind {
  name: string;
  /** Its share of the mix: requests of this kind per `sum of weights` requests. */
  weight: number;
  /** At most this many of this kind in flight (a client honouring a server limit); unbounded when absent. */
  maxInFlight?: number;
  /** The next request of this kind. */
  next(): SoakRequest;
  /**
   * Reads a 2xx/304 answer: returns why it is an error nevertheless (a GraphQL `errors` list,
   * `/flags`' `errorsWhileComputingFlags`), or nothing; may remember what later requests send (an ETag, a new id).
   */
  read?(status: number, headers: Headers, body: string): string | undefined;
}

/** Flags created before the load (PATCHed, read, evaluated). */
const SEEDED_FLAGS = 60;
/** Flags created before the load for the deletes to start on. */
const CHURN_FLAGS = 20;
/** Distinct ids capture and `/flags` use. */
const USERS = 500;
/** Events per capture batch. */
const BATCH = 10;
/** Flag list and GraphQL page size. */
const PAGE = 50;
/**
 * HogQL endpoint runs in flight at most: under the server's `QUERY_MAX_CONCURRENT_PER_PROJECT`
 * (4, src/config.ts), whose excess is a designed 429, not what the soak looks for.
 */
const RUNS_IN_FLIGHT = 3;

const BROWSERS = ["Chrome", "Firefox", "Safari", "Edge", "Opera"] as const;
const EVENT_NAMES = ["$pageview", "button clicked", "signed up"] as const;

/** The filters of seeded flag `i`: a rollout, a person-property condition, a cohort or variants, in turn. */
function seededFilters(i: number, cohortId: number): Record<string, unknown> {
  switch (i % 4) {
    case 0:
      return { groups: [{ properties: [], rollout_percentage: 10 + (i % 9) * 10 }] };
    case 1:
      return {
        groups: [
          {
            properties: [{ key: "plan", type: "person", value: ["pro"], operator: "exact" }],
            rollout_percentage: 100,
          },
        ],
      };
    case 2:
      return {
        groups: [{ properties: [{ key: "id", type: "cohort", value: cohortId }], rollout_percentage: 50 }],
      };
    default:
      return {
        groups: [
          {
            properties: [{ key: "email", type: "person", value: "@example.com", operator: "icontains" }],
            rollout_percentage: 100,
          },
        ],
        multivariate: {
          variants: [
            { key: "control", rollout_percentage: 50 },
            { key: "test", rollout_percentage: 50 },
          ],
        },
      };
  }
}

/** Sends one REST request during the setup; throws unless it answers `expected`. */
async function setupRequest(
  target: SoakTarget,
  method: string,
  path: string,
  body: unknown,
  expected: number,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${target.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`setup ${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Seeds the project through the REST door and returns the mix. */
export async function setupTraffic(target: SoakTarget): Promise<RequestKind[]> {
  const project = `/api/projects/${target.projectId}`;
  const rest = (path: string, body: unknown, expected = 201) =>
    setupRequest(target, "POST", `${project}${path}`, body, expected);
  const cohort = await rest("/cohorts/", {
    name: "Pro users",
    filters: {
      properties: {
        type: "OR",
        values: [{ type: "AND", values: [{ key: "plan", type: "person", value: "pro", operator: "exact" }] }],
      },
    },
  });
  const seeded: number[] = [];
  for (let i = 0; i < SEEDED_FLAGS; i++) {
    const flag = await rest("/feature_flags/", {
      key: `soak-${i}`,
      name: `Soak flag ${i}`,
      filters: seededFilters(i, cohort["id"] as number),
    });
    seeded.push(flag["id"] as number);
  }
  let created = 0;
  const newFlag = () => ({
    key: `soak-churn-${created++}`,
    name: "Churn",
    filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
  });
  const churn: number[] = [];
  for (let i = 0; i < CHURN_FLAGS; i++)
    churn.push((await rest("/feature_flags/", newFlag()))["id"] as number);
  const hogql = (query: string, variables?: Record<string, unknown>) => ({
    kind: "HogQLQuery",
    query,
    ...(variables ? { variables } : {}),
  });
  await rest("/endpoints/", {
    name: "soak_events_by_name",
    is_materialized: false,
    query: hogql(
      "SELECT event, count() AS c, count(DISTINCT distinct_id) AS users FROM events WHERE event = {variables.event_name} AND timestamp > now() - INTERVAL 10 MINUTE GROUP BY event",
      { v1: { variableId: "v1", code_name: "event_name", value: "$pageview" } },
    ),
  });
  await rest("/endpoints/", {
    name: "soak_top_browsers",
    is_materialized: false,
    query: hogql(
      "SELECT properties.$browser AS browser, count() AS c FROM events WHERE timestamp > now() - INTERVAL 10 MINUTE GROUP BY browser ORDER BY c DESC LIMIT 10",
    ),
  });

  const auth = { authorization: `Bearer ${target.key}` };
  const json = { ...auth, "content-type": "application/json" };
  let n = 0;
  const pick = <T>(items: readonly T[]) => items[n++ % items.length]!;
  const user = () => `soak-user-${Math.floor(Math.random() * USERS)}`;
  let etag = "";
  let patches = 0;
  let runs = 0;
  const graphqlErrors = (body: string) => {
    const errors = (JSON.parse(body) as { errors?: unknown[] }).errors;
    return errors?.length ? `GraphQL errors: ${JSON.stringify(errors).slice(0, 300)}` : undefined;
  };
  return [
    {
      name: "capture /batch/",
      weight: 20,
      next: () => {
        const at = new Date().toISOString();
        return {
          method: "POST",
          path: "/batch/",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            api_key: target.projectToken,
            sent_at: at,
            batch: Array.from({ length: BATCH }, (_, i) => {
              const distinctId = user();
              const number = Number(distinctId.slice("soak-user-".length));
              return i === 0
                ? {
                    event: "$feature_flag_called",
                    distinct_id: distinctId,
                    timestamp: at,
                    properties: {
                      $feature_flag: `soak-${number % SEEDED_FLAGS}`,
                      $feature_flag_response: true,
                    },
                  }
                : {
                    event: EVENT_NAMES[i % EVENT_NAMES.length],
                    distinct_id: distinctId,
                    timestamp: at,
                    properties: {
                      $browser: BROWSERS[number % BROWSERS.length],
                      $current_url: "https://example.com/pricing",
                      $lib: "posthog-node",
                      ...(i === 1
                        ? {
                            $set: {
                              email: `${distinctId}@example.com`,
                              plan: number % 3 === 0 ? "pro" : "free",
                            },
                          }
                        : {}),
                    },
                  };
            }),
          }),
        };
      },
    },
    {
      name: "POST /flags/?v=2",
      weight: 20,
      next: () => {
        const distinctId = user();
        return {
          method: "POST",
          path: "/flags/?v=2",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            token: target.projectToken,
            distinct_id: distinctId,
            person_properties: { plan: pick(["pro", "free"]), email: `${distinctId}@example.com` },
          }),
        };
      },
      read: (_status, _headers, body) =>
        (JSON.parse(body) as { errorsWhileComputingFlags?: boolean }).errorsWhileComputingFlags
          ? "errorsWhileComputingFlags: true"
          : undefined,
    },
    {
      name: "GET local_evaluation (If-None-Match)",
      weight: 14,
      next: () => ({
        method: "GET",
        path: `/flags/definitions?token=${target.projectToken}&send_cohorts`,
        headers: etag ? { ...auth, "if-none-match": etag } : auth,
      }),
      read: (status, headers) => {
        if (status === 200) etag = headers.get("etag") ?? "";
        return undefined;
      },
    },
    {
      name: "GET feature_flags/ (list)",
      weight: 8,
      next: () => ({
        method: "GET",
        path: `${project}/feature_flags/?limit=${PAGE}&offset=${pick([0, PAGE])}`,
        headers: auth,
      }),
    },
    {
      name: "GET feature_flags/:id/",
      weight: 8,
      next: () => ({ method: "GET", path: `${project}/feature_flags/${pick(seeded)}/`, headers: auth }),
    },
    {
      name: "GraphQL project.featureFlags",
      weight: 8,
      next: () => ({
        method: "POST",
        path: "/graphql",
        headers: json,
        body: JSON.stringify({
          query: `query($id: ID!) { project(id: $id) { featureFlags(first: ${PAGE}) { totalCount edges { node { id databaseId key active version tags createdBy { email } } } } } }`,
          variables: { id: String(target.projectId) },
        }),
      }),
      read: (_status, _headers, body) => graphqlErrors(body),
    },
    {
      name: "PATCH feature_flags/:id/",
      weight: 6,
      next: () => {
        const i = patches++;
        return {
          method: "PATCH",
          path: `${project}/feature_flags/${seeded[i % seeded.length]}/`,
          headers: json,
          body: JSON.stringify(
            i % 2 === 0
              ? { name: `Soak flag renamed ${i}` }
              : { filters: { groups: [{ properties: [], rollout_percentage: i % 101 }] } },
          ),
        };
      },
    },
    {
      name: "POST feature_flags/ (create)",
      weight: 2,
      next: () => ({
        method: "POST",
        path: `${project}/feature_flags/`,
        headers: json,
        body: JSON.stringify(newFlag()),
      }),
      read: (_status, _headers, body) => {
        churn.push((JSON.parse(body) as { id: number }).id);
        return undefined;
      },
    },
    {
      name: "PATCH feature_flags/:id/ deleted",
      weight: 2,
      next: () => {
        const id = churn.shift();
        if (id === undefined) throw new Error("no created flag left to delete");
        return {
          method: "PATCH",
          path: `${project}/feature_flags/${id}/`,
          headers: json,
          body: JSON.stringify({ deleted: true }),
        };
      },
    },
    {
      name: "POST endpoints/:name/run/",
      weight: 12,
      maxInFlight: RUNS_IN_FLIGHT,
      next: () => {
        const i = runs++;
        // One run in four recomputes (`force_blocking`); the others may be answered from the result cache.
        const refresh = i % 4 === 0 ? "force_blocking" : "blocking";
        const byName = i % 2 === 0;
        return {
          method: "POST",
          path: `${project}/endpoints/${byName ? "soak_events_by_name" : "soak_top_browsers"}/run/`,
          headers: json,
          body: JSON.stringify(
            byName ? { refresh, variables: { event_name: pick(EVENT_NAMES) } } : { refresh },
          ),
        };
      },
    },
  ];
}
