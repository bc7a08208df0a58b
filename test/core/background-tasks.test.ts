/**
 * The background task runner (src/core/background-tasks.ts) on its own, with vitest's fake timers:
 * ticks are single-flight, `runNow()` runs after a run in progress, failures go to the error
 * callback without stopping the schedule, and `stop()` waits for the run in progress.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startBackgroundTask } from "../../src/core/background-tasks.js";

/** A promise and the functions that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("startBackgroundTask", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs on its interval, skipping ticks while a run is in progress", async () => {
    const gate = deferred();
    const run = vi.fn(() => gate.promise);
    const task = startBackgroundTask({ name: "t", intervalMs: 100, run }, () => undefined);
    await vi.advanceTimersByTimeAsync(99);
    expect(run).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(run).toHaveBeenCalledTimes(1);
    gate.resolve();
    await vi.advanceTimersByTimeAsync(100);
    expect(run).toHaveBeenCalledTimes(2);
    await task.stop();
  });

  it("runs on demand after the run in progress, and answers the run's result", async () => {
    const gate = deferred();
    const order: string[] = [];
    let calls = 0;
    const run = vi.fn(async () => {
      calls += 1;
      const call = calls;
      order.push(`start ${call}`);
      if (call === 1) await gate.promise;
      order.push(`end ${call}`);
      return call;
    });
    const task = startBackgroundTask({ name: "t", intervalMs: 100, run }, () => undefined);
    await vi.advanceTimersByTimeAsync(100);
    const onDemand = task.runNow();
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual(["start 1"]);
    gate.resolve();
    expect(await onDemand).toBe(2);
    expect(order).toEqual(["start 1", "end 1", "start 2", "end 2"]);
    await task.stop();
  });

  it("reports a failed tick and keeps its schedule; a failed run on demand rejects its caller", async () => {
    const errors: unknown[] = [];
    let fail = true;
    const run = vi.fn(async () => {
      if (fail) throw new Error("boom");
      return "ok";
    });
    const task = startBackgroundTask({ name: "t", intervalMs: 100, run }, (error) => errors.push(error));
    await vi.advanceTimersByTimeAsync(100);
    expect(errors).toHaveLength(1);
    await expect(task.runNow()).rejects.toThrow("boom");
    fail = false;
    await vi.advanceTimersByTimeAsync(100);
    expect(run).toHaveBeenCalledTimes(3);
    expect(errors).toHaveLength(1);
    await task.stop();
  });

  it("stops its timer and waits for the run in progress; later runs on demand are refused", async () => {
    const gate = deferred();
    const run = vi.fn(() => gate.promise);
    const task = startBackgroundTask({ name: "t", intervalMs: 100, run }, () => undefined);
    await vi.advanceTimersByTimeAsync(100);
    let stopped = false;
    const stopping = task.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(stopped).toBe(false);
    expect(run).toHaveBeenCalledTimes(1);
    gate.resolve();
    await stopping;
    expect(stopped).toBe(true);
    await expect(task.runNow()).rejects.toThrow("background task t is stopped");
    await vi.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(1);
  });
});
