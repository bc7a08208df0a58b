/**
 * Metric fingerprints (src/experiments/rules/fingerprint.ts) against the three SHA-256 vectors of
 * query-and-experiments.md 2a (computed with PostHog's Python), and the Python `json.dumps` details
 * they rest on: sorted keys by code point, ensure_ascii, floats written as `repr(float)`.
 */
import { describe, expect, it } from "vitest";
import {
  computeMetricFingerprint,
  jsonTextWithNumbers,
  parseJsonNumbers,
  pythonFloatRepr,
  pythonJsonDumps,
} from "../../../src/experiments/rules/fingerprint.js";

const metric = (text: string) => parseJsonNumbers(text) as Record<string, unknown>;

describe("metric fingerprints", () => {
  const mean =
    '{"kind":"ExperimentMetric","metric_type":"mean","source":{"kind":"EventsNode","event":"purchase"},"uuid":"abc","name":"Revenue"}';

  it("matches vector 1: a mean metric, a datetime start, a stats config, no exposure criteria", () => {
    expect(
      computeMetricFingerprint(metric(mean), new Date(Date.UTC(2024, 0, 1)), { method: "bayesian" }, null),
    ).toBe("9b71c1c6348a8cb829b9af8681b468ad3a0f96e912de8776e3455f96233d4c19");
  });

  it("matches vector 2: no stats config, exposure criteria included when truthy", () => {
    expect(
      computeMetricFingerprint(metric(mean), new Date(Date.UTC(2024, 0, 1)), null, {
        filterTestAccounts: true,
      }),
    ).toBe("9104300017dc8808986385bc96397c6cf3a4f95e5c88539a16b2d806ee41e65a");
  });

  it("matches vector 3: a funnel with a non-ASCII event and a float window, a string start, empty exposure left out", () => {
    const funnel =
      '{"kind":"ExperimentMetric","metric_type":"funnel","series":[{"kind":"EventsNode","event":"café"}],"goal":"increase","conversion_window":1.0}';
    expect(
      computeMetricFingerprint(metric(funnel), "2024-01-01T00:00:00Z", { method: "frequentist" }, {}),
    ).toBe("c89f3115464fb1c02d767e5fed73b034493453f9a004eb71d28b261e78999662");
    // Parsed by JSON.parse, 1.0 becomes 1: the hash would differ, which is why the text is kept.
    expect(
      computeMetricFingerprint(JSON.parse(funnel), "2024-01-01T00:00:00Z", { method: "frequentist" }, {}),
    ).not.toBe("c89f3115464fb1c02d767e5fed73b034493453f9a004eb71d28b261e78999662");
  });

  it("writes values as Python's json.dumps(sort_keys=True, separators=(',', ':'))", () => {
    expect(
      pythonJsonDumps(
        parseJsonNumbers('{"b":1,"a":[1.0,2.50,1e3,-0,12345678901234567890],"é":"\\u2028\\n"}'),
      ),
    ).toBe('{"a":[1.0,2.5,1000.0,0,12345678901234567890],"b":1,"\\u00e9":"\\u2028\\n"}');
    expect([1e16, 1e-5, 0.0001, 123.456, 1.5e300, 100].map(pythonFloatRepr)).toEqual([
      "1e+16",
      "1e-05",
      "0.0001",
      "123.456",
      "1.5e+300",
      "100.0",
    ]);
    // Keys by code point: an astral character sorts after U+FFFF, not between surrogates.
    expect(pythonJsonDumps({ "\u{1F600}": 1, "\uFFFF": 2 })).toBe('{"\\uffff":2,"\\ud83d\\ude00":1}');
  });

  it("keeps number tokens when written back as JSON text", () => {
    expect(jsonTextWithNumbers(parseJsonNumbers('{"w":1.0,"s":"1.0","l":[2.50]}'))).toBe(
      '{"w":1.0,"s":"1.0","l":[2.50]}',
    );
  });
});
