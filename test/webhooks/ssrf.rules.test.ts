/** The address rules of webhook deliveries (src/webhooks/delivery/ssrf.ts) and the URL rules at save time. */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import { isAllowedAddress, RefusedTargetError, resolveTarget } from "../../src/webhooks/delivery/ssrf.js";
import { checkWebhookUrl } from "../../src/webhooks/rules/url.js";

describe("isAllowedAddress", () => {
  it("allows public unicast addresses only", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isAllowedAddress(address, false), address).toBe(true);
    }
    for (const address of [
      "127.0.0.1",
      "127.1.2.3",
      "::1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.0.1",
      "100.64.0.1",
      "169.254.169.254",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "224.0.0.1",
      "ff02::1",
      "0.0.0.0",
      "::",
      "255.255.255.255",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "::ffff:169.254.169.254",
      "64:ff9b::a00:1",
      "2002:a00:1::1",
      "192.0.2.1",
      "not-an-address",
    ]) {
      expect(isAllowedAddress(address, false), address).toBe(false);
    }
  });

  it("allows loopback only when the setting says so, and nothing else private", () => {
    expect(isAllowedAddress("127.0.0.1", true)).toBe(true);
    expect(isAllowedAddress("::1", true)).toBe(true);
    expect(isAllowedAddress("::ffff:127.0.0.1", true)).toBe(true);
    expect(isAllowedAddress("10.0.0.1", true)).toBe(false);
    expect(isAllowedAddress("169.254.169.254", true)).toBe(false);
  });

  it("judges every address a name resolves to", async () => {
    await expect(resolveTarget("localhost", false)).rejects.toBeInstanceOf(RefusedTargetError);
    await expect(resolveTarget("[::1]", false)).rejects.toThrow("address ::1 is loopback");
    await expect(resolveTarget("127.0.0.1", true)).resolves.toEqual({ address: "127.0.0.1", family: 4 });
    await expect(resolveTarget("no-such-host.invalid", false)).rejects.toThrow(/could not resolve/);
  });
});

describe("checkWebhookUrl", () => {
  it("keeps http(s) URLs and refuses other schemes and credentials (attr url)", () => {
    expect(checkWebhookUrl("https://Hooks.Example.com/a?b=1")).toBe("https://hooks.example.com/a?b=1");
    for (const url of [
      "ftp://x.example/",
      "data:text/plain,hi",
      "http://a:b@x.example/",
      "//x.example/",
      "x",
    ]) {
      expect(() => checkWebhookUrl(url), url).toThrow(ValidationError);
      try {
        checkWebhookUrl(url);
      } catch (error) {
        expect((error as ValidationError).attr, url).toBe("url");
      }
    }
  });
});
