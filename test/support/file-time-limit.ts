/**
 * A vitest reporter that ends the run when one test file runs past a wall-clock limit, naming it
 * (issue 31). vitest's own timeouts are timers inside the test file's worker: a worker stuck in
 * synchronous work (a long statement inside PGlite's WebAssembly, a loop of promises that never
 * yields) never runs them, and the run would wait for CI's limit with nothing said. This reporter's
 * timer runs in vitest's main process, which such a worker cannot block.
 *
 * Past the limit it prints every file still running with its time and, for each, the test or hook
 * that was running in it and for how long (where a hang sits), kills the run's worker processes
 * (SIGKILL: a worker stuck in WebAssembly handles nothing else) and exits with status 1.
 *
 * `TEST_FILE_TIME_LIMIT_MS`: the limit per file, default 10 minutes (the longest file takes about
 * 2 minutes on CI's 2-core machine); 0 turns the guard off (a debugger paused at a breakpoint).
 */
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import type { ReportedHookContext, Reporter, TestCase, TestModule } from "vitest/node";

const DEFAULT_LIMIT_MS = 10 * 60_000;
/** How often running files are checked against the limit. */
const CHECK_INTERVAL_MS = 5_000;

/** The ids of every live descendant of process `root` (Linux's /proc; elsewhere none). */
function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  for (const entry of entries) {
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ...", where comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while the table was read.
    }
  }
  const found: number[] = [];
  for (let queue = [root]; queue.length; ) {
    const next = children.get(queue.shift() as number) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/** The reporter (vitest.config.ts lists it beside the default one). */
export default class FileTimeLimit implements Reporter {
  private readonly limitMs = Number(process.env["TEST_FILE_TIME_LIMIT_MS"] ?? DEFAULT_LIMIT_MS);
  private readonly running = new Map<string, number>();
  /** Per running file, what runs in it now, innermost last (a test, or `<hook> of <suite>`), and since when. */
  private readonly current = new Map<string, Array<{ what: string; since: number }>>();
  private timer: NodeJS.Timeout | undefined;

  onInit(): void {
    if (!(this.limitMs > 0)) return;
    this.timer = setInterval(() => this.check(), CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  onTestModuleStart(module: TestModule): void {
    this.running.set(module.relativeModuleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    this.running.delete(module.relativeModuleId);
    this.current.delete(module.relativeModuleId);
  }

  onTestCaseReady(test: TestCase): void {
    this.enter(test.module, `test "${test.fullName}"`);
  }

  onTestCaseResult(test: TestCase): void {
    this.leave(test.module, `test "${test.fullName}"`);
  }

  onHookStart(hook: ReportedHookContext): void {
    this.enter(...FileTimeLimit.hook(hook));
  }

  onHookEnd(hook: ReportedHookContext): void {
    this.leave(...FileTimeLimit.hook(hook));
  }

  /** A hook's file and its description, `beforeAll of "suite"`. */
  private static hook(hook: ReportedHookContext): [TestModule, string] {
    const entity = hook.entity;
    if (entity.type === "module") return [entity, `${hook.name} of the file`];
    return [entity.module, `${hook.name} of "${entity.fullName}"`];
  }

  private enter(module: TestModule, what: string): void {
    const stack = this.current.get(module.relativeModuleId) ?? [];
    stack.push({ what, since: Date.now() });
    this.current.set(module.relativeModuleId, stack);
  }

  private leave(module: TestModule, what: string): void {
    const stack = this.current.get(module.relativeModuleId) ?? [];
    const at = stack.findLastIndex((entry) => entry.what === what);
    if (at >= 0) stack.splice(at, 1);
  }

  onTestRunEnd(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    const now = Date.now();
    const late = [...this.running].filter(([, started]) => now - started > this.limitMs);
    if (!late.length) return;
    const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;
    console.error(
      `\n!!! Test file time limit (TEST_FILE_TIME_LIMIT_MS, ${minutes(this.limitMs)}) passed: ending the run.`,
    );
    const lines = [...this.running].map(([file, started]) => {
      const inside = this.current.get(file)?.at(-1);
      const where = inside ? `, in ${inside.what} for ${minutes(now - inside.since)}` : "";
      return `${file}: running for ${minutes(now - started)}${late.some(([f]) => f === file) ? " (past the limit)" : ""}${where}`;
    });
    for (const line of lines) console.error(`!!!   ${line}`);
    // For .ci/run's summary, as test/support/failure-summary.ts writes what failed.
    const failures = process.env["CI_FAILURES_FILE"];
    if (failures) appendFileSync(failures, `${lines.join("\n")}\n`);
    for (const pid of descendantsOf(process.pid)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    process.exit(1);
  }
}
