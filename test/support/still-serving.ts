/**
 * What a test of hostile requests checks after each one (issue 24 §3): the server logged no error,
 * the process raised nothing outside a request (no uncaught exception, no unhandled rejection, which
 * would have ended a real server), and the server still answers its health probe and a normal
 * authenticated request.
 */
import { afterAll, beforeAll, expect } from "vitest";
import type { TestResponse, TestServer } from "./server.js";

/** The process's uncaught exceptions and unhandled rejections seen since `watchProcessFailures` began. */
const failures: unknown[] = [];
const record = (error: unknown) => failures.push(error);

/**
 * Records the process's uncaught exceptions and unhandled rejections while the calling file's tests
 * run (vitest reports them too, but only at the end of the run, without the request that caused them).
 */
export function watchProcessFailures(): void {
  beforeAll(() => {
    process.on("uncaughtException", record);
    process.on("unhandledRejection", record);
  });
  afterAll(() => {
    process.off("uncaughtException", record);
    process.off("unhandledRejection", record);
  });
}

/**
 * Fails unless `s` still serves after the request `label` names: `/healthz` and a normal request
 * (the flag list) answer 200, and since `logged` (the length of `s.errorLogs` before the request)
 * nothing was logged at error level and the process raised nothing (see `watchProcessFailures`).
 */
export async function expectStillServing(s: TestServer, label: string, logged: number): Promise<void> {
  const health = await fetch(`${s.baseUrl}/healthz`);
  expect(health.status, `${label}: /healthz`).toBe(200);
  const normal = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/`);
  expect(normal.status, `${label}: a normal request`).toBe(200);
  expect(s.errorLogs.slice(logged), `${label}: logged an error`).toEqual([]);
  expect(failures.splice(0), `${label}: the process raised outside a request`).toEqual([]);
}

/**
 * Sends one hostile request with `send`, expects an answer below 500, checks that `s` still serves
 * after it (`expectStillServing`), and returns the answer.
 */
export async function sendHostile(
  s: TestServer,
  label: string,
  send: (s: TestServer) => Promise<TestResponse>,
): Promise<TestResponse> {
  const logged = s.errorLogs.length;
  const answer = await send(s);
  expect(answer.status, `${label}: ${answer.text}`).toBeLessThan(500);
  await expectStillServing(s, label, logged);
  return answer;
}
