/**
 * HogQL's relative dates (src/lib/hogql/relative-dates.ts): the shared insights grammar with this
 * call site's guards, and the SQL resolution run on PGlite in the case's session timezone, pinned
 * to the JavaScript resolver by the shared table of cases (../relative-date-cases.ts). HogQL passes
 * neither `always_truncate` nor a week start, so only the cases without options apply.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../../src/db/database.js";
import { Prisma } from "../../../src/generated/prisma/client.js";
import { parseRelativeDate, relativeDateSql } from "../../../src/lib/hogql/relative-dates.js";
import { parseRelativeDate as parseShared } from "../../../src/lib/relative-dates.js";
import { runReadOnly } from "../../../src/queries/run-sql.js";
import { openTestDatabase } from "../../support/server.js";
import { RELATIVE_DATE_CASES } from "../relative-date-cases.js";

let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ database, drop } = await openTestDatabase("pglite"));
});

afterAll(async () => {
  await database.close();
  await drop();
});

describe("HogQL's reading of relative dates", () => {
  it("takes the insights grammar, trimmed", () => {
    expect(parseRelativeDate(" -7d ")).toEqual({ count: 7, unit: "d", position: null });
    expect(parseRelativeDate("mStart")).toEqual({ count: null, unit: "m", position: "Start" });
    expect(parseRelativeDate("-1Q")).toEqual({ count: 1, unit: "Q", position: null });
    expect(parseRelativeDate("100000d")).toEqual({ count: 100_000, unit: "d", position: null });
  });

  it("refuses bare unit letters (untyped variables), counts above 100,000 and other text", () => {
    for (const text of ["d", "s", "M", "100001d", "-7S", "-7x", "2020-01-01", "yesterday"]) {
      expect(parseRelativeDate(text), text).toBeNull();
    }
  });
});

describe("HogQL's SQL resolution", () => {
  const cases = RELATIVE_DATE_CASES.filter((c) => !c.options && !c.sqlDiffers);

  /** `text` resolved in SQL from `now` in `zone`: its instant (ms) and the microseconds beyond. */
  async function resolveInSql(text: string, now: string, zone: string) {
    const sql = relativeDateSql(parseShared(text)!, Prisma.sql`${now}::timestamptz`);
    const [row] = await runReadOnly<{ ms: bigint; us: number }>(
      database.prisma,
      Prisma.sql`SELECT floor(extract(epoch from v) * 1000)::bigint AS ms,
          extract(microseconds from v)::int % 1000 AS us FROM (SELECT ${sql} AS v) AS t`,
      { timeoutMs: 10_000, timezone: zone },
    );
    return { iso: new Date(Number(row!.ms)).toISOString(), us: row!.us };
  }

  it.each(cases.map((c) => [c.text, c.zone, c.now, c.expected] as const))(
    "%s in %s at %s is %s",
    async (text, zone, now, expected) => {
      const resolved = await resolveInSql(text, now, zone);
      expect(resolved.iso).toBe(new Date(expected).toISOString());
      // PostHog's hour and day ends are .999999: the SQL keeps the microseconds JavaScript cannot.
      if (/^-?\d*[hd]End$/.test(text)) expect(resolved.us).toBe(999);
    },
  );

  it("reads a repeated wall time (DST fall-back) as its second occurrence, unlike Python", async () => {
    const resolved = await resolveInSql("-1d", "2020-11-02T06:30:00Z", "America/New_York");
    expect(resolved.iso).toBe("2020-11-01T06:30:00.000Z"); // 01:30 EST; Python's fold=0 is 01:30 EDT
  });

  it("resolves from the database's clock by default, in the session's timezone", async () => {
    const [row] = await runReadOnly<{ ok: boolean }>(
      database.prisma,
      Prisma.sql`SELECT ${relativeDateSql(parseRelativeDate("dStart")!)} = date_trunc('day', now()) AS ok`,
      { timeoutMs: 10_000, timezone: "Asia/Kolkata" },
    );
    expect(row!.ok).toBe(true);
  });
});
