/**
 * Clock-skew correction and bounds, with the vectors of PostHog's own tests
 * (rust/common/types/src/timestamp.rs `tests`, whose `now` is 2023-01-01T12:00:00Z).
 */
import { describe, expect, it } from "vitest";
import { parseEventTimestamp, requestSentAt } from "../../../src/ingestion/rules/timestamp.js";

const NOW = new Date("2023-01-01T12:00:00Z");
const at = (iso: string) => new Date(iso).getTime();
const parse = (input: Partial<Parameters<typeof parseEventTimestamp>[0]>) =>
  parseEventTimestamp({
    timestamp: undefined,
    offset: undefined,
    sentAt: null,
    ignoreSentAt: false,
    now: NOW,
    ...input,
  }).getTime();

describe("parseEventTimestamp", () => {
  it("takes the timestamp as is without sent_at", () => {
    expect(parse({ timestamp: "2023-01-01T10:00:00Z" })).toBe(at("2023-01-01T10:00:00Z"));
  });

  it("removes the client's skew with sent_at: now + (timestamp - sent_at)", () => {
    const sentAt = new Date("2023-01-01T11:00:00Z");
    expect(parse({ timestamp: "2023-01-01T10:00:00Z", sentAt })).toBe(at("2023-01-01T11:00:00Z"));
  });

  it("ignores sent_at when $ignore_sent_at is set", () => {
    const sentAt = new Date("2023-01-01T11:00:00Z");
    expect(parse({ timestamp: "2023-01-01T10:00:00Z", sentAt, ignoreSentAt: true })).toBe(
      at("2023-01-01T10:00:00Z"),
    );
  });

  it("lets offset win: now - offset", () => {
    expect(parse({ timestamp: "2020-01-01T00:00:00Z", offset: 3_600_000 })).toBe(at("2023-01-01T11:00:00Z"));
  });

  it("is now without timestamp or offset, and for an unparseable timestamp", () => {
    expect(parse({})).toBe(NOW.getTime());
    expect(parse({ timestamp: "not a date" })).toBe(NOW.getTime());
    expect(parse({ timestamp: "9".repeat(30) })).toBe(NOW.getTime());
  });

  it("clamps more than 23 hours in the future to now, and keeps 22 hours", () => {
    expect(parse({ timestamp: "2023-01-02T12:00:00Z" })).toBe(NOW.getTime());
    expect(parse({ timestamp: "2023-01-02T10:00:00Z" })).toBe(at("2023-01-02T10:00:00Z"));
  });
});

describe("the timestamp formats clients send", () => {
  it("reads RFC 3339, +hh zones, civil date-times as UTC, numeric timestamps and RFC 2822", () => {
    const read = (timestamp: string) => new Date(parse({ timestamp })).toISOString();
    expect(read("2022-09-17T14:05:04.805+03")).toBe("2022-09-17T11:05:04.805Z");
    expect(read("2022-12-31T12:00:00")).toBe("2022-12-31T12:00:00.000Z");
    expect(read("2022-12-31 12:00:00")).toBe("2022-12-31T12:00:00.000Z");
    expect(read("2022-12-31")).toBe("2022-12-31T00:00:00.000Z");
    expect(read("1672574400")).toBe("2023-01-01T12:00:00.000Z");
    expect(read("1672574400000")).toBe("2023-01-01T12:00:00.000Z");
    expect(read("Tue, 1 Jul 2003 10:52:37 +0200")).toBe("2003-07-01T08:52:37.000Z");
  });
});

describe("requestSentAt", () => {
  it("prefers the batch's sent_at, then the query's `_` in ms after 2020", () => {
    expect(requestSentAt("2023-01-01T11:00:00Z", "1672574400000")?.toISOString()).toBe(
      "2023-01-01T11:00:00.000Z",
    );
    expect(requestSentAt(undefined, "1672574400000")?.toISOString()).toBe("2023-01-01T12:00:00.000Z");
    expect(requestSentAt(undefined, "1672574400")).toBeNull();
    expect(requestSentAt(undefined, null)).toBeNull();
  });
});
