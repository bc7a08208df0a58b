import { describe, expect, it } from "vitest";
import { decodeKeysetCursor, encodeKeysetCursor, isPgTimestamp } from "../../src/core/keyset-cursor.js";

describe("keyset cursors", () => {
  it("round-trip a position and its direction", () => {
    const position = ["2026-11-23 13:45:01.123456+00", "acme:é"];
    expect(decodeKeysetCursor(encodeKeysetCursor(position), 2)).toEqual({ position, reverse: false });
    expect(decodeKeysetCursor(encodeKeysetCursor(position, true), 2)).toEqual({ position, reverse: true });
  });

  it("refuse what they did not make, or what PostgreSQL cannot take", () => {
    expect(decodeKeysetCursor("garbage!", 2)).toBeNull();
    expect(decodeKeysetCursor(encodeKeysetCursor(["a"]), 2)).toBeNull();
    expect(decodeKeysetCursor(encodeKeysetCursor(["a", "b\u0000"]), 2)).toBeNull();
    expect(decodeKeysetCursor(encodeKeysetCursor(["a", "\ud800"]), 2)).toBeNull();
    expect(decodeKeysetCursor(Buffer.from('{"p":["a",1],"r":0}').toString("base64url"), 2)).toBeNull();
  });

  it("know PostgreSQL's timestamptz text", () => {
    expect(isPgTimestamp("2026-11-23 13:45:01+00")).toBe(true);
    expect(isPgTimestamp("2026-11-23 13:45:01.5-05:30")).toBe(true);
    expect(isPgTimestamp("2026-11-23T13:45:01Z")).toBe(false);
    expect(isPgTimestamp("now")).toBe(false);
  });
});
