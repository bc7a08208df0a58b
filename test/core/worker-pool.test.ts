/**
 * The worker pool (src/core/worker-pool.ts) with a worker module made for it
 * (./fixtures/pool-worker.ts): a task past its time, past its heap or that ends its worker answers
 * 400 naming the budget, its worker is replaced and the next task answers; waiting for a worker is
 * not charged to a task's time; a full waiting line answers 429 at once.
 */
import os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { TooManyRequestsError, ValidationError } from "../../src/core/errors.js";
import { createWorkerPool, type WorkerPool } from "../../src/core/worker-pool.js";
import type { PoolTestTask } from "./fixtures/pool-worker.js";

const MODULE = new URL("./fixtures/pool-worker.ts", import.meta.url);

let pool: WorkerPool<PoolTestTask, number | null> | null = null;

function poolOf(
  options: { threads?: number; timeoutMs?: number; maxMemoryMb?: number; maxWaiting?: number } = {},
) {
  pool = createWorkerPool<PoolTestTask, number | null>({
    module: MODULE,
    threads: options.threads ?? 2,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxMemoryMb: options.maxMemoryMb ?? 128,
    maxWaiting: options.maxWaiting ?? 100,
    subject: "Testing",
  });
  return pool;
}

/** The refusal `promise` rejects with, as `{code, message}`. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return { code: (error as ValidationError).code, message: (error as ValidationError).message };
}

afterEach(async () => {
  await pool?.close();
  pool = null;
});

describe("worker pool", () => {
  it("stops a task past its time budget, and runs the next one on a fresh worker", async () => {
    const p = poolOf({ threads: 1, timeoutMs: 500 });
    const before = await p.run({ kind: "thread" });
    expect(await refusal(p.run({ kind: "spin" }))).toEqual({
      code: "max_time",
      message: "Testing took longer than the limit of 500 ms.",
    });
    const after = await p.run({ kind: "thread" });
    expect(after).not.toBe(before);
  });

  it("does not charge the next task for the boot of the worker that replaces a stopped one", async () => {
    const p = poolOf({ threads: 1, timeoutMs: 500 });
    await p.run({ kind: "thread" });
    // The replacement takes 1.5 s to load, three times the budget of the task that comes next.
    process.env.POOL_TEST_BOOT_MS = "1500";
    try {
      expect((await refusal(p.run({ kind: "spin" }))).code).toBe("max_time");
      expect(await p.run({ kind: "thread" })).toEqual(expect.any(Number));
    } finally {
      delete process.env.POOL_TEST_BOOT_MS;
    }
  });

  it("stops a worker past its heap, and runs the next task on a fresh one", async () => {
    const p = poolOf({ threads: 1, maxMemoryMb: 32, timeoutMs: 60_000 });
    const before = await p.run({ kind: "thread" });
    expect(await refusal(p.run({ kind: "allocate" }))).toEqual({
      code: "max_memory",
      message: "Testing needed more memory than the limit of 32 MB.",
    });
    expect(await p.run({ kind: "thread" })).not.toBe(before);
  });

  it("answers a task whose worker ended itself as too complex, and replaces the worker", async () => {
    const p = poolOf({ threads: 1 });
    const before = await p.run({ kind: "thread" });
    expect(await refusal(p.run({ kind: "trap" }))).toEqual({
      code: "too_complex",
      message: "Testing failed: the input is too complex.",
    });
    expect(await p.run({ kind: "thread" })).not.toBe(before);
  });

  it("does not charge a task for the time it waits for a worker", async () => {
    const p = poolOf({ threads: 1, timeoutMs: 1000 });
    // Four tasks of 400 ms on one worker: the last waits 1.2 s, past the budget, and still answers.
    const answers = await Promise.all(Array.from({ length: 4 }, () => p.run({ kind: "wait", ms: 400 })));
    expect(new Set(answers).size).toBe(1);
  });

  it("refuses a task at once with 429 when its waiting line is full, and serves again once it drains", async () => {
    const p = poolOf({ threads: 1, maxWaiting: 2 });
    await p.run({ kind: "thread" });
    const busy = [
      p.run({ kind: "wait", ms: 300 }),
      p.run({ kind: "wait", ms: 10 }),
      p.run({ kind: "wait", ms: 10 }),
    ];
    const refused = await p.run({ kind: "thread" }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect((refused as TooManyRequestsError).httpStatus).toBe(429);
    expect((refused as Error).message).toBe(
      "Testing has to wait: 2 tasks are already waiting for a worker. Please try again later.",
    );
    await Promise.all(busy);
    expect(await p.run({ kind: "thread" })).toEqual(expect.any(Number));
  });

  it("runs tasks side by side on its threads, and rethrows a worker's own errors", async () => {
    const p = poolOf({ threads: 2 });
    const threads = await Promise.all([p.run({ kind: "wait", ms: 300 }), p.run({ kind: "wait", ms: 300 })]);
    expect(new Set(threads).size).toBe(2);
    await expect(p.run({ kind: "throw" })).rejects.toThrow("a bug in the worker");
    await expect(p.run({ kind: "throw" })).rejects.not.toBeInstanceOf(ValidationError);
  });

  it.runIf(process.platform === "linux")(
    "runs a worker that lowered its priority at nice 10, and leaves the request thread's alone",
    async () => {
      const p = poolOf({ threads: 1 });
      const before = os.getPriority();
      expect(await p.run({ kind: "priority" })).toBe(10);
      expect(os.getPriority()).toBe(before);
    },
  );

  it("refuses tasks once closed", async () => {
    const p = poolOf();
    await p.run({ kind: "thread" });
    await p.close();
    await expect(p.run({ kind: "thread" })).rejects.toThrow("The worker pool is closed.");
  });
});
