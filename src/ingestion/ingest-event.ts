/**
 * The contract between the stages of the ingestion pipeline (issue 7): capture parses and validates
 * a request's events into `IngestEvent`s, then, in one transaction per request, person state and
 * group state apply them (posthog plugin-server's `person-state.ts` / `group` processing) and
 * the events are stored with the person each one resolved to.
 */
import type { SqlTransaction } from "../db/sql-transaction.js";

/** One validated event of a capture request. */
export interface IngestEvent {
  /** The event's uuid: the client's, or a UUIDv7 given at capture. The idempotency key. */
  uuid: string;
  /** Event name, e.g. `$pageview`, `$identify`, `$create_alias`, `$groupidentify`. */
  event: string;
  distinctId: string;
  /** The event's `properties` object as sent (`$set`, `$set_once`, `$unset`, `$anon_distinct_id`, ... inside). */
  properties: Record<string, unknown>;
  /** `$set`, `$set_once` and `$unset` given at the top level of the event (older SDKs), as sent. */
  topLevel: {
    $set?: Record<string, unknown>;
    $set_once?: Record<string, unknown>;
    $unset?: unknown;
  };
  /** When the event happened, after `sent_at` clock-skew correction. */
  timestamp: Date;
}

/**
 * A transaction of the pipeline: every stage of one request writes through the same one, straight
 * on the driver (db/sql-transaction.ts: the statements are all hand-written SQL).
 */
export type IngestTx = SqlTransaction;
