/**
 * One table of property-filter cases, run by both translations over the same fixtures:
 * `./to-sql.test.ts` on PostgreSQL (PGlite and a server) and `./to-clickhouse.test.ts` on
 * ClickHouse (chdb). Each case is a filter tree (cohorts named, resolved to each store's ids), its
 * semantics, and the names of the fixture persons it selects; a case whose ClickHouse answer
 * differs on purpose says so in `clickhouse`, with why (the differences of
 * src/lib/property-filters/to-clickhouse.ts's module comment):
 * - `regex`: re2's `\b` is a word boundary, ARE's a backspace;
 * - `gt|gte|lt|lte`: a number property compares as a Float64, not an exact numeric;
 * - a number's text is the double's shortest form (`1e-7`), not jsonb's (`0.0000001`);
 * - `DATE_TEXTS`: a date's fraction past microseconds is truncated, not rounded.
 *
 * Hostile values (quotes, backslashes, `{p0:String}`, `%`, `_`, newlines, a 10,000-character
 * value, a key holding all of them) are in the fixtures and the filters: they are matched as
 * data, never spliced. A person of another project (alice's properties, and on ClickHouse static
 * cohort rows and events under the same ids) must never match.
 */

/** The clock of every case (relative dates and behavioral windows count back from it). */
export const NOW = new Date("2026-11-23T12:00:00Z");

/** A key holding every hostile character. */
export const HOSTILE_KEY = 'we\'ird {p1:String} \\ "key"\n';
/** A value holding every hostile character. */
export const HOSTILE_VALUE = 'it\'s "quoted" \\ back\\slash {p0:String} 100% a_b\nline2';
/** A 10,000-character value. */
export const LONG_VALUE = `${"x".repeat(10_000)}end`;

/** The fixture persons of the project, by name: their distinct ids and properties. */
export const PEOPLE = {
  alice: {
    distinctIds: ["alice", "alice-phone"],
    properties: {
      email: "alice@PostHog.com",
      age: 30,
      plan: "Pro",
      beta: true,
      signup: "2026-11-20T10:00:00Z",
      app_version: "1.2.3",
      nickname: null,
      [HOSTILE_KEY]: "yes",
    },
  },
  bob: {
    distinctIds: ["bob"],
    properties: {
      email: "bob@example.com",
      age: "25",
      plan: "free",
      beta: false,
      signup: "2026-01-15",
      app_version: "2.0.0",
      long: LONG_VALUE,
    },
  },
  carol: {
    distinctIds: ["carol", "moved"],
    properties: {
      age: 7.5,
      plan: "PRO",
      signup: "not a date",
      app_version: "v1.10.0",
      note: HOSTILE_VALUE,
      tiny: 1e-7,
      city: "ÉVORA",
    },
  },
  dave: { distinctIds: ["dave"], properties: { big: 9_007_199_254_740_992 } },
} as const;
/** A fixture person's name. */
export type Name = keyof typeof PEOPLE;

/** A cohort of the fixtures; criteria name other cohorts through `id`. */
export interface CohortFixture {
  isStatic?: boolean;
  deleted?: boolean;
  /** A static cohort's members. */
  members?: Name[];
  /** A dynamic cohort's criteria (`filters.properties`). */
  criteria?: (id: (name: CohortName) => number) => unknown;
}

const cohortFilter = (id: number, operator = "in") => ({ type: "cohort", key: "id", value: id, operator });

/** A fixture cohort's name. */
export type CohortName =
  | "static"
  | "pro"
  | "proNotStatic"
  | "gone"
  | "cycleA"
  | "cycleB"
  | "performedPricing";

/** The fixture cohorts, by name. */
export const COHORTS: Record<CohortName, CohortFixture> = {
  static: { isStatic: true, members: ["alice"] },
  pro: {
    criteria: () => ({
      type: "OR",
      values: [{ type: "AND", values: [{ type: "person", key: "plan", value: "pro" }] }],
    }),
  },
  proNotStatic: {
    criteria: (id) => ({
      type: "AND",
      values: [cohortFilter(id("pro")), cohortFilter(id("static"), "not_in")],
    }),
  },
  gone: { deleted: true, criteria: () => ({ type: "AND", values: [] }) },
  cycleA: { criteria: (id) => ({ type: "AND", values: [cohortFilter(id("cycleB"))] }) },
  cycleB: { criteria: (id) => ({ type: "AND", values: [cohortFilter(id("cycleA"))] }) },
  performedPricing: {
    criteria: () => ({ type: "AND", values: [performed({ event_filters: [pricing] })] }),
  },
};
/** A cohort id no cohort has. */
export const MISSING_COHORT = 999_999;

const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);

/** The fixture events: a uuid, the distinct id that sent it, what and when. */
export const EVENTS = [
  ...[1, 2, 3].map((days) => ({
    uuid: `00000000-0000-4000-8000-00000000000${days}`,
    distinctId: days === 3 ? "alice-phone" : "alice",
    event: "$pageview",
    timestamp: daysAgo(days),
    properties: { $current_url: "https://acme.com/pricing" },
  })),
  {
    uuid: "00000000-0000-4000-8000-000000000004",
    distinctId: "bob",
    event: "$pageview",
    timestamp: daysAgo(10),
    properties: { $current_url: "https://acme.com/" },
  },
  {
    uuid: "00000000-0000-4000-8000-000000000005",
    distinctId: "moved",
    event: "$pageview",
    timestamp: daysAgo(1),
    properties: { $current_url: "https://acme.com/docs", note: HOSTILE_VALUE },
  },
  {
    uuid: "00000000-0000-4000-8000-000000000006",
    distinctId: "dave",
    event: "purchase",
    timestamp: daysAgo(1),
    properties: {},
  },
  // A distinct id of no current person (on ClickHouse, its mapping to dave deleted): nobody's.
  {
    uuid: "00000000-0000-4000-8000-000000000007",
    distinctId: "forgotten",
    event: "$pageview",
    timestamp: daysAgo(1),
    properties: {},
  },
];

/** A tree, or a tree naming cohorts by fixture name. */
export type CaseTree = unknown | ((id: (name: CohortName) => number) => unknown);

/** One case: a tree, its semantics, and what it selects (or the error it raises). */
export interface FilterCase {
  tree: CaseTree;
  semantics?: "flags" | "query";
  /** The persons selected, sorted. */
  expected?: Name[];
  /** ClickHouse's answer where it differs on purpose (see the module comment and `why`). */
  clickhouse?: { expected: Name[]; why: string };
  /** The ValidationError code raised instead. */
  error?: string;
}

/** Cases under one title (one test on each store). */
export interface CaseGroup {
  title: string;
  cases: FilterCase[];
}

/** A tree of one person filter. */
export const one = (filter: Record<string, unknown>) => ({
  type: "AND",
  values: [{ type: "person", ...filter }],
});
const cohort =
  (name: CohortName, operator = "in") =>
  (id: (name: CohortName) => number) => ({ type: "AND", values: [cohortFilter(id(name), operator)] });
const pricing = { type: "event", key: "$current_url", value: "pricing", operator: "icontains" };
function performed(extra: Record<string, unknown> = {}) {
  return {
    type: "behavioral",
    key: "$pageview",
    value: "performed_event",
    event_type: "events",
    time_value: 7,
    time_interval: "day",
    ...extra,
  };
}
/** A tree of one behavioral criterion (`performed_event` of `$pageview` in the last 7 days, unless `extra` says otherwise). */
export const behavioral = (extra: Record<string, unknown> = {}) => ({
  type: "AND",
  values: [performed(extra)],
});

const ALL: Name[] = ["alice", "bob", "carol", "dave"];

/** Every case, by title. */
export const CASE_GROUPS: CaseGroup[] = [
  {
    title: "exact and is_not: case-insensitive text forms, lists as any of, missing matches is_not",
    cases: [
      { tree: one({ key: "plan", value: "pro" }), expected: ["alice", "carol"] },
      {
        tree: one({ key: "plan", value: ["free", "PRO"], operator: "exact" }),
        expected: ["alice", "bob", "carol"],
      },
      { tree: one({ key: "beta", value: "true" }), expected: ["alice"] },
      { tree: one({ key: "beta", value: false }), expected: ["bob"] },
      { tree: one({ key: "age", value: 30 }), expected: ["alice"] },
      { tree: one({ key: "plan", value: "pro", operator: "is_not" }), expected: ["bob", "dave"] },
      { tree: one({ key: "plan", value: ["pro", "free"], operator: "is_not" }), expected: ["dave"] },
    ],
  },
  {
    title: "exact and is_not in a query's filters: case-sensitive as HogQL's = and !=",
    cases: [
      { tree: one({ key: "plan", value: "pro" }), semantics: "query", expected: [] },
      { tree: one({ key: "plan", value: "Pro" }), semantics: "query", expected: ["alice"] },
      { tree: one({ key: "plan", value: ["free", "PRO"] }), semantics: "query", expected: ["bob", "carol"] },
      {
        tree: one({ key: "plan", value: "Pro", operator: "is_not" }),
        semantics: "query",
        expected: ["bob", "carol", "dave"],
      },
      { tree: one({ key: "beta", value: true }), semantics: "query", expected: ["alice"] },
      { tree: one({ key: "beta", value: "True" }), semantics: "query", expected: [] },
      { tree: one({ key: "age", value: 30 }), semantics: "query", expected: ["alice"] },
      { tree: one({ key: "email", value: "alice@posthog.com" }), semantics: "query", expected: [] },
    ],
  },
  {
    title: "is_set and is_not_set: a JSON null counts as not set",
    cases: [
      { tree: one({ key: "email", operator: "is_set" }), expected: ["alice", "bob"] },
      { tree: one({ key: "email", operator: "is_not_set" }), expected: ["carol", "dave"] },
      { tree: one({ key: "nickname", operator: "is_set" }), expected: [] },
    ],
  },
  {
    title: "icontains and not_icontains",
    cases: [
      { tree: one({ key: "email", value: "posthog.COM", operator: "icontains" }), expected: ["alice"] },
      {
        tree: one({ key: "email", value: ["@example", "@posthog"], operator: "icontains" }),
        expected: ["alice", "bob"],
      },
      {
        tree: one({ key: "email", value: "posthog", operator: "not_icontains" }),
        expected: ["bob", "carol", "dave"],
      },
      // Literal text: % and _ are not wildcards.
      { tree: one({ key: "email", value: "%", operator: "icontains" }), expected: [] },
      // Beyond ASCII: both lower-case Unicode (PostgreSQL under a UTF-8 collation).
      { tree: one({ key: "city", value: "évora" }), expected: ["carol"] },
      { tree: one({ key: "city", value: "vOR", operator: "icontains" }), expected: ["carol"] },
      { tree: one({ key: "city", value: "év", operator: "icontains" }), expected: ["carol"] },
    ],
  },
  {
    title: "regex and not_regex",
    cases: [
      { tree: one({ key: "email", value: "^[a-z]+@example\\.com$", operator: "regex" }), expected: ["bob"] },
      {
        tree: one({ key: "email", value: "PostHog", operator: "not_regex" }),
        expected: ["bob", "carol", "dave"],
      },
      // `.` matches a newline, and `$` is the text's end, on both.
      { tree: one({ key: "note", value: "slash.*line2$", operator: "regex" }), expected: ["carol"] },
      { tree: one({ key: "note", value: "^line2", operator: "regex" }), expected: [] },
      {
        tree: one({ key: "email", value: "\\bcom$", operator: "regex" }),
        expected: [],
        clickhouse: {
          expected: ["alice", "bob"],
          why: "re2 reads \\b as a word boundary; PostgreSQL's ARE as a backspace",
        },
      },
    ],
  },
  {
    title: "gt/gte/lt/lte: numbers numerically, strings as text (PostHog's rule)",
    cases: [
      // alice 30 (number), bob "25" (string, compared as text), carol 7.5 (number).
      { tree: one({ key: "age", value: "8", operator: "gt" }), expected: ["alice"] },
      { tree: one({ key: "age", value: "10", operator: "gt" }), expected: ["alice", "bob"] },
      { tree: one({ key: "age", value: "30", operator: "gte" }), expected: ["alice"] },
      // "25" <= "7.5" as text ("2" < "7"), as Python compares a string property.
      { tree: one({ key: "age", value: "7.5", operator: "lte" }), expected: ["bob", "carol"] },
      { tree: one({ key: "age", value: 26, operator: "lt" }), expected: ["bob", "carol"] },
      // A non-numeric value compares text forms in code-point order: "Pro" and "PRO" < "a" < "free".
      { tree: one({ key: "plan", value: "a", operator: "gt" }), expected: ["bob"] },
      { tree: one({ key: "plan", value: "a", operator: "lt" }), expected: ["alice", "carol"] },
      { tree: one({ key: "beta", value: "False", operator: "gt" }), expected: ["alice"] },
      { tree: one({ key: "beta", value: 0, operator: "gt" }), expected: ["alice"] },
      {
        tree: one({ key: "big", value: "9007199254740991.5", operator: "gt" }),
        expected: ["dave"],
        clickhouse: {
          expected: [],
          why: "9007199254740991.5 is 9007199254740992 as a Float64; PostgreSQL compares exact numerics",
        },
      },
    ],
  },
  {
    title: "date operators: relative and absolute values; unreadable dates match nothing",
    cases: [
      { tree: one({ key: "signup", value: "-7d", operator: "is_date_after" }), expected: ["alice"] },
      { tree: one({ key: "signup", value: "-7d", operator: "is_date_before" }), expected: ["bob"] },
      { tree: one({ key: "signup", value: "2026-01-15", operator: "is_date_exact" }), expected: ["bob"] },
      {
        tree: one({ key: "signup", value: "2026-11-20T12:00:00+05:00", operator: "is_date_after" }),
        expected: ["alice"],
      },
      { tree: one({ key: "signup", value: "2026-11-20", operator: "is_date_exact" }), expected: ["alice"] },
      { tree: one({ key: "age", value: "2000-01-01", operator: "is_date_after" }), expected: [] },
    ],
  },
  {
    title: "semver operators",
    cases: [
      {
        tree: one({ key: "app_version", value: "1.2.0", operator: "semver_gt" }),
        expected: ["alice", "bob", "carol"],
      },
      { tree: one({ key: "app_version", value: "1.2.3", operator: "semver_eq" }), expected: ["alice"] },
      {
        tree: one({ key: "app_version", value: "1.2.3", operator: "semver_neq" }),
        expected: ["bob", "carol"],
      },
      { tree: one({ key: "app_version", value: "1.2.0", operator: "semver_tilde" }), expected: ["alice"] },
      {
        tree: one({ key: "app_version", value: "1.0.0", operator: "semver_caret" }),
        expected: ["alice", "carol"],
      },
      {
        tree: one({ key: "app_version", value: "1.*", operator: "semver_wildcard" }),
        expected: ["alice", "carol"],
      },
      { tree: one({ key: "app_version", value: "1.9.0", operator: "semver_lt" }), expected: ["alice"] },
      { tree: one({ key: "plan", value: "1.0.0", operator: "semver_neq" }), expected: [] },
    ],
  },
  {
    title: "negation, nested groups, and empty groups",
    cases: [
      { tree: one({ key: "plan", value: "pro", negation: true }), expected: ["bob", "dave"] },
      {
        tree: {
          type: "OR",
          values: [
            {
              type: "AND",
              values: [
                { type: "person", key: "plan", value: "pro" },
                { type: "person", key: "beta", value: true },
              ],
            },
            {
              type: "AND",
              values: [
                { type: "person", key: "email", operator: "is_not_set" },
                { type: "person", key: "age", operator: "is_not_set" },
              ],
            },
          ],
        },
        expected: ["alice", "dave"],
      },
      { tree: { type: "AND", values: [] }, expected: ALL },
      { tree: { type: "OR", values: [{ type: "AND", values: [] }] }, expected: ALL },
    ],
  },
  {
    title: "cohort membership: static lists, dynamic criteria, nested cohorts, in and not_in",
    cases: [
      { tree: cohort("static"), expected: ["alice"] },
      { tree: cohort("pro"), expected: ["alice", "carol"] },
      { tree: cohort("pro", "not_in"), expected: ["bob", "dave"] },
      { tree: cohort("proNotStatic"), expected: ["carol"] },
      { tree: cohort("gone"), expected: [] },
      { tree: { type: "AND", values: [cohortFilter(MISSING_COHORT)] }, expected: [] },
      { tree: cohort("static", "not_in"), expected: ["bob", "carol", "dave"] },
    ],
  },
  {
    title: "refuses a cycle of cohorts instead of following it",
    cases: [{ tree: cohort("cycleA"), error: "cohort_cycle" }],
  },
  {
    title: "behavioral criteria: events of any of the person's distinct ids, windows, counts, event filters",
    cases: [
      { tree: behavioral(), expected: ["alice", "carol"] },
      { tree: behavioral({ time_value: 14 }), expected: ["alice", "bob", "carol"] },
      { tree: behavioral({ key: "purchase" }), expected: ["dave"] },
      { tree: behavioral({ negation: true }), expected: ["bob", "dave"] },
      { tree: behavioral({ explicit_datetime: "-30d", explicit_datetime_to: "-5d" }), expected: ["bob"] },
      {
        tree: behavioral({ value: "performed_event_multiple", operator: "gte", operator_value: 2 }),
        expected: ["alice"],
      },
      // Each event counts once (ClickHouse holds one of alice's twice: read FINAL).
      { tree: behavioral({ value: "performed_event_multiple", operator_value: 3 }), expected: ["alice"] },
      // Persons without the event are not counted, so `lt` never selects them.
      {
        tree: behavioral({ value: "performed_event_multiple", operator: "lt", operator_value: 2 }),
        expected: ["carol"],
      },
      { tree: behavioral({ event_filters: [pricing] }), expected: ["alice"] },
      {
        tree: behavioral({ event_filters: [{ type: "event", key: "note", value: HOSTILE_VALUE }] }),
        expected: ["carol"],
      },
      { tree: cohort("performedPricing"), expected: ["alice"] },
    ],
  },
  {
    title: "hostile values are data: quotes, backslashes, placeholders, wildcards, newlines, long values",
    cases: [
      { tree: one({ key: "note", value: HOSTILE_VALUE }), expected: ["carol"] },
      { tree: one({ key: "note", value: HOSTILE_VALUE }), semantics: "query", expected: ["carol"] },
      {
        tree: one({ key: "note", value: HOSTILE_VALUE, operator: "is_not" }),
        expected: ["alice", "bob", "dave"],
      },
      { tree: one({ key: "note", value: "{p0:String}", operator: "icontains" }), expected: ["carol"] },
      { tree: one({ key: "note", value: "100%", operator: "icontains" }), expected: ["carol"] },
      { tree: one({ key: "note", value: "a_b", operator: "icontains" }), expected: ["carol"] },
      { tree: one({ key: "note", value: "a%b", operator: "icontains" }), expected: [] },
      { tree: one({ key: "note", value: "\\ back\\", operator: "icontains" }), expected: ["carol"] },
      { tree: one({ key: "note", value: '"quoted" \\', operator: "icontains" }), expected: ["carol"] },
      { tree: one({ key: "note", value: "a_b\nline", operator: "icontains" }), expected: ["carol"] },
      {
        tree: one({ key: "note", value: '^it\'s "quoted" \\\\ back\\\\slash \\{p0', operator: "regex" }),
        expected: ["carol"],
      },
      { tree: one({ key: "note", value: "'; DROP TABLE person; --" }), expected: [] },
      { tree: one({ key: "long", value: LONG_VALUE }), expected: ["bob"] },
      { tree: one({ key: "long", value: `${LONG_VALUE}x` }), expected: [] },
      { tree: one({ key: "long", value: "xend", operator: "icontains" }), expected: ["bob"] },
      { tree: one({ key: HOSTILE_KEY, value: "YES" }), expected: ["alice"] },
      { tree: one({ key: HOSTILE_KEY, operator: "is_set" }), expected: ["alice"] },
      { tree: one({ key: "{p0:String}", value: "{p0:String}", operator: "is_not" }), expected: ALL },
      {
        tree: one({ key: "note", value: [HOSTILE_VALUE, LONG_VALUE, "'"], operator: "exact" }),
        expected: ["carol"],
      },
    ],
  },
  {
    title: "a number's text",
    cases: [
      {
        tree: one({ key: "tiny", value: "1e-7" }),
        expected: [],
        clickhouse: {
          expected: ["carol"],
          why: "a number's text is the double's shortest form in ClickHouse (1e-7), jsonb's in PostgreSQL (0.0000001)",
        },
      },
      {
        tree: one({ key: "tiny", value: "0.0000001" }),
        expected: ["carol"],
        clickhouse: { expected: [], why: "as above" },
      },
      { tree: one({ key: "tiny", value: "0.00000005", operator: "gt" }), expected: ["carol"] },
    ],
  },
];

/**
 * Date texts and the instant PostgreSQL's `property_timestamp` reads (null: not a date), ISO in UTC
 * to the millisecond; a third entry is ClickHouse's where it differs on purpose.
 */
export const DATE_TEXTS: Array<[text: string, instant: string | null, clickhouse?: string]> = [
  ["2026-01-15", "2026-01-15T00:00:00.000Z"],
  [" 2026-01-15 ", "2026-01-15T00:00:00.000Z"],
  ["2026-11-20T10:00:00Z", "2026-11-20T10:00:00.000Z"],
  ["2026-11-20 10:00", "2026-11-20T10:00:00.000Z"],
  ["2026-11-20T12:00:00+05:00", "2026-11-20T07:00:00.000Z"],
  ["2026-11-20T12:00:00+0530", "2026-11-20T06:30:00.000Z"],
  ["2026-11-20T12:00:00-03", "2026-11-20T15:00:00.000Z"],
  ["2026-11-20T10:00:00+15:59", "2026-11-19T18:01:00.000Z"],
  ["2026-11-20T10:00:00.123456Z", "2026-11-20T10:00:00.123Z"],
  // Past microseconds PostgreSQL rounds, ClickHouse truncates.
  ["2026-11-20T23:59:59.9999999Z", "2026-11-21T00:00:00.000Z", "2026-11-20T23:59:59.999Z"],
  ["2026-11-20T24:00:00", "2026-11-21T00:00:00.000Z"],
  ["2026-11-20T23:59:60", "2026-11-21T00:00:00.000Z"],
  ["2024-02-29", "2024-02-29T00:00:00.000Z"],
  ["1000-06-01", "1000-06-01T00:00:00.000Z"],
  ["9999-12-31T23:59:59Z", "9999-12-31T23:59:59.000Z"],
  ["0000-01-01", null],
  ["2026-02-29", null],
  ["2026-02-30", null],
  ["2026-13-01", null],
  ["2026-11-32", null],
  ["2026-11-20T25:00", null],
  ["2026-11-20T10:60", null],
  ["2026-11-20T10:00:61", null],
  ["2026-11-20T24:00:01", null],
  ["2026-11-20T10:00:00+16", null],
  ["2026-11-20T10:00:00+15:60", null],
  ["2026-11-20T10:00:00+1", null],
  ["2026-11-20Z", null],
  ["20261120", null],
  ["Nov 20 2026", null],
  ["not a date", null],
  ["", null],
];

/** A case's tree with its cohorts named by `id`. */
export function treeOf(tree: CaseTree, id: (name: CohortName) => number): unknown {
  return typeof tree === "function" ? tree(id) : tree;
}
