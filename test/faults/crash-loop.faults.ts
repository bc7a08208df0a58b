/**
 * Crashes under load (issue 13 item 2), on PGlite and PostgreSQL: clients write without pause
 * (flag creates and PATCHes over REST with a personal API key, capture batches to /batch/ with the
 * project token) while the real `signalbox serve` is killed with SIGKILL at random moments and
 * restarted at once, as a supervisor (systemd, Kubernetes) would. Each restart must start on its
 * first try and answer its first request. At the end, read with SQL:
 * - every acknowledged (2xx) write is stored: each flag created, in the state of its last
 *   acknowledged PATCH or of a later one the clients sent (a write in flight at the kill may have
 *   committed unanswered), and each event of each acknowledged batch, by uuid;
 * - no record is half written, by what the services promise to write in one transaction: a flag
 *   has its one `created` entry, one `updated` entry per version bump, the last naming the stored
 *   name, its tag and its usage dashboard, and its name and filters come from the same PATCH; an
 *   event's person exists and owns its distinct id, and its name is in the event catalogue.
 *
 * A server is killed after a drawn number of acknowledged writes since it started, then a drawn
 * delay, from a seeded generator: the seed is printed (FAULTS_SEED replays the draws; the moments
 * also depend on the machine's speed), as are the kills per backend (FAULTS_KILLS, default KILLS)
 * and a summary line per backend.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ServeProcess } from "../support/cli.js";
import { seeded } from "../support/seeded-random.js";
import type { Backend } from "../support/server.js";
import { postgresOrSkip, prepareSpawnedBackend, type SpawnedBackend } from "../support/spawned-backend.js";

/**
 * Kills per backend. A restart costs a process start and a database open (seconds on an idle
 * machine, several times that on a loaded one); 6 keeps a backend near a minute on an idle one.
 */
const KILLS = Number(process.env["FAULTS_KILLS"] ?? 6);
const SEED = Number(process.env["FAULTS_SEED"] ?? Math.floor(Math.random() * 2 ** 32));
/**
 * When a server is killed: after 1 to this many acknowledged writes since it started, then after a
 * delay drawn in [0, MAX_KILL_DELAY_MS) ms.
 */
const MAX_WRITES_BEFORE_KILL = 12;
const MAX_KILL_DELAY_MS = 300;
/** Concurrent clients of each kind. */
const FLAG_WRITERS = 2;
const CAPTURE_WRITERS = 2;
/** Events per capture batch, and distinct ids per capture client. */
const BATCH_SIZE = 10;
const DISTINCT_IDS = 5;

/** One flag a client owns: what it sent, in order, and how far the server acknowledged. */
interface FlagRecord {
  key: string;
  id: number | null;
  /** The number of the last PATCH sent (written into `name`); 0 while only the create was sent. */
  sent: number;
  /** The number of the last write answered 2xx (0: the create); -1 while the create is unanswered. */
  acknowledged: number;
}

/** What the clients sent and what the server acknowledged. */
interface Ledger {
  flags: FlagRecord[];
  acknowledgedEvents: string[];
  /** Acknowledged writes: flag creates and PATCHes answered 2xx, and capture batches answered 200. */
  acknowledgedWrites: number;
  unacknowledgedWrites: number;
  /** Answers that were neither 2xx nor a dropped connection: none may come. */
  errorAnswers: string[];
}

/** A flag's name carries the PATCH that wrote it: `<key> #<n>`. */
const flagName = (key: string, n: number) => `${key} #${n}`;
/** The rollout percentage PATCH number `n` writes (0: the create's). */
const rolloutOf = (n: number) => (n * 7) % 101;
const filtersOf = (n: number) => ({ groups: [{ properties: [], rollout_percentage: rolloutOf(n) }] });

/** How a pending `serving()` is settled. */
interface Settle {
  resolve: (url: string) => void;
  reject: (error: unknown) => void;
}

/**
 * The supervisor: one server at a time on the backend; `serving()` is the base URL of the current
 * one once it has answered its first request; `crashAndRestart` kills it and starts the next.
 */
class Supervisor {
  private current: ServeProcess | null = null;
  private ready: Promise<string> = Promise.reject(new Error("not started"));
  kills = 0;
  /** From each SIGKILL to the new server's first answer, in ms. */
  readonly restartMs: number[] = [];

  constructor(private readonly backend: SpawnedBackend) {
    this.ready.catch(() => {});
  }

  /** The current server's base URL once it serves; rejects when a restart failed. */
  serving(): Promise<string> {
    return this.ready;
  }

  /** Starts a server and checks that it answers its first request; the clients wait for that. */
  start(): Promise<void> {
    return this.launch(this.pending());
  }

  /** SIGKILL, as the OOM killer or `kill -9`; then, at once, a new server. */
  async crashAndRestart(): Promise<void> {
    const settle = this.pending(); // clients whose request dies wait for the next server
    const server = this.current!;
    this.current = null;
    const killedAt = performance.now();
    server.child.kill("SIGKILL");
    expect(await server.exited).toBeNull();
    this.kills++;
    await this.launch(settle);
    this.restartMs.push(Math.round(performance.now() - killedAt));
  }

  /** Makes `serving()` wait for the next server; returns how to settle it. */
  private pending(): Settle {
    let settle!: Settle;
    this.ready = new Promise<string>((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.ready.catch(() => {});
    return settle;
  }

  private async launch(settle: Settle): Promise<void> {
    try {
      const server = this.backend.serve();
      this.current = server;
      void server.exited.then((code) => {
        if (this.current === server) settle.reject(new Error(`the server exited by itself (${code})`));
      });
      const url = `http://127.0.0.1:${await server.listening}`;
      // The first request to the new server must succeed: no retry.
      const first = await fetch(`${url}/api/projects/${this.backend.projectId}/feature_flags/?limit=1`, {
        headers: { authorization: `Bearer ${this.backend.key}` },
      });
      if (first.status !== 200) throw new Error(`first request after start answered ${first.status}`);
      settle.resolve(url);
    } catch (error) {
      settle.reject(error);
      throw error;
    }
  }

  /** Kills the current server, if any (a failed test must not leave it running). */
  abandon(): void {
    this.current?.child.kill("SIGKILL");
    this.current = null;
  }

  /** SIGTERM to the last server: it must stop cleanly (exit 0). */
  async stop(): Promise<void> {
    const server = this.current!;
    this.current = null;
    server.child.kill("SIGTERM");
    expect(await server.exited, server.output()).toBe(0);
  }
}

/** Sends one write; its answer's body when acknowledged (2xx), null when the connection died (a kill). */
async function send(
  supervisor: Supervisor,
  ledger: Ledger,
  path: string,
  init: { method: string; headers: Record<string, string>; body: string },
): Promise<string | null> {
  const url = await supervisor.serving();
  let status: number;
  let text: string;
  try {
    const response = await fetch(`${url}${path}`, init);
    status = response.status;
    text = await response.text();
  } catch {
    ledger.unacknowledgedWrites++;
    return null;
  }
  if (status >= 300) {
    ledger.errorAnswers.push(`${init.method} ${path}: ${status} ${text}`);
    return null;
  }
  ledger.acknowledgedWrites++;
  return text;
}

/** A client creating flags and PATCHing the ones it owns, until `stopped()`. */
async function flagWriter(
  backend: SpawnedBackend,
  supervisor: Supervisor,
  ledger: Ledger,
  writer: number,
  random: () => number,
  stopped: () => boolean,
): Promise<void> {
  const headers = { authorization: `Bearer ${backend.key}`, "content-type": "application/json" };
  const base = `/api/projects/${backend.projectId}/feature_flags/`;
  const mine: FlagRecord[] = [];
  for (let n = 0; !stopped(); n++) {
    const created = mine.filter((flag) => flag.id !== null);
    if (created.length === 0 || random() < 0.35) {
      const flag: FlagRecord = { key: `crash-${writer}-${n}`, id: null, sent: 0, acknowledged: -1 };
      mine.push(flag);
      ledger.flags.push(flag);
      const body = {
        key: flag.key,
        name: flagName(flag.key, 0),
        filters: filtersOf(0),
        tags: [`writer-${writer}`],
      };
      const response = await send(supervisor, ledger, base, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      if (response !== null) {
        flag.id = (JSON.parse(response) as { id: number }).id;
        flag.acknowledged = 0;
      }
    } else {
      const flag = created[Math.floor(random() * created.length)]!;
      const patch = ++flag.sent;
      const response = await send(supervisor, ledger, `${base}${flag.id}/`, {
        method: "PATCH",
        headers,
        body: JSON.stringify({ name: flagName(flag.key, patch), filters: filtersOf(patch) }),
      });
      if (response !== null) flag.acknowledged = patch;
    }
  }
}

/** A client sending capture batches as posthog-js does (`/batch/`, the project token), until `stopped()`. */
async function captureWriter(
  backend: SpawnedBackend,
  supervisor: Supervisor,
  ledger: Ledger,
  writer: number,
  random: () => number,
  stopped: () => boolean,
): Promise<void> {
  while (!stopped()) {
    const batch = Array.from({ length: BATCH_SIZE }, (_, i) => {
      const distinctId = `crash-user-${writer}-${Math.floor(random() * DISTINCT_IDS)}`;
      return {
        uuid: randomUUID(),
        event: i === 0 ? "$pageview" : `crash event ${Math.floor(random() * 3)}`,
        distinct_id: distinctId,
        properties: { writer, step: i, $set: { last_step: i } },
        timestamp: new Date().toISOString(),
      };
    });
    const response = await send(supervisor, ledger, "/batch/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: backend.token, batch }),
    });
    if (response !== null) ledger.acknowledgedEvents.push(...batch.map((event) => event.uuid));
  }
}

interface StoredFlag {
  id: number;
  key: string;
  name: string;
  version: number;
  rollout: number | null;
  created_entries: number;
  updated_entries: number;
  last_name_logged: boolean;
  tags: string[] | null;
  dashboard_tiles: number | null;
}

/** Every flag of the project with what its one-transaction writes promise beside it. */
const FLAGS_SQL = `SELECT f.id, f.key, f.name, f.version,
    (f.filters->'groups'->0->>'rollout_percentage')::int AS rollout,
    (SELECT count(*)::int FROM activity_logs a WHERE a.project_id = f.project_id AND a.scope = 'FeatureFlag'
      AND a.item_id = f.id::text AND a.activity = 'created') AS created_entries,
    (SELECT count(*)::int FROM activity_logs a WHERE a.project_id = f.project_id AND a.scope = 'FeatureFlag'
      AND a.item_id = f.id::text AND a.activity = 'updated') AS updated_entries,
    (f.version = 1 OR EXISTS (SELECT 1 FROM activity_logs a WHERE a.project_id = f.project_id
      AND a.scope = 'FeatureFlag' AND a.item_id = f.id::text AND a.activity = 'updated'
      AND a.detail->'changes' @> jsonb_build_array(jsonb_build_object('field', 'name', 'after', f.name)))) AS last_name_logged,
    (SELECT array_agg(t.name) FROM feature_flag_tags ft JOIN tags t ON t.id = ft.tag_id
      WHERE ft.feature_flag_id = f.id) AS tags,
    (SELECT count(*)::int FROM dashboards d JOIN dashboard_tiles dt ON dt.dashboard_id = d.id
      WHERE d.id = f.usage_dashboard_id) AS dashboard_tiles
  FROM feature_flags f WHERE f.project_id = $1`;

/** Events whose person or distinct id is missing, or whose name is not in the catalogue. */
const HALF_WRITTEN_EVENTS_SQL = `SELECT e.uuid::text AS uuid, e.event, e.distinct_id,
    NOT EXISTS (SELECT 1 FROM persons p WHERE p.project_id = e.project_id AND p.uuid = e.person_id) AS no_person,
    NOT EXISTS (SELECT 1 FROM person_distinct_ids d JOIN persons p ON p.project_id = d.project_id AND p.id = d.person_id
      WHERE d.project_id = e.project_id AND d.distinct_id = e.distinct_id AND p.uuid = e.person_id) AS distinct_id_elsewhere,
    NOT EXISTS (SELECT 1 FROM event_definitions ed WHERE ed.project_id = e.project_id AND ed.name = e.event) AS not_in_catalogue
  FROM events e WHERE e.project_id = $1 AND (
    NOT EXISTS (SELECT 1 FROM persons p WHERE p.project_id = e.project_id AND p.uuid = e.person_id)
    OR NOT EXISTS (SELECT 1 FROM person_distinct_ids d JOIN persons p ON p.project_id = d.project_id AND p.id = d.person_id
      WHERE d.project_id = e.project_id AND d.distinct_id = e.distinct_id AND p.uuid = e.person_id)
    OR NOT EXISTS (SELECT 1 FROM event_definitions ed WHERE ed.project_id = e.project_id AND ed.name = e.event))`;

/** The median of `values` (the lower middle one for an even count). */
function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? Number.NaN;
}

/** Runs the write loop with `KILLS` kills on `backend` and checks what was stored. */
async function crashLoop(backend: SpawnedBackend, seed: number): Promise<void> {
  const random = seeded(seed);
  const supervisor = new Supervisor(backend);
  const ledger: Ledger = {
    flags: [],
    acknowledgedEvents: [],
    acknowledgedWrites: 0,
    unacknowledgedWrites: 0,
    errorAnswers: [],
  };
  await supervisor.start();
  let stopped = false;
  const isStopped = () => stopped;
  // A client that fails stops the others and the kills; Promise.all reports its error.
  const client = (work: Promise<void>) =>
    work.catch((error) => {
      stopped = true;
      throw error;
    });
  const clients = [
    ...Array.from({ length: FLAG_WRITERS }, (_, i) =>
      client(flagWriter(backend, supervisor, ledger, i, seeded(seed + 1 + i), isStopped)),
    ),
    ...Array.from({ length: CAPTURE_WRITERS }, (_, i) =>
      client(captureWriter(backend, supervisor, ledger, i, seeded(seed + 101 + i), isStopped)),
    ),
  ];
  const crashes = (async () => {
    try {
      for (let kill = 0; kill <= KILLS; kill++) {
        // The moment: after a drawn number of acknowledged writes on this server (so each server
        // takes writes however slow the machine), then a drawn delay (so it falls mid-request).
        const target = ledger.acknowledgedWrites + 1 + Math.floor(random() * MAX_WRITES_BEFORE_KILL);
        while (ledger.acknowledgedWrites < target && !stopped) await sleep(5);
        if (stopped) break; // a client failed: its error fails the test
        if (kill === KILLS) break; // the last server stops with SIGTERM
        await sleep(Math.floor(random() * MAX_KILL_DELAY_MS));
        await supervisor.crashAndRestart();
      }
    } finally {
      stopped = true;
    }
  })();
  try {
    await Promise.all([crashes, ...clients]);
    await supervisor.stop();
  } finally {
    stopped = true;
    supervisor.abandon();
  }

  const { flags, missingEvents, halfWrittenEvents } = await backend.withSql(async (query) => ({
    flags: await query<StoredFlag>(FLAGS_SQL, [backend.projectId]),
    missingEvents: await query<{ uuid: string }>(
      `SELECT u AS uuid FROM unnest($2::uuid[]) AS u
        WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.project_id = $1 AND e.uuid = u)`,
      [backend.projectId, ledger.acknowledgedEvents],
    ),
    halfWrittenEvents: await query(HALF_WRITTEN_EVENTS_SQL, [backend.projectId]),
  }));

  const stored = new Map(flags.map((flag) => [flag.key, flag]));
  const acknowledgedFlags = ledger.flags.filter((flag) => flag.acknowledged >= 0);
  const lost: string[] = [];
  for (const flag of acknowledgedFlags) {
    const row = stored.get(flag.key);
    if (!row) {
      lost.push(`flag ${flag.key} (created, acknowledged) is missing`);
      continue;
    }
    const written = Number(row.name.slice(row.name.lastIndexOf("#") + 1));
    if (!(written >= flag.acknowledged && written <= flag.sent))
      lost.push(
        `flag ${flag.key}: stored PATCH #${written}, acknowledged #${flag.acknowledged}, sent #${flag.sent}`,
      );
  }
  for (const event of missingEvents) lost.push(`event ${event.uuid} (acknowledged) is missing`);

  const halfWritten: string[] = [];
  const sentKeys = new Map(ledger.flags.map((flag) => [flag.key, flag]));
  for (const row of flags) {
    const sent = sentKeys.get(row.key);
    const written = Number(row.name.slice(row.name.lastIndexOf("#") + 1));
    const problems = [
      !sent && "no client sent it",
      row.id !== sent?.id && sent?.id !== null && `id ${row.id}, acknowledged as ${sent?.id}`,
      row.rollout !== rolloutOf(written) && `rollout ${row.rollout} is not PATCH #${written}'s`,
      row.created_entries !== 1 && `${row.created_entries} created entries`,
      row.updated_entries !== row.version - 1 &&
        `version ${row.version} with ${row.updated_entries} updated entries`,
      !row.last_name_logged && `no updated entry names ${row.name}`,
      sent &&
        JSON.stringify(row.tags) !== JSON.stringify([`writer-${sent.key.split("-")[1]}`]) &&
        `tags ${row.tags}`,
      !row.dashboard_tiles && "no usage dashboard tiles",
    ].filter(Boolean);
    if (problems.length) halfWritten.push(`flag ${row.key}: ${problems.join("; ")}`);
  }
  for (const event of halfWrittenEvents) halfWritten.push(`event ${JSON.stringify(event)}`);

  const updates = acknowledgedFlags.reduce((sum, flag) => sum + Math.max(0, flag.acknowledged), 0);
  console.log(
    `faults [${backend.backend}] seed=${seed}: kills survived ${supervisor.kills}/${KILLS}, ` +
      `acknowledged writes ${ledger.acknowledgedWrites} (flag creates ${acknowledgedFlags.length}, ` +
      `flag PATCHes ${updates}, capture batches ${ledger.acknowledgedEvents.length / BATCH_SIZE} = ` +
      `${ledger.acknowledgedEvents.length} events), unacknowledged ${ledger.unacknowledgedWrites}, ` +
      `acknowledged writes lost ${lost.length}, half-written records ${halfWritten.length}; ` +
      `SIGKILL to first answer: ${median(supervisor.restartMs)} ms median, ${Math.max(...supervisor.restartMs)} ms max`,
  );
  expect(ledger.errorAnswers).toEqual([]);
  expect(supervisor.kills).toBe(KILLS);
  expect(lost).toEqual([]);
  expect(halfWritten).toEqual([]);
  // The loop wrote, through every kind of write.
  expect(acknowledgedFlags.length).toBeGreaterThan(0);
  expect(updates).toBeGreaterThan(0);
  expect(ledger.acknowledgedEvents.length).toBeGreaterThan(0);
}

const withPostgres = await postgresOrSkip("the crash loop on PostgreSQL");

describe.each<Backend>(["pglite", "postgres"])("SIGKILL under load [%s]", (backendName) => {
  const skip = backendName === "postgres" && !withPostgres;
  let backend: SpawnedBackend | undefined;
  beforeAll(async () => {
    if (!skip) backend = await prepareSpawnedBackend(backendName, inject("faultsServerMain"));
  });
  afterAll(async () => {
    await backend?.remove();
  });

  it.skipIf(skip)(`survives ${KILLS} kills with every acknowledged write stored whole`, async () => {
    console.log(`faults [${backendName}]: seed ${SEED} (FAULTS_SEED=${SEED} replays it), ${KILLS} kills`);
    await crashLoop(backend!, SEED);
  });
});
