/**
 * The generated code is valid code, checked by each language's real toolchain (issue 9, "How it is
 * shown"), over the fixture events (fixture-events.ts: keywords, collisions, leading digits,
 * non-ASCII, punctuation, every property type, required and optional, events without a schema):
 * - TypeScript: the module and a usage file calling `capture` for every event type-check with the
 *   repo's `tsc --strict` against `posthog-js`'s own types; a usage passing a wrong property type
 *   does not (the types do check properties).
 * - Python: `python3 -m py_compile`, then `mypy` over the module and a usage file calling every
 *   `capture_<event>` method of `PosthogTyped` (all properties with SDK arguments, and only the
 *   required ones); a wrong property type, a missing required property and an unknown argument fail
 *   mypy, and so do PostHog's names where ours differ. The `posthog` SDK is not installable here
 *   (no PyPI), so `MYPYPATH` points at posthog-python/ beside this file: stubs declaring the part of
 *   the SDK the code uses, typed as the SDK types it (Debian's mypy 1.0 also needs `Unpack` enabled).
 * - Go: the package in a module whose `replace` points `github.com/posthog/posthog-go` at
 *   test/fixtures/posthog-go, a module declaring just the posthog-go types the code uses, because
 *   the Go module proxy is out of reach here (GOPROXY=off); `gofmt -l` prints nothing, `go vet ./...`
 *   passes over the package and a usage calling every generated function; a wrong argument type fails.
 * Each check is skipped, with the reason printed, only where its toolchain is absent (.ci/run
 * installs Debian's golang-go and mypy).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generateGo } from "../../../src/event-definitions/codegen/golang.js";
import {
  type CodegenEvent,
  mergeProperties,
  type SchemaPropertyType,
} from "../../../src/event-definitions/codegen/model.js";
import { generatePython } from "../../../src/event-definitions/codegen/python.js";
import { generateTypeScript } from "../../../src/event-definitions/codegen/typescript.js";
import { FIXTURE_EVENTS } from "./fixture-events.js";

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, "../../..");
const GENERATED_AT = new Date("2026-11-26T03:00:00.000Z");

/** The result of running a command: its exit code (null when it could not start) and its output. */
interface Run {
  status: number | null;
  output: string;
  missing: boolean;
}

/** Runs `command` with `args` in `cwd`; `missing` when the command does not exist. */
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Run {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 240_000,
  });
  const missing = (result.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}`, missing };
}

/** Whether `command --version` (or `version`) starts; prints why the checks are skipped otherwise. */
function toolchain(command: string, versionArgs: string[], what: string): boolean {
  const found = !run(command, versionArgs, REPO).missing;
  if (!found) {
    console.warn(
      `SKIPPED ${what} in test/event-definitions/codegen/toolchains.test.ts: no \`${command}\` ` +
        "(apt-get install golang-go mypy; .ci/run installs them)",
    );
  }
  return found;
}

const directories: string[] = [];
/** A fresh temporary directory, removed after the file's tests. */
function tempDir(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), `signalbox-${prefix}-`));
  directories.push(directory);
  return directory;
}
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** A value of each property type, as a TypeScript expression. */
const TS_VALUES: Record<SchemaPropertyType, string> = {
  String: "'text'",
  Numeric: "42",
  Boolean: "true",
  DateTime: "new Date()",
  Array: "[1, 'two']",
  Object: "{ nested: 1 }",
};

/** A `capture` call for each event with all its properties, and one with only the required (or none). */
function typeScriptUsage(events: readonly CodegenEvent[]): string {
  const lines = ["import posthog from './posthog-typed'", ""];
  for (const event of events) {
    const properties = mergeProperties(event.properties ?? []);
    const object = (which: typeof properties) =>
      `{ ${which.map((p) => `${JSON.stringify(p.name)}: ${TS_VALUES[p.types[0]!]}`).join(", ")} }`;
    if (properties.length === 0) {
      lines.push(`posthog.capture(${JSON.stringify(event.name)})`);
      lines.push(`posthog.capture(${JSON.stringify(event.name)}, { anything: 'goes' })`);
      continue;
    }
    lines.push(`posthog.capture(${JSON.stringify(event.name)}, ${object(properties)})`);
    const required = properties.filter((p) => p.isRequired);
    if (required.length === 0) lines.push(`posthog.capture(${JSON.stringify(event.name)})`);
    else
      lines.push(
        `posthog.capture(${JSON.stringify(event.name)}, ${object(required)}, { send_instantly: true })`,
      );
  }
  lines.push("posthog.capture('an event no schema names', { whatever: 1 })");
  lines.push("posthog.captureRaw('anything at all')");
  lines.push("posthog.identify('user-1')");
  return `${lines.join("\n")}\n`;
}

/** A value of each Python type the generator writes, as a Python expression. */
const PY_VALUES: Record<string, string> = {
  str: '"text"',
  float: "4.2",
  bool: "True",
  datetime: "datetime.now()",
  "List[Any]": '[1, "two"]',
  "Dict[str, Any]": '{"nested": 1}',
};

/** One `capture_<event>` method of the generated module: its name and its property parameters. */
interface PythonMethod {
  name: string;
  parameters: Array<{ name: string; type: string; required: boolean }>;
}

/** The `capture_<event>` methods of the generated module, read from the module itself. */
function pythonMethods(module: string): PythonMethod[] {
  const methods = module.matchAll(
    /^ {4}def (capture_\w+)\(\n {8}self,\n {8}\*,\n((?: {8}[^\n]*\n)*?) {8}\*\*kwargs: Unpack\[OptionalCaptureArgs\],\n {4}\) -> Optional\[str\]:$/gm,
  );
  return [...methods].map(([, name, lines]) => ({
    name: name!,
    parameters: [...lines!.matchAll(/^ {8}(\w+): (?:Optional\[(.+)\] = None|(.+)),$/gm)]
      .filter((parameter) => parameter[1] !== "extra_properties")
      .map(([, parameter, optionalType, requiredType]) => ({
        name: parameter!,
        type: (optionalType ?? requiredType)!,
        required: requiredType !== undefined,
      })),
  }));
}

/**
 * A usage of the generated module, as PostHog's test_python.py writes one: a `PosthogTyped` client
 * calling every `capture_<event>` method twice, with every property, extra properties and SDK
 * arguments, then with the required properties only (no `distinct_id`: it is optional).
 */
function pythonUsage(module: string): string {
  const lines = [
    "from datetime import datetime",
    "",
    "from posthog_typed import PosthogTyped",
    "",
    'client = PosthogTyped("fake_key", host="http://localhost")',
  ];
  for (const method of pythonMethods(module)) {
    const argument = (p: PythonMethod["parameters"][number]) => `${p.name}=${PY_VALUES[p.type]!}`;
    const all = method.parameters.map(argument);
    const sdk = ['extra_properties={"custom_field": 1}', 'distinct_id="u"', "timestamp=datetime.now()"];
    lines.push(`client.${method.name}(${[...all, ...sdk].join(", ")})`);
    lines.push(
      `client.${method.name}(${method.parameters
        .filter((p) => p.required)
        .map(argument)
        .join(", ")})`,
    );
  }
  lines.push('client.capture("an event no schema names", distinct_id="u", properties={"whatever": 1})');
  lines.push("client.flush()");
  lines.push("client.shutdown()");
  return `${lines.join("\n")}\n`;
}

/** A value of each Go parameter type the generator writes, as a Go expression. */
const GO_VALUES: Record<string, string> = {
  string: '"text"',
  float64: "4.2",
  bool: "true",
  "time.Time": "time.Now()",
  "[]interface{}": '[]interface{}{1, "two"}',
  "map[string]interface{}": 'map[string]interface{}{"nested": 1}',
  "interface{}": '"anything"',
  "posthog.Capture": 'posthog.Capture{DistinctId: "u", Properties: posthog.Properties{"plan": "pro"}}',
  "posthog.Properties": 'posthog.Properties{"k": 1}',
};

/**
 * A `main` calling every function of the generated Go package, read from the package itself: each
 * function's parameter types; an event's options (functions returning its `…Option`) passed to its
 * capture functions.
 */
function goUsage(source: string): string {
  const functions = [...source.matchAll(/^func (\w+)\(([^)]*)\) ([\w.]+) \{$/gm)].map((match) => ({
    name: match[1]!,
    params: match[2]!
      .split(/,\s*/)
      .map((param) => param.trim())
      .filter((param) => param.length > 0)
      .map((param) => param.split(" ").slice(1).join(" ")),
    returns: match[3]!,
  }));
  expect(functions.length).toBeGreaterThan(0);
  const lines: string[] = [];
  for (const [i, fn] of functions.entries()) {
    const args = fn.params.map((type) => {
      if (type.startsWith("...")) {
        const element = type.slice(3);
        if (element === "posthog.Properties") return GO_VALUES[element]!;
        // Every option of this event.
        return functions
          .filter((option) => option.returns === element)
          .map((option) => `typed.${option.name}(${option.params.map((t) => GO_VALUES[t]!).join(", ")})`)
          .join(", ");
      }
      const value = GO_VALUES[type];
      if (value === undefined) throw new Error(`no Go value for ${type} (${fn.name})`);
      return value;
    });
    lines.push(`\tv${i} := typed.${fn.name}(${args.filter((a) => a !== "").join(", ")})`);
    lines.push(`\t_ = v${i}`);
  }
  return `package main

import (
\t"time"

\t"example.com/usage/typed"
\t"github.com/posthog/posthog-go"
)

var _ = time.Now
var _ = posthog.Properties{}

func main() {
${lines.join("\n")}
}
`;
}

describe("generated TypeScript type-checks against posthog-js", () => {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  /** A directory with the module, `usage` and node_modules resolving `posthog-js` (ours, symlinked). */
  const project = (usage: string) => {
    const directory = tempDir("ts");
    symlinkSync(join(REPO, "node_modules"), join(directory, "node_modules"), "dir");
    writeFileSync(join(directory, "posthog-typed.ts"), generateTypeScript(FIXTURE_EVENTS, GENERATED_AT));
    writeFileSync(join(directory, "usage.ts"), usage);
    return directory;
  };
  const check = (directory: string) =>
    run(
      process.execPath,
      [
        tsc,
        "--noEmit",
        "--strict",
        "--skipLibCheck",
        "--target",
        "es2022",
        "--module",
        "esnext",
        "--moduleResolution",
        "bundler",
        "--lib",
        "es2022,dom",
        "posthog-typed.ts",
        "usage.ts",
      ],
      directory,
    );

  it("compiles with tsc --strict, the module and a call of capture for every event", () => {
    const result = check(project(typeScriptUsage(FIXTURE_EVENTS)));
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });

  it("refuses a wrong property type and a missing required property", () => {
    for (const usage of [
      "posthog.capture('1st purchase', { amount: 'not a number' })",
      "posthog.capture('every type', { s: 'text' })",
      "posthog.capture('signed up', { type: 1 } as const)",
    ]) {
      const result = check(project(`import posthog from './posthog-typed'\n${usage}\n`));
      expect(result.status, usage).not.toBe(0);
      expect(result.output, usage).toContain("usage.ts");
    }
  });

  it("compiles for a project without events", () => {
    const directory = tempDir("ts-empty");
    symlinkSync(join(REPO, "node_modules"), join(directory, "node_modules"), "dir");
    writeFileSync(join(directory, "posthog-typed.ts"), generateTypeScript([], GENERATED_AT));
    writeFileSync(
      join(directory, "usage.ts"),
      "import posthog from './posthog-typed'\nposthog.capture('any', { a: 1 })\n",
    );
    const result = check(directory);
    expect(result.output).toBe("");
  });
});

const HAS_PYTHON = toolchain("python3", ["--version"], "the Python checks (py_compile)");
const HAS_MYPY = toolchain("mypy", ["--version"], "the Python type checks (mypy)");

describe.skipIf(!HAS_PYTHON)("generated Python compiles and type-checks", () => {
  /**
   * mypy's flags: the `posthog` stubs on `MYPYPATH` (posthog-python/ beside this file); `Unpack`
   * enabled where it is still experimental (mypy < 1.7).
   */
  const mypy = (directory: string) => {
    const version = /mypy (\d+)\.(\d+)/.exec(run("mypy", ["--version"], REPO).output);
    const old =
      version !== null && (Number(version[1]) < 1 || (Number(version[1]) === 1 && Number(version[2]) < 7));
    const flags = old ? ["--enable-incomplete-feature=Unpack"] : [];
    return run("mypy", [...flags, "posthog_typed.py", "usage.py"], directory, {
      MYPYPATH: join(here, "posthog-python"),
    });
  };
  const project = (events: readonly CodegenEvent[], usage?: string, edit = (module: string) => module) => {
    const directory = tempDir("py");
    const module = edit(generatePython(events, GENERATED_AT));
    writeFileSync(join(directory, "posthog_typed.py"), module);
    writeFileSync(join(directory, "usage.py"), usage ?? pythonUsage(module));
    return directory;
  };
  const client =
    'from posthog_typed import PosthogTyped\nclient = PosthogTyped("fake_key", host="http://localhost")\n';

  it("compiles with py_compile", () => {
    const directory = project(FIXTURE_EVENTS);
    const result = run("python3", ["-m", "py_compile", "posthog_typed.py", "usage.py"], directory);
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });

  it.skipIf(!HAS_MYPY)("passes mypy, the module and two calls of every event's method", () => {
    const directory = project(FIXTURE_EVENTS);
    const calls = readFileSync(join(directory, "usage.py"), "utf8").match(/^client\.capture_/gm);
    expect(calls?.length).toBe(2 * FIXTURE_EVENTS.length);
    const result = mypy(directory);
    expect(result.output).toContain("Success: no issues found in 2 source files");
    expect(result.status).toBe(0);
  });

  it.skipIf(!HAS_MYPY)(
    "fails mypy on a wrong property type, a missing required property, an unknown argument",
    () => {
      for (const [usage, error] of [
        [
          'client.capture_event_1st_purchase(amount="not a number")',
          'Argument "amount" to "capture_event_1st_purchase" of "PosthogTyped" has incompatible type "str"; expected "float"',
        ],
        ["client.capture_class()", 'Missing named argument "type" for "capture_class" of "PosthogTyped"'],
        [
          'client.capture_class(type="t", unknown=1)',
          'Unexpected keyword argument "unknown" for "capture_class" of "PosthogTyped"',
        ],
        [
          'client.capture_class(type="t", distinct_id=[1])',
          'Argument "distinct_id" to "capture_class" of "PosthogTyped" has incompatible type',
        ],
      ] as const) {
        const result = mypy(project(FIXTURE_EVENTS, `${client}${usage}\n`));
        expect(result.status, usage).toBe(1);
        expect(result.output, usage).toContain(`usage.py:3: error: ${error}`);
      }
    },
  );

  it.skipIf(!HAS_MYPY)(
    "fails mypy with PostHog's names where ours differ (python.py's module comment)",
    () => {
      // PostHog names the method after the event even where `Posthog` has the attribute, and the
      // parameter after the property even where `**kwargs` declares it.
      const posthogs = (module: string) =>
        module
          .replace("def capture_exception_2(", "def capture_exception(")
          .replace("def capture_mode_2(", "def capture_mode(")
          .replace("        timestamp_2: datetime,", "        timestamp: datetime,")
          .replace('"timestamp": timestamp_2', '"timestamp": timestamp');
      const result = mypy(project(FIXTURE_EVENTS, `${client}`, posthogs));
      expect(result.status).toBe(1);
      expect(result.output).toContain(
        'error: Signature of "capture_exception" incompatible with supertype "Client"',
      );
      expect(result.output).toContain(
        'error: Signature of "capture_mode" incompatible with supertype "Client"',
      );
      expect(result.output).toContain(
        'error: Overlap between argument names and ** TypedDict items: "timestamp"',
      );
    },
  );

  it.skipIf(!HAS_MYPY)("passes mypy for a project of one event and of none", () => {
    for (const events of [FIXTURE_EVENTS.slice(2, 3), []]) {
      const result = mypy(project(events));
      expect(result.output, `${events.length} events`).toContain("Success");
    }
  });
});

const HAS_GO = toolchain("go", ["version"], "the Go checks (gofmt, go vet)");

describe.skipIf(!HAS_GO)("generated Go is gofmt-clean and passes go vet", () => {
  /**
   * A module `example.com/usage` with the package in `typed/`, `main.go` and the local posthog-go.
   * No module proxy is reachable here, so `replace` points posthog-go at test/fixtures/posthog-go
   * (the types the code uses, as posthog-go declares them) and the go command runs offline.
   */
  const module = (source: string, usage: string) => {
    const directory = tempDir("go");
    mkdirSync(join(directory, "typed"));
    writeFileSync(join(directory, "typed", "typed.go"), source);
    writeFileSync(join(directory, "main.go"), usage);
    cpSync(join(REPO, "test/fixtures/posthog-go"), join(directory, "posthog-go"), { recursive: true });
    writeFileSync(
      join(directory, "go.mod"),
      "module example.com/usage\n\ngo 1.18\n\nrequire github.com/posthog/posthog-go v0.0.0\n\n" +
        "replace github.com/posthog/posthog-go => ./posthog-go\n",
    );
    return directory;
  };
  // Offline (no module proxy here), and a build cache of our own, so no $HOME is needed.
  const offline = {
    GOFLAGS: "-mod=mod",
    GOPROXY: "off",
    GOTOOLCHAIN: "local",
    GOCACHE: process.env["GOCACHE"] ?? join(tmpdir(), "signalbox-go-build-cache"),
  };

  it("is gofmt-clean and passes go vet, the package and a call of every function", () => {
    const source = generateGo(FIXTURE_EVENTS, GENERATED_AT);
    const usage = goUsage(source);
    // Every function of the package is called.
    expect(usage.match(/ := typed\./g)?.length).toBe(source.match(/^func /gm)?.length);
    const directory = module(source, usage);
    const formatted = run("gofmt", ["-l", "typed"], directory);
    expect(formatted.output).toBe("");
    expect(formatted.status).toBe(0);
    const vetted = run("go", ["vet", "./..."], directory, offline);
    expect(vetted.output).toBe("");
    expect(vetted.status).toBe(0);
  });

  it("fails go vet on a wrong argument type", () => {
    const source = generateGo(FIXTURE_EVENTS, GENERATED_AT);
    const usage = `package main

import "example.com/usage/typed"

func main() {
\t_ = typed.Event1stPurchaseCapture("u", "not a number")
}
`;
    const result = run("go", ["vet", "./..."], module(source, usage), offline);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain("cannot use");
  });

  it("is gofmt-clean and passes go vet for a project of one event and of none", () => {
    for (const events of [FIXTURE_EVENTS.slice(2, 3), []]) {
      const source = generateGo(events, GENERATED_AT);
      const usage = events.length ? goUsage(source) : "package main\n\nfunc main() {}\n";
      const directory = module(source, usage);
      expect(run("gofmt", ["-l", "typed"], directory).output, `${events.length} events`).toBe("");
      const vetted = run("go", ["vet", "./..."], directory, offline);
      expect(vetted.output, `${events.length} events`).toBe("");
    }
  });
});
