/**
 * Capture's event writes into ClickHouse (src/analytics/clickhouse/events.ts) on the real engine:
 * what is written reads back as sent, a resent event counts once, and what ClickHouse acknowledged
 * survives the engine's process being killed in the middle of a batch, while what it had not
 * acknowledged was answered with an error (so the SDK sends it again).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EventRow, insertEvents } from "../../src/analytics/clickhouse/events.js";
import { chdbInstalled, openTestClickHouse, type TestClickHouse } from "../support/clickhouse.js";

const PROJECT = 7;

const event = (overrides: Partial<EventRow> = {}): EventRow => ({
  uuid: randomUUID(),
  event: "$pageview",
  distinctId: "user-1",
  properties: { $current_url: "https://example.com/é", plan: "pro", nested: { a: [1, null, "x"] } },
  timestamp: new Date("2026-11-29T10:11:12.345Z"),
  personId: null,
  ...overrides,
});

describe.skipIf(!chdbInstalled)("ClickHouse event writes on chdb", () => {
  let clickhouse: TestClickHouse;
  beforeAll(async () => {
    clickhouse = await openTestClickHouse();
  });
  afterAll(async () => {
    await clickhouse?.close();
  });

  /** The project's stored events (deduplicated as reads see them), by uuid. */
  async function stored(uuids: readonly string[]) {
    const result = await clickhouse.client.query({
      query: `SELECT toString(e.uuid) AS uuid, event, distinct_id, properties, timestamp, team_id, toString(e.person_id) AS person_id
        FROM events AS e FINAL WHERE e.team_id = {project:Int64} AND e.uuid IN {uuids:Array(UUID)} ORDER BY uuid`,
      query_params: { project: PROJECT, uuids },
      format: "JSONEachRow",
    });
    return result.json<Record<string, unknown>>();
  }

  it("stores events as sent: properties as JSON text, the timestamp to the microsecond, the person", async () => {
    const person = randomUUID();
    const rows = [event(), event({ event: "signed up", distinctId: "user-2", personId: person })];
    await insertEvents(clickhouse.client, PROJECT, rows, new Date());
    const read = await stored(rows.map((row) => row.uuid));
    expect(read).toEqual(
      rows
        .map((row) => ({
          uuid: row.uuid,
          event: row.event,
          distinct_id: row.distinctId,
          properties: JSON.stringify(row.properties),
          timestamp: "2026-11-29T10:11:12.345000Z",
          team_id: PROJECT,
          person_id: row.personId,
        }))
        .sort((a, b) => a.uuid.localeCompare(b.uuid)),
    );
    expect(JSON.parse(read[0]!["properties"] as string)).toEqual(rows[0]!.properties);
  });

  it("counts an event sent twice once", async () => {
    const row = event();
    await insertEvents(clickhouse.client, PROJECT, [row], new Date());
    await insertEvents(clickhouse.client, PROJECT, [row, event({ uuid: row.uuid })], new Date());
    expect(await stored([row.uuid])).toHaveLength(1);
  });

  it("keeps every acknowledged event when the engine is killed mid-batch, and acknowledges none it did not write", async () => {
    const acknowledged = Array.from({ length: 5 }, () => Array.from({ length: 20 }, () => event()));
    for (const batch of acknowledged) await insertEvents(clickhouse.client, PROJECT, batch, new Date());

    // Inserts waiting for the server's next flush (up to 200 ms) when the process is killed.
    const inFlight = Array.from({ length: 10 }, () => Array.from({ length: 20 }, () => event()));
    const answers = inFlight.map((batch) =>
      insertEvents(clickhouse.client, PROJECT, batch, new Date()).then(
        () => "acknowledged",
        () => "failed",
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    await clickhouse.crashAndRestart();
    const outcomes = await Promise.all(answers);

    const acknowledgedUuids = [
      ...acknowledged.flat(),
      ...inFlight.filter((_, i) => outcomes[i] === "acknowledged").flat(),
    ].map((row) => row.uuid);
    expect((await stored(acknowledgedUuids)).map((row) => row["uuid"])).toEqual(
      [...acknowledgedUuids].sort(),
    );
    expect(outcomes).toContain("failed");
  });
});
