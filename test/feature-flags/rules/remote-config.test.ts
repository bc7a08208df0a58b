/** A remote-configuration flag's payload (posthog/api/feature_flag.py `remote_config`, §2.10). */
import { describe, expect, it } from "vitest";
import { remoteConfigPayload } from "../../../src/feature-flags/rules/remote-config.js";

const remote = (filters: unknown) => remoteConfigPayload({ isRemoteConfiguration: true, filters });

describe("remoteConfigPayload", () => {
  it("is undefined for a flag that is not a remote configuration", () => {
    expect(
      remoteConfigPayload({ isRemoteConfiguration: false, filters: { payloads: { true: "1" } } }),
    ).toBeUndefined();
  });

  it("is the stored payload of `true` as is", () => {
    expect(remote({ payloads: { true: '{"a": 1}' } })).toBe('{"a": 1}');
    expect(remote({ payloads: { true: [1] } })).toEqual([1]);
  });

  it("is null when the payload is absent or falsy, as PostHog's `or None`", () => {
    for (const filters of [
      null,
      {},
      { payloads: null },
      { payloads: { false: "1" } },
      { payloads: { true: "" } },
      { payloads: { true: 0 } },
    ]) {
      expect(remote(filters)).toBeNull();
    }
  });
});
