/**
 * Worker threads on modules of this package, whether it runs from its TypeScript sources (tsx: `npm
 * run dev`, the tests) or compiled (`dist/`, `npm start`). A `.ts` entry cannot be handed to `Worker`
 * directly: on Node 20 module hooks (tsx's) do not apply to a worker's entry module. So a `.ts` entry
 * is loaded by a one-line bootstrap through tsx's own API (`tsImport`); a `.js` entry is started as is.
 */
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts a worker thread on the module `entry` (a `file:` URL, `.ts` or `.js`).
 * @param parent The URL of the module asking (`import.meta.url`): tsx resolves the entry's imports from it.
 */
export function startModuleWorker(entry: URL, parent: string, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith(".ts")) return new Worker(entry, options);
  const bootstrap = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(parent)}))`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** `./<name>.ts` beside `parent` when `parent` is a `.ts` module (running from sources), else `./<name>.js`. */
export function siblingModule(parent: string, name: string): URL {
  return new URL(`./${name}${parent.endsWith(".ts") ? ".ts" : ".js"}`, parent);
}
