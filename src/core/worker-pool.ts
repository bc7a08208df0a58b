/**
 * A pool of worker threads for CPU work whose cost a caller controls (docs/architecture.md,
 * "Untrusted work has a budget"), over piscina. The request thread only awaits.
 *
 * Guarantees:
 * - Each task runs on a worker of its own with a time budget counted from the moment a worker takes
 *   it (tasks wait their turn in a FIFO here, so waiting is never charged) and the worker's heap
 *   capped (`resourceLimits.maxOldGenerationSizeMb`). Past its time the task's worker is terminated
 *   (V8 interrupts JavaScript and WebAssembly alike); past its heap V8 ends the worker.
 * - A worker whose task broke it ends itself with `WORKER_TRAP_EXIT_CODE` (the query worker does
 *   so after a WebAssembly trap, so a trapped parser instance is never used again).
 * - A lost worker is replaced at once (piscina keeps `threads` workers); the next task runs on a
 *   fresh one. Each of the three failures answers 400 (`ValidationError`) naming the budget.
 * - At most `maxWaiting` tasks wait for a worker; past that a task is refused at once with 429
 *   (`TooManyRequestsError`), so a flood of costly work is answered, not queued without end.
 * - Workers start when the first task comes, not when the pool is made (services built only to
 *   list routes never start threads), and each answers `WORKER_WARM_UP` before any task is timed,
 *   so loading the worker's modules is not charged to a task.
 *
 * The worker module may be TypeScript (tests and `tsx` development): the workers then load tsx.
 */
import { readlinkSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import { TooManyRequestsError, ValidationError } from "./errors.js";

/** The exit code of a worker that ended itself because its task broke it. */
export const WORKER_TRAP_EXIT_CODE = 70;

/** The task each new worker is first handed, which it answers once ready (with anything). */
export const WORKER_WARM_UP = "warm-up";

/** How a pool is built. */
export interface WorkerPoolOptions {
  /** The worker module, whose default export takes a task and returns (or resolves to) its result. */
  module: URL;
  /** Worker threads. */
  threads: number;
  /** Longest a task may run, in ms. */
  timeoutMs: number;
  /** A worker's heap (V8 old generation), in MB. */
  maxMemoryMb: number;
  /** Most tasks waiting for a worker at once; the next is refused (429). */
  maxWaiting: number;
  /** What a task does, for refusals: "Processing the query" → "Processing the query took longer than …". */
  subject: string;
}

/** A pool of workers (see the module comment). */
export interface WorkerPool<Task, Result> {
  /**
   * Runs `task` on a worker.
   * @throws ValidationError `max_time` (past the time budget), `max_memory` (past the heap),
   *   `too_complex` (the worker ended itself); TooManyRequestsError (429) when `maxWaiting` tasks
   *   already wait; the worker's own errors as piscina rethrows them.
   */
  run(task: Task): Promise<Result>;
  /** Stops every worker (tasks still running are abandoned); later `run`s fail. */
  close(): Promise<void>;
}

/**
 * Lowers the calling thread's CPU priority to nice `niceness` (0 normal, 19 lowest), for a worker
 * module to call as it loads: untrusted work then yields the cores to the request thread and the
 * embedded database's thread when they are contended (on a 2-core machine a hostile query's parse
 * otherwise takes a core from serving), and still has every idle core. On Linux a thread's nice
 * value is its own (`/proc/thread-self` names the thread's id, which `setpriority` takes); raising it
 * needs no privilege. Returns whether it was applied (false elsewhere; nothing changes then).
 */
export function lowerThreadPriority(niceness: number): boolean {
  try {
    const threadId = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(threadId) || threadId <= 0) return false;
    os.setPriority(threadId, niceness);
    return true;
  } catch {
    return false;
  }
}

/** The options piscina's workers start with: tsx's loader when the module is TypeScript. */
function execArgv(module: URL): string[] | undefined {
  if (!module.pathname.endsWith(".ts")) return undefined;
  return [...process.execArgv, "--import", import.meta.resolve("tsx")];
}

/** Builds a pool (no thread starts before the first task). */
export function createWorkerPool<Task, Result>(options: WorkerPoolOptions): WorkerPool<Task, Result> {
  const { subject, timeoutMs, maxMemoryMb, threads, maxWaiting } = options;
  let piscina: Piscina | null = null;
  let ready: Promise<unknown> | null = null;
  let closed = false;
  let running = 0;
  const waiting: Array<() => void> = [];

  const start = (): Promise<unknown> => {
    piscina = new Piscina({
      filename: fileURLToPath(options.module),
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb },
      execArgv: execArgv(options.module),
    });
    // Piscina hands concurrent tasks to idle workers first: one warm-up each.
    const pool = piscina;
    return Promise.all(Array.from({ length: threads }, () => pool.run(WORKER_WARM_UP)));
  };

  const acquire = async (): Promise<void> => {
    if (running < threads) {
      running += 1;
      return;
    }
    if (waiting.length >= maxWaiting) {
      throw new TooManyRequestsError(
        `${subject} has to wait: ${maxWaiting} tasks are already waiting for a worker. Please try again later.`,
      );
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };

  /** Resolves once a worker (the replacement of an ended one) has answered a warm-up; never rejects. */
  const replaced = (): Promise<unknown> => piscina!.run(WORKER_WARM_UP).catch((error: unknown) => error);

  const refusal = (error: unknown): unknown => {
    if (!(error instanceof Error)) return error;
    if (error.name === "AbortError") {
      return new ValidationError(`${subject} took longer than the limit of ${timeoutMs} ms.`, {
        code: "max_time",
      });
    }
    if ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY") {
      return new ValidationError(`${subject} needed more memory than the limit of ${maxMemoryMb} MB.`, {
        code: "max_memory",
      });
    }
    if (error.message === `worker exited with code: ${WORKER_TRAP_EXIT_CODE}`) {
      return new ValidationError(`${subject} failed: the input is too complex.`, { code: "too_complex" });
    }
    return error;
  };

  return {
    async run(task) {
      if (closed) throw new Error("The worker pool is closed.");
      ready ??= start();
      await ready;
      await acquire();
      let ended = false;
      try {
        // A task that waited its turn past close() is not a task that ran out of time.
        if (closed) throw new Error("The worker pool is closed.");
        return (await piscina!.run(task, { signal: AbortSignal.timeout(timeoutMs) })) as Result;
      } catch (error) {
        const answer = refusal(error);
        ended = answer instanceof ValidationError;
        throw answer;
      } finally {
        // A refused task ended its worker; piscina starts another. The slot stays taken until the
        // new worker has answered its warm-up, so no later task's time budget pays for its boot.
        if (ended && !closed) void replaced().finally(release);
        else release();
      }
    },
    async close() {
      closed = true;
      await piscina?.destroy();
    },
  };
}
