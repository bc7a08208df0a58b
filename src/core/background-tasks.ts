/**
 * Work the server does on an interval beside its requests (a roll-up, a refresh), declared by the
 * domains as `BackgroundTask`s and run by `startBackgroundTask`:
 * - single-flight in the process: a tick while a run is in progress is skipped, never queued;
 * - `runNow()` for on-demand runs (tests, an operator): it waits for a run in progress and then runs
 *   again, so it always sees what was committed before it was called;
 * - `stop()` clears the timer and waits for a run in progress (clean shutdown: called before the
 *   database closes);
 * - the timer keeps no process alive; a failed tick is reported and the next one still runs.
 * Across processes, a task guards itself (the flag-call roll-up takes an advisory lock).
 */
import type { Config } from "../config.js";
import type { RunSqlTransaction } from "../db/sql-transaction.js";
import type { Services } from "./services.js";

/** One task the server runs every `intervalMs`. */
export interface BackgroundTask {
  /** Unique among the server's tasks, e.g. `flag-call-rollup`. */
  name: string;
  intervalMs: number;
  /** One run; what it resolves to is reported by `runNow()`. */
  run(): Promise<unknown>;
}

/** What a domain's tasks are built from: the services, the database's transactions, the configuration. */
export interface BackgroundTaskDeps {
  services: Services;
  transaction: RunSqlTransaction;
  config: Config;
}

/** A domain's background tasks (the composition root lists the modules). */
export type BackgroundTaskModule = (deps: BackgroundTaskDeps) => BackgroundTask[];

/** A started task. */
export interface RunningTask {
  readonly name: string;
  /** Runs the task now, after a run in progress; resolves to its result. @throws what the run throws. */
  runNow(): Promise<unknown>;
  /** Stops the timer and waits for a run in progress; later `runNow()` calls are refused. */
  stop(): Promise<void>;
}

/** Starts `task` on its interval; a run that fails on the timer goes to `onError`. */
export function startBackgroundTask(task: BackgroundTask, onError: (error: unknown) => void): RunningTask {
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const start = (): Promise<unknown> => {
    const run = task.run().finally(() => {
      if (running === run) running = null;
    });
    running = run;
    return run;
  };
  const timer = setInterval(() => {
    if (running === null && !stopped) start().catch(onError);
  }, task.intervalMs);
  timer.unref();
  return {
    name: task.name,
    async runNow() {
      if (stopped) throw new Error(`background task ${task.name} is stopped`);
      while (running !== null) await running.catch(() => undefined);
      return start();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      while (running !== null) await running.catch(() => undefined);
    },
  };
}
