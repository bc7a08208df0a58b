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
  pythonIdentifier,
  pythonMethodName,
  uniqueName,
} from "../../../src/event-definitions/codegen/identifiers.js";
import { generateCode } from "../../../src/event-definitions/codegen/index.js";
import {
  type CodegenEvent,
  compareCodePoints,
  mergeProperties,
  type SchemaPropertyType,
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

  it("makes Python names as python.py: `capture_` snake method names, snake identifiers, `_` after keywords", () => {
    // PostHog's test_python.py cases (`_to_method_name`, `_to_python_identifier`).
    for (const [event, method] of [
      ["downloaded_file", "capture_downloaded_file"],
      ["user-signed-up", "capture_user_signed_up"],
      ["$pageview", "capture_pageview"],
      ["API-Request", "capture_api_request"],
      ["test_123", "capture_test_123"],
      ["___test___", "capture_test"],
      ["", "capture_event"],
      ["123_start", "capture_event_123_start"],
      ["123456", "capture_event_123456"],
      ["dashboard mode toggled", "capture_dashboard_mode_toggled"],
    ]) {
      expect(pythonMethodName(event!), event).toBe(method);
    }
    expect(pythonMethodName("café ordered")).toBe("capture_caf_ordered");
    for (const [property, identifier] of [
      ["file_name", "file_name"],
      ["user-id", "user_id"],
      ["test_123", "test_123"],
      ["", "value"],
      ["   ", "value"],
      ["class", "class_"],
      ["def", "def_"],
      ["import", "import_"],
      ["multi part argument", "multi_part_argument"],
      ["name_", "name"],
      ["user-id_name", "user_id_name"],
      ["_private", "private"],
      ["123test", "prop_123test"],
      ["$name@#$value", "name_value"],
      ["@#$%", "value"],
    ]) {
      expect(pythonIdentifier(property!), property).toBe(identifier);
    }
    expect(pythonIdentifier("__dunder__")).toBe("dunder");
    expect(pythonIdentifier("größe")).toBe("gr_e");
    expect(pythonIdentifier("€")).toBe("value");
    for (const keyword of ["None", "lambda"]) expect(pythonIdentifier(keyword)).toBe(`${keyword}_`);
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
    expect(content).toContain(
      "\n}\n\n// USAGE GUIDE:\n//\n// 1. Please store this file in a folder called `typed`",
    );
    expect(
      content.endsWith(
        '// err := posthog.Enqueue(typed.UserSignedUpCapture("user_456", "user@example.com", "premium"))\n// ```\n',
      ),
    ).toBe(true);
    expect(generateGo([{ name: "a", properties: null }], AT)).not.toContain('"time"');
    expect(generateGo([], AT)).not.toContain("import");
  });

  it("writes Capture and CaptureFromBase for an event without a schema, as golang.py does", () => {
    // PostHog's test_golang.py `test_generate_event_without_properties`, byte for byte.
    const simple = generateGo([{ name: "simple_click", properties: null }], AT);
    expect(simple).toContain(
      `
// SimpleClickCapture creates a capture for the "simple_click" event.
// This event has no defined schema properties.
func SimpleClickCapture(distinctId string, properties ...posthog.Properties) posthog.Capture {
\tprops := posthog.Properties{}
\tfor _, p := range properties {
\t\tfor k, v := range p {
\t\t\tprops[k] = v
\t\t}
\t}

\treturn posthog.Capture{
\t\tDistinctId: distinctId,
\t\tEvent:      "simple_click",
\t\tProperties: props,
\t}
}

// SimpleClickCaptureFromBase creates a posthog.Capture for the "simple_click" event
// starting from an existing base capture. The event name is overridden, and
// any additional properties can be passed via the properties parameter.
func SimpleClickCaptureFromBase(base posthog.Capture, properties ...posthog.Properties) posthog.Capture {
\tprops := posthog.Properties{}
\tfor _, p := range properties {
\t\tfor k, v := range p {
\t\t\tprops[k] = v
\t\t}
\t}

\tbase.Event = "simple_click"
\tif base.Properties == nil {
\t\tbase.Properties = posthog.Properties{}
\t}
\tbase.Properties = base.Properties.Merge(props)

\treturn base
}

// USAGE GUIDE:
`,
    );
  });

  it("names events and options uniquely across the file", () => {
    expect(content).toContain(
      "func UserIdCapture(\n\tdistinctId string,\n\tplan string,\n\toptions ...UserIdOption,\n)",
    );
    expect(content).toContain(
      "func UserId2Capture(distinctId string, properties ...posthog.Properties) posthog.Capture {",
    );
    expect(content).toContain(
      "func UserId2CaptureFromBase(base posthog.Capture, properties ...posthog.Properties) posthog.Capture {",
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
  /** The method generated for `event`, from its `def` to its `return` line. */
  const method = (event: CodegenEvent, used: CodegenEvent[] = []) => {
    const module = generatePython([...used, event], AT);
    const methods = module.split("\n\n    def ").slice(1);
    return `    def ${methods[methods.length - 1]!.trimEnd()}`;
  };
  const property = (name: string, propertyType: SchemaPropertyType, isRequired: boolean) => ({
    name,
    propertyType,
    isRequired,
  });

  it("has PostHog's docstring, imports and class", () => {
    expect(
      content.startsWith('"""\nGENERATED FILE - DO NOT EDIT\n\nThis file was auto-generated by PostHog\n'),
    ).toBe(true);
    expect(content).toContain("Generated at: 2026-11-26T03:00:00.000Z\nGenerator version: 1.0.0\n");
    expect(content).toContain("Provides type-safe event tracking via capture_<event_name>() methods.\n");
    expect(content).toContain(
      '"""\nfrom datetime import datetime\nfrom typing import Any, Dict, List, Optional\n\n' +
        "from typing_extensions import Unpack\n\nfrom posthog import Posthog\nfrom posthog.args import OptionalCaptureArgs\n\n\n" +
        'class PosthogTyped(Posthog):\n    """\n    A type-safe PostHog client with per-event capture methods.\n',
    );
    expect(content.match(/^ {4}def capture_/gm)).toHaveLength(FIXTURE_EVENTS.length);
    const plain = generatePython([{ name: "a", properties: null }], AT);
    expect(plain).toContain('"""\nfrom typing import Any, Dict, List, Optional\n');
  });

  it("writes `pass` for a project without events (test_full_generation_empty_output)", () => {
    const empty = generatePython([], AT);
    expect(empty).not.toContain("from datetime import datetime");
    expect(
      empty.endsWith(
        `class PosthogTyped(Posthog):
    """
    A type-safe PostHog client with per-event capture methods.

    Drop-in replacement for Posthog that provides IDE autocomplete
    and type checking via capture_<event_name>() methods.
    """

    pass
`,
      ),
    ).toBe(true);
  });

  // PostHog's test_python.py `_generate_capture_method` cases, byte for byte.
  it("writes an event without a schema as python.py does", () => {
    expect(method({ name: "simple_event", properties: null })).toBe(`    def capture_simple_event(
        self,
        *,
        extra_properties: Optional[Dict[str, Any]] = None,
        **kwargs: Unpack[OptionalCaptureArgs],
    ) -> Optional[str]:
        """Capture a \`simple_event\` event."""
        return self.capture("simple_event", properties=extra_properties, **kwargs)`);
  });

  it("writes an event of optional properties only as python.py does", () => {
    const event = {
      name: "file_downloaded",
      properties: [property("label", "String", false), property("value", "Numeric", false)],
    };
    expect(method(event)).toBe(`    def capture_file_downloaded(
        self,
        *,
        # Optional event properties
        label: Optional[str] = None,
        value: Optional[float] = None,
        # Additional untyped properties
        extra_properties: Optional[Dict[str, Any]] = None,
        # SDK kwargs (distinct_id, timestamp, etc.)
        **kwargs: Unpack[OptionalCaptureArgs],
    ) -> Optional[str]:
        """Capture a \`file_downloaded\` event with type-safe properties."""
        properties: Dict[str, Any] = {}
        if label is not None:
            properties["label"] = label
        if value is not None:
            properties["value"] = value
        if extra_properties is not None:
            properties.update(extra_properties)
        return self.capture("file_downloaded", properties=properties, **kwargs)`);
  });

  it("suffixes a method name taken by an earlier event", () => {
    const first = { name: "file_downloaded", properties: null };
    expect(method({ name: "file-downloaded", properties: null }, [first])).toContain(
      '    def capture_file_downloaded_2(\n        self,\n        *,\n        extra_properties: Optional[Dict[str, Any]] = None,\n        **kwargs: Unpack[OptionalCaptureArgs],\n    ) -> Optional[str]:\n        """Capture a `file-downloaded` event."""\n        return self.capture("file-downloaded", properties=extra_properties, **kwargs)',
    );
  });

  it("writes required then optional properties, by name, names made identifiers and suffixed, as python.py does", () => {
    const event = {
      name: "file_downloaded",
      properties: [
        property("file_name", "String", true),
        property("file_size", "Numeric", true),
        property("file-size", "Array", true),
        property("file_extension", "String", false),
        property("label", "String", false),
        property("value", "Numeric", false),
        property('foo"bar', "String", true),
        property("class", "String", false),
      ],
    };
    expect(method(event)).toBe(`    def capture_file_downloaded(
        self,
        *,
        # Required event properties
        file_size: List[Any],
        file_name: str,
        file_size_2: float,
        foo_bar: str,
        # Optional event properties
        class_: Optional[str] = None,
        file_extension: Optional[str] = None,
        label: Optional[str] = None,
        value: Optional[float] = None,
        # Additional untyped properties
        extra_properties: Optional[Dict[str, Any]] = None,
        # SDK kwargs (distinct_id, timestamp, etc.)
        **kwargs: Unpack[OptionalCaptureArgs],
    ) -> Optional[str]:
        """Capture a \`file_downloaded\` event with type-safe properties."""
        properties: Dict[str, Any] = {"file-size": file_size, "file_name": file_name, "file_size": file_size_2, "foo\\"bar": foo_bar}
        if class_ is not None:
            properties["class"] = class_
        if file_extension is not None:
            properties["file_extension"] = file_extension
        if label is not None:
            properties["label"] = label
        if value is not None:
            properties["value"] = value
        if extra_properties is not None:
            properties.update(extra_properties)
        return self.capture("file_downloaded", properties=properties, **kwargs)`);
  });

  it("escapes names as JSON in literals and docstrings (test_full_generation_output)", () => {
    const event = {
      name: 'simple_"event',
      properties: [
        property("user_id", "String", true),
        property("c'ount", "Numeric", false),
        property("file-name", "String", true),
        property("file_name", "Object", true),
        property("created_at", "DateTime", false),
        property("optional_items", "Array", false),
      ],
    };
    const module = generatePython([event], AT);
    expect(module).toContain("from datetime import datetime\n");
    expect(method(event)).toBe(`    def capture_simple_event(
        self,
        *,
        # Required event properties
        file_name: str,
        file_name_2: Dict[str, Any],
        user_id: str,
        # Optional event properties
        c_ount: Optional[float] = None,
        created_at: Optional[datetime] = None,
        optional_items: Optional[List[Any]] = None,
        # Additional untyped properties
        extra_properties: Optional[Dict[str, Any]] = None,
        # SDK kwargs (distinct_id, timestamp, etc.)
        **kwargs: Unpack[OptionalCaptureArgs],
    ) -> Optional[str]:
        """Capture a \`simple_\\"event\` event with type-safe properties."""
        properties: Dict[str, Any] = {"file-name": file_name, "file_name": file_name_2, "user_id": user_id}
        if c_ount is not None:
            properties["c'ount"] = c_ount
        if created_at is not None:
            properties["created_at"] = created_at
        if optional_items is not None:
            properties["optional_items"] = optional_items
        if extra_properties is not None:
            properties.update(extra_properties)
        return self.capture("simple_\\"event", properties=properties, **kwargs)`);
    expect(content).toContain(
      '        return self.capture("quote\\"s, back\\\\slash\\nand tab\\t!", properties=properties, **kwargs)',
    );
  });

  it("writes a name declared twice as two parameters, as python.py does", () => {
    expect(content).toContain(
      "        x: str,\n        # Optional event properties\n        x_2: Optional[float] = None,\n",
    );
    expect(content).toContain(
      '        properties: Dict[str, Any] = {"x": x}\n        if x_2 is not None:\n            properties["x"] = x_2\n',
    );
  });

  it("keeps parameters off the method's own names and the SDK's arguments, methods off the client's attributes", () => {
    const exception = /def capture_exception_2\(\n([\s\S]*?)\n {4}\) -> Optional\[str\]:/.exec(content)![1]!;
    expect(exception.split("\n").map((line) => line.trim())).toEqual([
      "self,",
      "*,",
      "# Required event properties",
      "kwargs_2: float,",
      "self_2: str,",
      "str_2: str,",
      "timestamp_2: datetime,",
      "# Optional event properties",
      "Dict_2: Optional[bool] = None,",
      "extra_properties_2: Optional[Dict[str, Any]] = None,",
      "properties_2: Optional[List[Any]] = None,",
      "uuid_2: Optional[str] = None,",
      "# Additional untyped properties",
      "extra_properties: Optional[Dict[str, Any]] = None,",
      "# SDK kwargs (distinct_id, timestamp, etc.)",
      "**kwargs: Unpack[OptionalCaptureArgs],",
    ]);
    expect(content).toContain(
      '        properties: Dict[str, Any] = {"kwargs": kwargs_2, "self": self_2, "str": str_2, "timestamp": timestamp_2}\n',
    );
    expect(content).toContain("        distinct_id_2: str,\n");
    expect(content).toContain('"distinct_id": distinct_id_2');
    expect(content).toContain("    def capture_mode_2(\n");
    expect(content).toContain('        """Capture a `mode` event."""\n        return self.capture("mode", ');
    expect(content).toContain("    def capture_user_id(\n");
    expect(content).toContain("    def capture_user_id_2(\n");
  });
});
