/**
 * ClickHouse's bucket of an event (src/queries/trends/clickhouse-store.ts `widthBucket`) is
 * PostgreSQL's `width_bucket(ts, starts)`: the number of bucket starts at or before `ts`. Shown on
 * chdb over the bucket starts luxon computes (src/queries/trends/buckets.ts) for hours, days, weeks
 * and months around DST changes in zones whose changes skip midnight (São Paulo), move half an hour
 * (Lord Howe) or sit at a half-hour offset (Kolkata), and over starts no ClickHouse calendar
 * function produces (so the counting fallback answers).
 */
import { DateTime } from "luxon";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readClickHouse } from "../../../src/analytics/clickhouse/query.js";
import { Prisma } from "../../../src/generated/prisma/client.js";
import { param } from "../../../src/lib/hogql/clickhouse/params.js";
import { bucketStarts } from "../../../src/queries/trends/buckets.js";
import { widthBucket } from "../../../src/queries/trends/clickhouse-store.js";
import { startOfInterval } from "../../../src/queries/trends/date-range.js";
import type { Interval } from "../../../src/queries/trends/trends-query.schema.js";
import { chdbInstalled, openTestClickHouse, type TestClickHouse } from "../../support/clickhouse.js";
import { seeded } from "../../support/seeded-random.js";

/** PostgreSQL's `width_bucket(ts, starts)` for sorted starts. */
const expected = (ts: number, starts: DateTime[]) => starts.filter((s) => s.toMillis() <= ts).length;

describe.skipIf(!chdbInstalled)("ClickHouse buckets are PostgreSQL's width_bucket", () => {
  let clickhouse: TestClickHouse;
  beforeAll(async () => {
    clickhouse = await openTestClickHouse();
  });
  afterAll(async () => {
    await clickhouse?.close();
  });

  /** ClickHouse's buckets of `times` (ms) over `starts`. */
  async function buckets(times: number[], starts: DateTime[], interval: Interval, zone: string) {
    const ts = Prisma.sql`fromUnixTimestamp64Milli(t, 'UTC')`;
    const rows = await readClickHouse<{ b: number }>(
      clickhouse.client,
      Prisma.sql`SELECT ${widthBucket(ts, starts, interval, zone)} AS b
        FROM (SELECT arrayJoin(${param(times, "Array(Int64)")}) AS t)`,
    );
    return rows.map((row) => row.b);
  }

  const CASES: Array<{ zone: string; around: string; interval: Interval; days: number }> = [
    { zone: "America/Sao_Paulo", around: "2018-11-04", interval: "day", days: 6 },
    { zone: "America/Sao_Paulo", around: "2018-11-04", interval: "hour", days: 2 },
    { zone: "America/Sao_Paulo", around: "2018-11-04", interval: "week", days: 30 },
    { zone: "America/New_York", around: "2020-11-01", interval: "hour", days: 2 },
    { zone: "America/New_York", around: "2020-03-08", interval: "day", days: 5 },
    { zone: "America/New_York", around: "2020-03-08", interval: "month", days: 120 },
    { zone: "Australia/Lord_Howe", around: "2020-10-04", interval: "hour", days: 2 },
    { zone: "Australia/Lord_Howe", around: "2020-04-05", interval: "day", days: 5 },
    { zone: "Asia/Kolkata", around: "2020-01-01", interval: "hour", days: 2 },
    { zone: "UTC", around: "2020-01-01", interval: "minute", days: 0.1 },
  ];

  for (const [index, { zone, around, interval, days }] of CASES.entries()) {
    it(`${interval} buckets in ${zone} around ${around}`, async () => {
      const centre = DateTime.fromISO(around, { zone });
      const lower = centre.minus({ days: days / 2 });
      const upper = centre.plus({ days: days / 2 });
      const starts = bucketStarts({ lower, upper, firstBucket: startOfInterval(lower, interval), interval });
      const random = seeded(index + 1);
      const span = upper.toMillis() - lower.toMillis();
      const times = [
        ...Array.from({ length: 300 }, () =>
          Math.floor(lower.toMillis() - span * 0.1 + random() * span * 1.2),
        ),
        ...starts.flatMap((s) => [s.toMillis() - 1, s.toMillis(), s.toMillis() + 1]),
      ];
      expect(await buckets(times, starts, interval, zone)).toEqual(times.map((t) => expected(t, starts)));
    });
  }

  it("counts where the starts are no calendar's (the fallback)", async () => {
    const base = DateTime.fromISO("2020-01-01T12:34:00Z", { zone: "UTC" });
    const starts = [0, 25, 49, 80, 100].map((hours) => base.plus({ hours }));
    const times = Array.from({ length: 120 }, (_, i) => base.toMillis() + (i - 5) * 3_600_000 + 1);
    expect(await buckets(times, starts, "day", "UTC")).toEqual(times.map((t) => expected(t, starts)));
  });
});
