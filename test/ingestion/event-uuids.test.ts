/** The UUIDv7s capture gives events that came without one: valid v7, distinct, in the order given. */
import { validate, version } from "uuid";
import { expect, it } from "vitest";
import { eventUuids } from "../../src/ingestion/event-uuids.js";

it("gives valid, distinct UUIDv7s that sort in the order they were given, across draws", () => {
  const given: string[] = [];
  for (let draw = 0; draw < 50; draw++) {
    const next = eventUuids(100);
    for (let i = 0; i < 100; i++) given.push(next());
  }
  for (const uuid of given) expect(validate(uuid) && version(uuid)).toBe(7);
  expect(new Set(given).size).toBe(given.length);
  expect([...given].sort()).toEqual(given);
});

it("refuses to give more uuids than it drew", () => {
  const next = eventUuids(1);
  next();
  expect(() => next()).toThrow(/only 1 uuids/);
});
