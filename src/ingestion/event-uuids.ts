/**
 * UUIDv7s for the events of one capture request that came without a uuid (rust/capture gives such
 * events a v7 too, `RawEvent::uuid.unwrap_or_else(uuid_v7)`). The `uuid` package lays them out; the
 * randomness of a whole request is drawn at once: `uuid`'s default draws 16 bytes per call through
 * `crypto.getRandomValues`, which was 6% of a 100-event capture request's CPU (issue 7's bench).
 * Ordering is kept as `uuid`'s own v7 keeps it (RFC 9562 §6.2, method 1): within one millisecond
 * of this process, a counter that starts at a random value and counts up, so uuids sort in the order
 * they were given, across requests too.
 */
import { randomFillSync } from "node:crypto";
import { v7 } from "uuid";

/** The last millisecond and counter given (process-wide, as `uuid`'s own v7 state). */
const last = { msecs: -Infinity, seq: 0 };

/** A source of `count` UUIDv7s (one random draw); asking it for more throws. */
export function eventUuids(count: number): () => string {
  const random = randomFillSync(Buffer.allocUnsafe(count * 16));
  let given = 0;
  return () => {
    if (given >= count) throw new Error(`eventUuids: only ${count} uuids were drawn`);
    const bytes = random.subarray(given * 16, (given + 1) * 16);
    given += 1;
    const now = Date.now();
    if (now > last.msecs) {
      last.msecs = now;
      // 31 random bits to start from, as `uuid`'s `v7Sequence`: room to count up in the millisecond.
      last.seq = ((bytes[6]! & 0x7f) << 24) | (bytes[7]! << 16) | (bytes[8]! << 8) | bytes[9]!;
    } else {
      last.seq = (last.seq + 1) | 0;
      if (last.seq === 0) last.msecs += 1;
    }
    return v7({ random: bytes, msecs: last.msecs, seq: last.seq });
  };
}
