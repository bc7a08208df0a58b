/**
 * The database's change feed: what migrations `change_feed`, `change_events`,
 * `change_feed_access_once` and `change_feed_access_names` announce with `pg_notify` on channel
 * `signalbox_changes` (a project's revision moved; an object changed, with the activity entry it
 * wrote; a key, user or project that authenticates requests changed), delivered to this process's
 * subscribers, each change once. NOTIFY is transactional, so
 * subscribers hear of committed writes only, in commit order, and never of a rolled-back one.
 * Per-process caches (core/project-revisions.ts, core/auth/actor-cache.ts) are correct by
 * construction on it:
 * - **This process's writes** are heard before the write's COMMIT (or autocommitted statement)
 *   returns to its caller: every pooled connection LISTENs (on the embedded database, its one
 *   session; ./embedded/pglite-host.ts), and PostgreSQL sends a session its own
 *   notifications before the COMMIT's ReadyForQuery, which node-postgres reads first. So a request
 *   that follows a write, in the same process, never reads a cache entry older than the write.
 * - **Other processes' writes** (another server on the same PostgreSQL, the CLI, psql) arrive on a
 *   dedicated listening connection within the network's latency of their COMMIT.
 * - **A lost connection** loses notifications: the feed is then not `live`; subscribers hear
 *   `reset` (forget everything) when it drops and again once it listens again, and caches neither
 *   serve nor fill while it is down. The listener reconnects with back-off and TCP keep-alive. On
 *   the embedded database the one session is the only listener: the feed is live while the pool's
 *   connection is (a reopened database is heard of as a `reset`).
 */
import pg from "pg";

/** The channel migration `change_feed` notifies on. */
export const CHANGE_CHANNEL = "signalbox_changes";

/** One committed change, or the loss of the feed. */
export type DatabaseChange =
  /** `projects.revision` of `projectId` is now `revision` (it only grows). */
  | { kind: "revision"; projectId: number; revision: bigint }
  /**
   * A committed write to an object (one activity-log entry, migration `change_events`): each comes
   * after the `revision` change of its transaction. Caches keyed by revision need not listen to it.
   */
  | ObjectChange
  | AccessChange
  | SubjectChange
  /** Changes may have been missed (the listener dropped or came back): forget what was cached. */
  | { kind: "reset" };

/**
 * A key, user, membership or project's own field changed: who may do what may have changed. It names
 * what changed, one of `keyId`, `userId` (a user, or a membership of theirs) and `projectId` (a
 * project created, deleted, or its own fields, such as its token, changed); naming none, anything
 * may have (treat it as every key, user and project).
 */
export interface AccessChange {
  kind: "access";
  keyId?: string;
  userId?: number;
  projectId?: number;
}

/**
 * What flag evaluation reads of a subject changed (migration `change_feed_subjects`): a person (its
 * row, a distinct id of it, a static cohort membership, a hash key), a distinct id (added, moved or
 * removed) or a group, each as text, in `projectId`. With no project, anything may have (a table
 * was truncated). Caches of anything else ignore it.
 */
export interface SubjectChange {
  kind: "subject";
  projectId: number | null;
  /** `person:<id>`, `distinct:<distinct id>` or `group:<type index>:<key>`; null with no project. */
  named: string | null;
}

/** One object's committed change: what, where, at which revision, by whom (ids only). */
export interface ObjectChange {
  kind: "change";
  projectId: number;
  /** The project's revision the write committed at. */
  revision: bigint;
  /** The activity log's scope: `FeatureFlag`, `Experiment`, `Endpoint`, `EventDefinition`, `Cohort`, ... */
  scope: string;
  /** The object's id as the activity log holds it (an integer or a UUID as text); null for none. */
  itemId: string | null;
  /** `created`, `updated`, `deleted`, ... (the activity entry's). */
  activity: string;
  /** The user who wrote it; null for system activity. */
  userId: number | null;
  /** The flag's key for a `FeatureFlag` entry (as committed), else null. */
  flagKey: string | null;
}

/** Committed changes of the database, as this process hears them. */
export interface ChangeFeed {
  /** True while every committed change reaches subscribers; caches must not be trusted otherwise. */
  readonly live: boolean;
  /** Calls `listener` with each change, synchronously as it is heard; returns the unsubscribe function. */
  subscribe(listener: (change: DatabaseChange) => void): () => void;
}

/** Reports a listener connection's trouble (the feed recovers by itself). */
export interface ChangeFeedLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Parses a notification payload; unknown payloads count as a reset (forgetting is always safe). */
export function parseChange(payload: string | undefined): DatabaseChange {
  try {
    const body = JSON.parse(payload ?? "") as Record<string, unknown>;
    if (body["kind"] === "access") return accessChange(body);
    if (body["kind"] === "subject") return subjectChange(body);
    const projectId = body["project"];
    const revision = body["revision"];
    if (typeof projectId !== "number" || typeof revision !== "string") return { kind: "reset" };
    if (body["kind"] === "revision") return { kind: "revision", projectId, revision: BigInt(revision) };
    if (
      body["kind"] === "change" &&
      typeof body["scope"] === "string" &&
      typeof body["activity"] === "string"
    ) {
      const text = (value: unknown) => (typeof value === "string" ? value : null);
      return {
        kind: "change",
        projectId,
        revision: BigInt(revision),
        scope: body["scope"],
        itemId: text(body["item"]),
        activity: body["activity"],
        userId: typeof body["user"] === "number" ? body["user"] : null,
        flagKey: text(body["key"]),
      };
    }
  } catch {
    // falls through to a reset
  }
  return { kind: "reset" };
}

/** An `access` payload's change: what it names, when it names it as migration `change_feed_access_names` does. */
function accessChange(body: Record<string, unknown>): AccessChange {
  const { key, user, project } = body;
  if (typeof key === "string") return { kind: "access", keyId: key };
  if (typeof user === "number") return { kind: "access", userId: user };
  if (typeof project === "number") return { kind: "access", projectId: project };
  return { kind: "access" };
}

/** A `subject` payload's change (migration `change_feed_subjects`); naming nothing, anything may have changed. */
function subjectChange(body: Record<string, unknown>): SubjectChange {
  const { project } = body;
  if (typeof project === "number") {
    for (const field of ["person", "distinct", "group"]) {
      const value = body[field];
      if (typeof value === "string")
        return { kind: "subject", projectId: project, named: `${field}:${value}` };
    }
  }
  return { kind: "subject", projectId: null, named: null };
}

/** The subscriber list and liveness every implementation shares. */
class Subscribers implements ChangeFeed {
  live = false;
  private readonly listeners = new Set<(change: DatabaseChange) => void>();

  subscribe(listener: (change: DatabaseChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  deliver(change: DatabaseChange): void {
    for (const listener of this.listeners) listener(change);
  }

  setLive(live: boolean): void {
    this.live = live;
    this.deliver({ kind: "reset" });
  }
}

/**
 * Notifications remembered to drop their copies from the process's other connections: copies come
 * within the network's latency, far fewer commits than this apart.
 */
const SEEN_NOTIFICATIONS = 10_000;

/**
 * A notification listener for the feed: delivers each transaction's notification once, from the
 * first connection that hears it. On PostgreSQL every pooled connection and the dedicated one LISTEN,
 * so each notification arrives once per connection, at different moments; a payload names its
 * transaction (the revision it committed, or for `access` its id and the row's, migrations
 * change_feed_access_once and change_feed_access_names), so (notifying backend, payload) is unique
 * per transaction and change. A later copy delivered again would empty
 * the caches after requests had refilled them.
 */
function deliverOnce(feed: Subscribers): (message: pg.Notification) => void {
  const seen = new Set<string>();
  return (message) => {
    if (message.channel !== CHANGE_CHANNEL) return;
    const key = `${message.processId}:${message.payload}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (seen.size > SEEN_NOTIFICATIONS) seen.delete(seen.values().next().value!);
    feed.deliver(parseChange(message.payload));
  };
}

/** A feed on the embedded database (`embeddedChangeFeed`). */
export interface EmbeddedChangeFeed extends ChangeFeed {
  /** The pool's `onConnect` hook: the connection LISTENs, and the feed is live until it is lost. */
  listenOn(client: pg.ClientBase): Promise<void>;
  close(): void;
}

/**
 * A feed on the embedded database, whose one session is the pool's one connection: that connection
 * LISTENs, and the feed is live from then until the connection ends (the database reopened after a
 * statement past its timeout, or closed). Writes are this process's only, so nothing is missed while
 * no connection is open; a `reset` is still delivered on each change of connection.
 */
export function embeddedChangeFeed(): EmbeddedChangeFeed {
  const feed = new Subscribers();
  const onNotification = deliverOnce(feed);
  let current: pg.ClientBase | null = null;
  return Object.assign(feed, {
    listenOn: async (client: pg.ClientBase) => {
      client.on("notification", onNotification);
      const lost = () => {
        if (current !== client) return;
        current = null;
        feed.setLive(false);
      };
      client.on("error", lost);
      client.on("end", lost);
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      current = client;
      feed.setLive(true);
    },
    close: () => {
      current = null;
      feed.setLive(false);
    },
  });
}

/** The `application_name` of the dedicated listening connection (pg_stat_activity shows it). */
export const LISTENER_NAME = "signalbox change feed";

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/** A feed on PostgreSQL (`postgresChangeFeed`). */
export interface PostgresChangeFeed extends ChangeFeed {
  /**
   * The pool's `onConnect` hook: a pooled connection LISTENs before its first use, so this process
   * hears its own writes before their COMMIT returns (see the module comment).
   */
  listenOn(client: pg.ClientBase): Promise<void>;
  /**
   * Connects the dedicated listening connection (everyone's writes); resolves once it listens.
   * @throws the connection's error when it fails (the server cannot start then).
   */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A feed on the PostgreSQL at `url`; give `listenOn` to the pool as its `onConnect`, then `start`. */
export function postgresChangeFeed(url: string, log?: ChangeFeedLogger): PostgresChangeFeed {
  const feed = new Subscribers();
  const onNotification = deliverOnce(feed);

  let closed = false;
  let current: pg.Client | null = null;
  let retryMs = RECONNECT_MIN_MS;
  let timer: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: url, keepAlive: true, application_name: LISTENER_NAME });
    client.on("notification", onNotification);
    const lost = (error?: unknown) => {
      if (current !== client) return;
      current = null;
      feed.setLive(false);
      client.end().catch(() => {});
      if (closed) return;
      log?.warn(
        { err: error },
        "the change feed's PostgreSQL connection was lost; caches are off until it is back",
      );
      scheduleReconnect();
    };
    client.on("error", lost);
    client.on("end", () => lost());
    await client.connect();
    await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    current = client;
    retryMs = RECONNECT_MIN_MS;
    feed.setLive(true);
  };

  const scheduleReconnect = () => {
    timer = setTimeout(() => {
      timer = null;
      connect().catch((error: unknown) => {
        log?.warn({ err: error }, "the change feed could not reconnect to PostgreSQL; retrying");
        retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
        if (!closed) scheduleReconnect();
      });
    }, retryMs);
    timer.unref();
  };

  return Object.assign(feed, {
    listenOn: async (client: pg.ClientBase) => {
      client.on("notification", onNotification);
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    },
    start: connect,
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      const client = current;
      current = null;
      feed.setLive(false);
      await client?.end();
    },
  });
}
