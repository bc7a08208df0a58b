/**
 * The code generators without a toolchain (toolchains.test.ts compiles their output): the identifier
 * rules of PostHog's generators (golang.py, python.py), with the examples their docstrings give;
 * the schema hash (base.py's cases, and the same hash computed by Python from base.py's own recipe);
 * and the layout of each language's output over the fixture events, where names collide, are
 * keywords, start with digits, hold non-ASCII letters or punctuation.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { generateGo } from "../../../src/event-definitions/codegen/golang.js";
import {
  asciiWords,
  goExportedName,
  goParamName,
  goPascalSuffix,
  pythonClassName,
  pythonIdentifier,
  uniqueName,
} from "../../../src/event-definitions/codegen/identifiers.js";
import { generateCode } from "../../../src/event-definitions/codegen/index.js";
import {
  type CodegenEvent,
  compareCodePoints,
  mergeProperties,
} from "../../../src/event-definitions/codegen/model.js";
import { generatePython } from "../../../src/event-definitions/codegen/python.js";
import { schemaHash } from "../../../src/event-definitions/codegen/schema-hash.js";
import { generateTypeScript } from "../../../src/event-definitions/codegen/typescript.js";
import { FIXTURE_EVENTS, LONG_KEY } from "./fixture-events.js";

const AT = new Date("2026-11-26T03:00:00.000Z");

describe("identifiers", () => {
  it("splits names into ASCII letter-and-digit words", () => {
    expect(asciiWords("café ordered!")).toEqual(["caf", "ordered"]);
    expect(asciiWords("user-signed_up")).toEqual(["user", "signed", "up"]);
    expect(asciiWords("€ 💳")).toEqual([]);
  });

  it("makes Go function names as golang.py: PascalCase, `Event` before a digit or for no word", () => {
    expect(goExportedName("downloaded_file")).toBe("DownloadedFile");
    expect(goExportedName("user-signed_up")).toBe("UserSignedUp");
    expect(goExportedName("userID changed")).toBe("UserIDChanged");
    expect(goExportedName("1st purchase")).toBe("Event1stPurchase");
    expect(goExportedName("café ordered")).toBe("CafOrdered");
    expect(goExportedName("$pageview")).toBe("Pageview");
    expect(goExportedName("!!!")).toBe("Event");
    // PostHog splits the JSON-quoted name: an escape's letter starts a word.
    expect(goExportedName("a\nb")).toBe("ANb");
  });

  it("makes Go parameter names as golang.py: camelCase, `param` before a digit, `_` after keywords", () => {
    expect(goParamName("file_name")).toBe("fileName");
    expect(goParamName("user-id")).toBe("userId");
    expect(goParamName("User ID")).toBe("userId");
    expect(goParamName("1st item")).toBe("param1stItem");
    for (const keyword of ["type", "func", "range", "import", "map", "go"]) {
      expect(goParamName(keyword)).toBe(`${keyword}_`);
    }
    expect(goParamName("nil")).toBe("nil_");
    expect(goParamName("€")).toBe("value");
    expect(goPascalSuffix("file_name")).toBe("FileName");
    expect(goPascalSuffix("€")).toBe("Prop");
  });

  it("makes Python names as python.py: capitalized class names, snake identifiers, `_` after keywords", () => {
    expect(pythonClassName("downloaded_file")).toBe("DownloadedFileProps");
    expect(pythonClassName("$pageview")).toBe("PageviewProps");
    expect(pythonClassName("userID changed")).toBe("UseridChangedProps");
    expect(pythonClassName("1st purchase")).toBe("Event1stPurchaseProps");
    expect(pythonClassName("€")).toBe("EventProps");
    expect(pythonIdentifier("file-name")).toBe("file_name");
    expect(pythonIdentifier("123test")).toBe("prop_123test");
    expect(pythonIdentifier("__dunder__")).toBe("dunder");
    expect(pythonIdentifier("größe")).toBe("gr_e");
    expect(pythonIdentifier("€")).toBe("value");
    for (const keyword of ["class", "import", "None", "lambda"])
      expect(pythonIdentifier(keyword)).toBe(`${keyword}_`);
    // Soft keywords and builtins are identifiers.
    expect(pythonIdentifier("type")).toBe("type");
  });

  it("suffixes a taken name with the first free number from 2", () => {
    const used = new Set<string>();
    expect(["fileName", "fileName", "fileName"].map((name) => uniqueName(name, used))).toEqual([
      "fileName",
      "fileName2",
      "fileName3",
    ]);
    expect(uniqueName("file_name", new Set(["file_name", "file_name_2"]), "_")).toBe("file_name_3");
  });
});

describe("the model", () => {
  it("orders by code point, as Python sorts", () => {
    expect(["b", "💳", "ｚ", "B", "a"].sort(compareCodePoints)).toEqual(["B", "a", "b", "ｚ", "💳"]);
  });

  it("merges a name declared twice: types united, optional when any declaration is", () => {
    expect(
      mergeProperties([
        { name: "x", propertyType: "String", isRequired: true },
        { name: "y", propertyType: "Numeric", isRequired: true },
        { name: "x", propertyType: "Numeric", isRequired: false },
        { name: "x", propertyType: "String", isRequired: true },
      ]),
    ).toEqual([
      { name: "x", types: ["String", "Numeric"], isRequired: false },
      { name: "y", types: ["Numeric"], isRequired: true },
    ]);
  });
});

describe("schema hash", () => {
  const event = (name: string, ...props: Array<[string, "String" | "Numeric", boolean]>): CodegenEvent => ({
    name,
    properties: props.map(([n, propertyType, isRequired]) => ({ name: n, propertyType, isRequired })),
  });
  const hash = (events: CodegenEvent[], version = "1.0.0", language = "Go") =>
    schemaHash(language, version, events);

  // base.py's behaviour, case by case (posthog/api/event_definition_generators test of the base).
  it("is deterministic and ignores the order of properties and events", () => {
    const a = event("event_a", ["zzz_field", "String", true], ["aaa_field", "Numeric", false]);
    const b = event("event_a", ["aaa_field", "Numeric", false], ["zzz_field", "String", true]);
    expect(hash([a])).toBe(hash([b]));
    expect(hash([event("zzz"), event("aaa")])).toBe(hash([event("aaa"), event("zzz")]));
    expect(hash([a])).toMatch(/^[0-9a-f]{32}$/);
  });

  it("changes with a type, a required flag, a name, an added or removed property or event, the version, the language", () => {
    const base = hash([event("event_a", ["field1", "String", true])]);
    const variants = [
      hash([event("event_a", ["field1", "Numeric", true])]),
      hash([event("event_a", ["field1", "String", false])]),
      hash([event("event_a", ["field2", "String", true])]),
      hash([event("event_a", ["field1", "String", true], ["field2", "Numeric", false])]),
      hash([event("event_a")]),
      hash([event("event_a", ["field1", "String", true]), event("event_b")]),
      hash([event("event_a", ["field1", "String", true])], "2.0.0"),
      hash([event("event_a", ["field1", "String", true])], "1.0.0", "Python"),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it("treats no schema and an empty one alike", () => {
    expect(hash([{ name: "a", properties: null }])).toBe(hash([{ name: "a", properties: [] }]));
  });

  const python = spawnSync("python3", ["--version"]).error === undefined;
  if (!python) console.warn("SKIPPED the schema hash's Python cross-check in generators.test.ts: no python3");

  it.skipIf(!python)("equals base.py's recipe run by Python over the fixture events", () => {
    // base.py: tuples sorted, events sorted by name, orjson.dumps(OPT_SORT_KEYS) — for these inputs
    // the same bytes as json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False).
    const script = `
import hashlib, json, sys
data = json.load(sys.stdin)
schema_data = []
for event in data["events"]:
    prop_data = [(p["name"], p["propertyType"], p["isRequired"]) for p in (event["properties"] or [])]
    schema_data.append((event["name"], sorted(prop_data)))
schema_data.sort(key=lambda x: x[0])
hash_input = {"language": data["language"], "version": data["version"], "schemas": schema_data}
dumped = json.dumps(hash_input, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
print(hashlib.sha256(dumped.encode("utf-8")).hexdigest()[:32])
`;
    // Reversed, so the sorting is exercised.
    const events = [...FIXTURE_EVENTS].reverse();
    for (const [language, version] of [
      ["TypeScript", "1.1.0"],
      ["Go", "1.0.0"],
    ]) {
      const result = spawnSync("python3", ["-c", script], {
        input: JSON.stringify({ language, version, events }),
        encoding: "utf8",
      });
      expect(result.stderr).toBe("");
      expect(result.stdout.trim()).toBe(schemaHash(language!, version!, events));
    }
  });
});

describe("generateCode", () => {
  it("answers content, event count, hash and version per language", () => {
    const answer = generateCode("typescript", FIXTURE_EVENTS, AT);
    expect(answer).toEqual({
      content: generateTypeScript(FIXTURE_EVENTS, AT),
      eventCount: FIXTURE_EVENTS.length,
      schemaHash: schemaHash("TypeScript", "1.1.0", FIXTURE_EVENTS),
      generatorVersion: "1.1.0",
    });
    expect(generateCode("golang", [], AT)).toMatchObject({ eventCount: 0, generatorVersion: "1.0.0" });
    expect(generateCode("python", [], AT).schemaHash).toBe(schemaHash("Python", "1.0.0", []));
  });
});

describe("TypeScript output", () => {
  const content = generateTypeScript(FIXTURE_EVENTS, AT);

  it("has PostHog's header, imports and exports", () => {
    expect(content.startsWith("/**\n * GENERATED FILE - DO NOT EDIT\n")).toBe(true);
    expect(content).toContain(" * Generated at: 2026-11-26T03:00:00.000Z\n * Generator version: 1.1.0\n");
    expect(content).toContain(
      "import type { CaptureOptions, CaptureResult, PostHog as OriginalPostHog, Properties } from 'posthog-js'\n",
    );
    expect(content).toContain("export default posthog\nexport type { EventSchemas, TypedPostHog }\n");
    expect(content).toContain("export * from 'posthog-js'\n");
    expect(content).toContain("captureRaw(event_name: string, properties?: Properties | null");
  });

  it("maps every event to its properties' types, JSON-quoted, optional marked", () => {
    expect(content).toContain('    "$pageview": Record<string, any>\n');
    expect(content).toContain(
      '    "every type": {\n' +
        '        "s": string\n        "n": number\n        "b": boolean\n        "d": string | Date\n' +
        '        "a": any[]\n        "o": Record<string, any>\n        "os"?: string\n',
    );
    expect(content).toContain(
      '    "quote\\"s, back\\\\slash\\nand tab\\t!": {\n        "he said \\"hi\\"": string\n',
    );
    expect(content).toContain('    "dup": {\n        "x"?: string | number\n    }\n');
    expect(content).toContain('    "💳 paid": {\n        "€": number\n    }\n');
  });
});

describe("Go output", () => {
  const content = generateGo(FIXTURE_EVENTS, AT);

  it("has PostHog's header and package, imports in gofmt's order", () => {
    expect(
      content.startsWith(
        "// Code generated by PostHog - DO NOT EDIT.\n//\n// Generated at: 2026-11-26T03:00:00.000Z\n",
      ),
    ).toBe(true);
    expect(content).toContain(
      '\npackage typed\n\nimport (\n\t"github.com/posthog/posthog-go"\n\t"time"\n)\n',
    );
    expect(
      content.endsWith("// use options from one event with another event's capture functions.\n//\n"),
    ).toBe(true);
    expect(generateGo([{ name: "a", properties: null }], AT)).not.toContain('"time"');
    expect(generateGo([], AT)).not.toContain("import");
  });

  it("names events and options uniquely across the file", () => {
    expect(content).toContain(
      "func UserIdCapture(\n\tdistinctId string,\n\tplan string,\n\toptions ...UserIdOption,\n)",
    );
    expect(content).toContain(
      "func UserId2Capture(distinctId string, properties ...posthog.Properties) posthog.Capture {",
    );
    expect(content).toContain(
      "func Event1stPurchaseWith2ndItem(param2ndItem string) Event1stPurchaseOption {",
    );
    expect(content).toContain("func CafOrderedWithCaf(caf bool) CafOrderedOption {");
    expect(content).toContain("func PaidCapture(\n\tdistinctId string,\n\tvalue float64,\n");
    expect(content).toContain("func ClassCapture(\n\tdistinctId string,\n\ttype_ string,\n");
    expect(content).toContain("func FuncWithRange(range_ float64) FuncOption {");
    expect(content).toContain("func ImportCapture(distinctId string, properties ...posthog.Properties)");
    // An optional `extra_props` takes the name first, as golang.py orders them.
    expect(content).toContain("func SignedUpWithExtraProps(extraProps string) SignedUpOption {");
    expect(content).toContain("func SignedUpWithExtraProps2(props posthog.Properties) SignedUpOption {");
    expect(content).toContain("func SignedUpWithProp(value string) SignedUpOption {");
    const names = [...content.matchAll(/^func (\w+)\(/gm)].map((m) => m[1]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("keeps parameters off the names the bodies use, and off keywords", () => {
    const signedUp = /func SignedUpCapture\(\n([\s\S]*?)\n\) posthog.Capture/.exec(content)![1]!;
    expect(signedUp.split("\n").map((line) => line.trim())).toEqual([
      "distinctId string,",
      "base string,",
      "class string,",
      "distinctId2 string,",
      "func_ float64,",
      "import_ time.Time,",
      "options2 bool,",
      "posthog2 string,",
      "props2 string,",
      "range_ bool,",
      "type_ string,",
      "userId string,",
      "userId2 float64,",
      `${goParamName(LONG_KEY)} string,`,
      "z string,",
      "options ...SignedUpOption,",
    ]);
    expect(content).toContain("func SignedUpCaptureFromBase(\n\tbase posthog.Capture,\n\tbase2 string,\n");
    expect(content).toContain("func SignedUpWithC(c2 string) SignedUpOption {");
    expect(content).toContain("func SignedUpWithNil(nil_ string) SignedUpOption {");
    expect(content).toContain("func DupWithX(x interface{}) DupOption {");
  });

  it("aligns the required properties' map as gofmt does, a long key in a section of its own", () => {
    expect(content).toContain(
      '\t\t"user_id":     userId2,\n' +
        `\t\t"${LONG_KEY}": ${goParamName(LONG_KEY)},\n` +
        '\t\t"z": z,\n\t}\n',
    );
    expect(content).toContain("\tprops := posthog.Properties{}\n\n\tc := posthog.Capture{\n");
  });
});

describe("Python output", () => {
  const content = generatePython(FIXTURE_EVENTS, AT);

  it("has PostHog's docstring and imports", () => {
    expect(content.startsWith('"""\nGENERATED FILE - DO NOT EDIT\n')).toBe(true);
    expect(content).toContain("Generated at: 2026-11-26T03:00:00.000Z\nGenerator version: 1.0.0\n");
    expect(content).toContain(
      '"""\nfrom datetime import datetime\nfrom typing import Any, Dict, Literal, Optional, TypedDict, Union, overload\n',
    );
    expect(content).toContain("import posthog as _posthog\nfrom posthog.args import OptionalCaptureArgs\n");
    const plain = generatePython([{ name: "a", properties: null }], AT);
    expect(plain).toContain('"""\nfrom typing import Any, Dict, Literal, Optional, TypedDict, overload\n');
  });

  it("writes one TypedDict per event, required first, names made identifiers and mapped back", () => {
    expect(content).toContain(
      'class Event1stPurchaseProps(TypedDict, total=False):\n    """Properties for the `1st purchase` event"""\n' +
        "    amount: Required[float]\n    prop_2nd_item: NotRequired[str]\n    currency: NotRequired[str]\n",
    );
    expect(content).toContain("class UserIdProps(TypedDict, total=False):\n");
    expect(content).toContain(
      'class UserIdProps_2(TypedDict, total=False):\n    """Properties for the `user_id` event (no schema defined)"""\n    pass\n',
    );
    expect(content).toContain("    class_: Required[str]\n");
    expect(content).toContain("    user_id: Required[str]\n    user_id_2: Required[float]\n");
    expect(content).toContain("    None_: NotRequired[bool]\n");
    expect(content).toContain("    x: NotRequired[Union[str, float]]\n");
    expect(content).toContain('    "signed up": {\n        "None_": "None",\n        "class_": "class",\n');
    expect(content).toContain(
      '        "user_id": "user-id",\n        "user_id_2": "user_id",\n        "value": "!!!",\n',
    );
    expect(content).toContain('    "quote\\"s, back\\\\slash\\nand tab\\t!": {\n        "a_b": "a\\\\b",\n');
  });

  it("writes an overload per event: its TypedDict, optional when nothing is required, any properties without a schema", () => {
    expect(content).toContain(
      '    event: Literal["1st purchase"],\n    *,\n    properties: Event1stPurchaseProps,\n',
    );
    expect(content).toContain(
      '    event: Literal["$screen"],\n    *,\n    properties: Optional[ScreenProps] = ...,\n',
    );
    expect(content).toContain(
      '    event: Literal["user_id"],\n    *,\n    properties: Optional[Dict[str, Any]] = ...,\n',
    );
    expect(content.match(/^@overload$/gm)).toHaveLength(FIXTURE_EVENTS.length);
  });
});
