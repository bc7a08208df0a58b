/**
 * Person state of a capture request (issue 7 §2): the persons its events create, update, identify
 * and merge, applied in event order, following PostHog's ingestion pipeline
 * (`nodejs/src/worker/ingestion/persons/person-event-processor.ts`, `person-merge-service.ts`,
 * `person-property-service.ts`, `person-create-service.ts`, and
 * `event-pipeline/processPersonlessStep.ts` in PostHog/posthog).
 *
 * How: one statement loads and locks the persons of every distinct id the batch names; the events
 * are applied in memory (`BatchPersons`); then a bounded number of statements writes the outcome
 * (`person-store.ts`). A batch of ordinary events for new distinct ids costs three statements, one of
 * known ids with changes two, whatever the batch size. When a concurrent request created one of the
 * same persons or distinct ids first, the batch is loaded and decided again (at most
 * `MAX_ATTEMPTS` times), so two requests for one new distinct id still make one person.
 *
 * Per event (`BatchPersons.apply`):
 * - personless (`$process_person_profile: false`): nothing is written;
 * - a merge request (`rules/merge-request.ts`): neither id has a person → one person for both
 *   (uuid from the event's `distinct_id`), identified; one has → the other id joins it; both have
 *   different persons → the other person merges into the event's person if allowed (properties of
 *   the survivor win, oldest `created_at`, `version` = max + 1), else both stay; in every case but
 *   the first, the event's properties then apply and the person is marked identified;
 * - otherwise: the distinct id's person gets the event's `$set`/`$set_once`/`$unset`, or is created.
 * A person's `version` goes up by one per event that writes it (PostHog bumps it per write), and a
 * change to frequently changing keys alone waits for the person's next write (rules/person-properties.ts).
 *
 * Events already stored keep pointing at the right person: when a person is merged away, its events
 * move to the survivor, and when a distinct id used by personless events joins a person of another
 * uuid, those events move to it (what PostHog's person overrides achieve at query time).
 * PostHog drops `$identify`, `$create_alias`, `$merge_dangerously` and `$groupidentify` events sent
 * with `$process_person_profile: false` (`invalid_event_when_process_person_profile_is_false`,
 * `normalizeEventStep`); here they are personless like any other, and whether to store them is
 * capture's decision.
 */
import { randomUUID } from "node:crypto";
import type { SqlReader } from "../db/sql-reader.js";
import type { IngestEvent, IngestTx } from "./ingest-event.js";
import type { PersonCache } from "./person-cache.js";
import {
  type LoadedPerson,
  loadPersons,
  type MovedDistinctId,
  type PersonWritePlan,
  type WorkingPerson,
  writePersonPlan,
  writesNothing,
} from "./person-store.js";
import { isMergeAllowed, type MergeRequest, mergeRequest } from "./rules/merge-request.js";
import { personUuidFor, processesPersonProfile } from "./rules/person-identity.js";
import {
  applyPropertyOperations,
  initialPropertyState,
  mergePropertyStates,
  type PropertyOperations,
  personPropertyOperations,
} from "./rules/person-properties.js";

/** How many times a batch is decided again after losing a creation race before giving up. */
const MAX_ATTEMPTS = 5;

/** The distinct ids a batch needs loaded: each event's own, and the other id of merge requests. */
export function batchDistinctIds(events: readonly IngestEvent[]): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    ids.add(event.distinctId);
    const request = processesPersonProfile(event) ? mergeRequest(event) : null;
    if (request) ids.add(request.otherDistinctId);
  }
  return [...ids];
}

/**
 * The persons of one batch, in memory, as its events change them. The loaded rows themselves are
 * never modified (a changed state is a copy, rules/person-properties.ts), so they may be shared
 * (person-cache.ts).
 */
class BatchPersons {
  private readonly persons: WorkingPerson[] = [];
  private readonly byDistinctId = new Map<string, WorkingPerson>();
  private readonly loadedDistinctIds = new Set<string>();

  constructor(
    private readonly projectId: number,
    loaded: readonly LoadedPerson[],
    /** Derived uuids a concurrent request's person already holds: new persons take a random one. */
    private readonly takenUuids: ReadonlySet<string>,
  ) {
    const byId = new Map<bigint, WorkingPerson>();
    for (const row of loaded) {
      let person = byId.get(row.id);
      if (!person) {
        person = {
          id: row.id,
          uuid: row.uuid,
          state: row.state,
          isIdentified: row.isIdentified,
          version: row.version,
          createdAt: row.createdAt,
          changed: false,
          distinctIds: new Set(),
          mergedInto: null,
        };
        byId.set(row.id, person);
        this.persons.push(person);
      }
      this.attach(person, row.distinctId);
      this.loadedDistinctIds.add(row.distinctId);
    }
  }

  /** Applies one event (see the module header). */
  apply(event: IngestEvent): void {
    if (!processesPersonProfile(event)) return;
    const ops = personPropertyOperations(event);
    const request = mergeRequest(event);
    if (request) {
      const person = this.identify(event, request, ops);
      if (person) this.update(person, ops, event, true);
      return;
    }
    const person = this.byDistinctId.get(event.distinctId);
    if (person) this.update(person, ops, event, false);
    else this.create(event.distinctId, [], ops, event, false);
  }

  /** The uuid of the person `distinctId` ends the batch with, or its derived uuid when it has none. */
  personUuidOf(distinctId: string): string {
    return this.byDistinctId.get(distinctId)?.uuid ?? personUuidFor(this.projectId, distinctId);
  }

  /** What to write (see `PersonWritePlan`). */
  plan(): PersonWritePlan {
    const survivor = (person: WorkingPerson): WorkingPerson => {
      let current = person;
      while (current.mergedInto) current = current.mergedInto;
      return current;
    };
    const newDistinctIds = [...this.byDistinctId]
      .filter(([distinctId]) => !this.loadedDistinctIds.has(distinctId))
      .map(([distinctId, person]) => ({ distinctId, person }));
    return {
      creates: this.persons.filter((p) => p.id === null && !p.mergedInto),
      newDistinctIds,
      merges: this.persons
        .filter((p) => p.id !== null && p.mergedInto)
        .map((source) => ({ source, target: survivor(source) })),
      personlessOverrides: newDistinctIds
        .map(({ distinctId, person }) => ({
          distinctId,
          derivedUuid: personUuidFor(this.projectId, distinctId),
          person,
        }))
        .filter(({ derivedUuid, person }) => derivedUuid !== person.uuid),
      updates: this.persons.filter((p) => p.id !== null && !p.mergedInto && p.changed),
    };
  }

  /**
   * A merge request (PostHog's `mergeDistinctIds`): returns the person whose properties the event
   * then updates, or null when it created that person with them already.
   */
  private identify(event: IngestEvent, request: MergeRequest, ops: PropertyOperations): WorkingPerson | null {
    const other = this.byDistinctId.get(request.otherDistinctId);
    const into = this.byDistinctId.get(request.mergeIntoDistinctId);
    if (!other && !into) {
      this.create(request.mergeIntoDistinctId, [request.otherDistinctId], ops, event, true);
      return null;
    }
    if (!other || !into) {
      const existing = (other ?? into)!;
      this.attach(existing, other ? request.mergeIntoDistinctId : request.otherDistinctId);
      return existing;
    }
    if (other !== into && isMergeAllowed(event.event, other.isIdentified))
      this.merge(into, other, ops, event);
    return into;
  }

  private create(
    primaryDistinctId: string,
    otherDistinctIds: readonly string[],
    ops: PropertyOperations,
    event: IngestEvent,
    isIdentified: boolean,
  ): void {
    const derived = personUuidFor(this.projectId, primaryDistinctId);
    const person: WorkingPerson = {
      id: null,
      uuid: this.takenUuids.has(derived) ? randomUUID() : derived,
      state: initialPropertyState(ops, event.uuid, event.timestamp.toISOString()),
      isIdentified,
      version: 0n,
      createdAt: event.timestamp,
      changed: false,
      distinctIds: new Set(),
      mergedInto: null,
    };
    this.persons.push(person);
    for (const distinctId of [primaryDistinctId, ...otherDistinctIds]) this.attach(person, distinctId);
  }

  private update(
    person: WorkingPerson,
    ops: PropertyOperations,
    event: IngestEvent,
    identifies: boolean,
  ): void {
    const { state, changed, writes } = applyPropertyOperations(person.state, ops, event.timestamp);
    if (changed) person.state = state;
    const newlyIdentified = identifies && !person.isIdentified;
    if (!writes && !newlyIdentified) return;
    person.isIdentified ||= newlyIdentified;
    person.version += 1n;
    person.changed = true;
  }

  /** PostHog's `mergePeople`: `other` goes, `into` takes its ids, properties and the event's changes. */
  private merge(
    into: WorkingPerson,
    other: WorkingPerson,
    ops: PropertyOperations,
    event: IngestEvent,
  ): void {
    const merged = mergePropertyStates(into.state, other.state);
    into.state = applyPropertyOperations(merged, ops, event.timestamp).state;
    if (other.createdAt < into.createdAt) into.createdAt = other.createdAt;
    into.isIdentified = true;
    into.version = (into.version > other.version ? into.version : other.version) + 1n;
    into.changed = true;
    for (const distinctId of other.distinctIds) this.attach(into, distinctId);
    other.distinctIds.clear();
    other.mergedInto = into;
  }

  private attach(person: WorkingPerson, distinctId: string): void {
    this.byDistinctId.get(distinctId)?.distinctIds.delete(distinctId);
    person.distinctIds.add(distinctId);
    this.byDistinctId.set(distinctId, person);
  }
}

/**
 * Applies the person side of `events` (one capture request, in order) to project `projectId`
 * inside the request's transaction `tx`, and returns the uuid of the person each event belongs to
 * at the end of the batch, by index (a personless event of an id without a person gets the id's
 * derived uuid; no row is written for it). `onWritten` is told what was written: the plan and the
 * distinct ids its merges moved (what the ClickHouse store mirrors, src/analytics/clickhouse/persons.ts).
 * Throws when concurrent requests kept winning the creation race `MAX_ATTEMPTS` times, or on a
 * database error (the caller's transaction then rolls back).
 */
export async function applyPersonState(
  tx: IngestTx,
  projectId: number,
  events: readonly IngestEvent[],
  onWritten: (plan: PersonWritePlan, moved: readonly MovedDistinctId[]) => void = () => {},
): Promise<string[]> {
  const distinctIds = batchDistinctIds(events);
  const takenUuids = new Set<string>();
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const loaded = await loadPersons(tx, projectId, distinctIds, { locked: true });
    const batch = new BatchPersons(projectId, loaded, takenUuids);
    for (const event of events) batch.apply(event);
    const plan = batch.plan();
    const outcome = await writePersonPlan(tx, projectId, plan);
    if (outcome.written) {
      onWritten(plan, outcome.moved);
      return events.map((event) => batch.personUuidOf(event.distinctId));
    }
    for (const uuid of outcome.conflictingUuids) takenUuids.add(uuid);
  }
  throw new Error(
    `person state: creation kept conflicting with concurrent requests (${MAX_ATTEMPTS} attempts)`,
  );
}

/** A distinct id of a batch with the person it had, as `steadyPersonState` read them. */
export interface PersonRead {
  distinctId: string;
  /** The person's row id. */
  personId: bigint;
  /** The person's `version` when read. */
  version: bigint;
}

/** The person side of a batch in the steady state: nothing to write (see `steadyPersonState`). */
export interface SteadyPersonState {
  /** The uuid of the person each event belongs to, by index. */
  personUuids: string[];
  /** What the decision rests on: every distinct id of the batch with its person, as read. */
  read: PersonRead[];
}

/**
 * Decides the person side of `events` (one capture request, in order) without a transaction, for
 * capture's steady state: when every distinct id the batch names already has a person and its
 * events write nothing (no person created, updated, identified or merged, no id joining a person),
 * answers the person uuid of each event and what the decision read; otherwise null (the batch then
 * goes through `applyPersonState` in a transaction). The persons are those `cache` keeps, else one
 * unlocked read (whose rows `cache` then keeps). The events are applied exactly as
 * `applyPersonState` applies them, so the decision is the one it would make on the same rows; it
 * holds as long as each distinct id still has the same person at the same `version` (every person
 * write moves `version`, and an id leaves a person only when that person is merged away): the
 * caller's write must check that (ingestion.queries.ts `insertEventsIfPersonsUnchanged`).
 */
export async function steadyPersonState(
  db: SqlReader,
  projectId: number,
  events: readonly IngestEvent[],
  cache: PersonCache,
): Promise<SteadyPersonState | null> {
  const distinctIds = batchDistinctIds(events);
  let loaded = cache.get(projectId, distinctIds);
  if (!loaded) {
    loaded = await loadPersons(db, projectId, distinctIds, { locked: false });
    cache.remember(projectId, loaded);
    // One row per distinct id that has a person: fewer means a new id, which creates or derives one.
    if (loaded.length !== distinctIds.length) return null;
  }
  const batch = new BatchPersons(projectId, loaded, new Set());
  for (const event of events) batch.apply(event);
  if (!writesNothing(batch.plan())) return null;
  return {
    personUuids: events.map((event) => batch.personUuidOf(event.distinctId)),
    read: loaded.map((row) => ({ distinctId: row.distinctId, personId: row.id, version: row.version })),
  };
}
