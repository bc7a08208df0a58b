/**
 * Child processes on modules of this package, whether it runs from its TypeScript sources (tsx:
 * `npm run dev`, the tests) or compiled (`dist/`, `npm start`): a `.ts` entry runs under tsx's
 * loader (`--import tsx`), a `.js` entry as it is.
 */
import { type ChildProcess, type ForkOptions, fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Starts a Node.js process on the module `entry` (a `file:` URL, `.ts` or `.js`). The process gets
 * none of this process's `execArgv` (inspector, loader or memory flags of a test runner).
 */
export function forkModule(entry: URL, options: ForkOptions = {}): ChildProcess {
  const execArgv = entry.pathname.endsWith(".ts") ? ["--import", "tsx"] : [];
  return fork(fileURLToPath(entry), [], { ...options, execArgv });
}

/** `./<name>.ts` beside `parent` when `parent` is a `.ts` module (running from sources), else `./<name>.js`. */
export function siblingModule(parent: string, name: string): URL {
  return new URL(`./${name}${parent.endsWith(".ts") ? ".ts" : ".js"}`, parent);
}
