/** The address rules of webhook deliveries (src/webhooks/delivery/ssrf.ts) and the URL rules at save time. */
import ipaddr from "ipaddr.js";
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

  it("judges every address a name resolves to, and names none of them when it refuses", async () => {
    const refusal = "refused target localhost: does not resolve to public addresses only";
    await expect(resolveTarget("localhost", false)).rejects.toThrow(new RefusedTargetError(refusal));
    // A name that does not resolve is refused in the same words: the log tells nothing of the DNS.
    await expect(resolveTarget("no-such-host.invalid", false)).rejects.toThrow(
      new RefusedTargetError(
        "refused target no-such-host.invalid: does not resolve to public addresses only",
      ),
    );
    await expect(resolveTarget("[::1]", false)).rejects.toThrow(
      new RefusedTargetError("refused target ::1: not a public address"),
    );
    await expect(resolveTarget("127.0.0.1", true)).resolves.toEqual({ address: "127.0.0.1", family: 4 });
    await expect(resolveTarget("localhost", true)).resolves.toMatchObject({ address: expect.any(String) });
  });
});

/** The 16 bytes of an IPv6 address: `prefix` bytes, zeros, then `tail` at `offsets`. */
function ipv6Bytes(prefix: readonly number[], tail: readonly number[], offsets: readonly number[]): number[] {
  const bytes = Array.from({ length: 16 }, (_, i) => prefix[i] ?? 0);
  offsets.forEach((offset, i) => {
    bytes[offset] = tail[i]!;
  });
  return bytes;
}

/**
 * Ways to write the IPv6 address of `bytes`: compressed, expanded, zero-padded, upper-case, with the
 * last 32 bits as a dotted quad (compressed and expanded), with a zone id, and in brackets.
 */
function spellings(bytes: readonly number[]): string[] {
  const words = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  const compressed = ipaddr.fromByteArray([...bytes]).toString();
  const quad = bytes.slice(12).join(".");
  const head = words.slice(0, 6).map((word) => word.toString(16));
  // The first 96 bits compressed as in any spelling: the last 32, non-zero here, stay apart from the run.
  const compressedHead = ipaddr
    .fromByteArray([...bytes.slice(0, 12), 0xff, 0xff, 0xff, 0xff])
    .toString()
    .replace(/ffff:ffff$/, "");
  return [
    compressed,
    words.map((word) => word.toString(16)).join(":"),
    words.map((word) => word.toString(16).padStart(4, "0")).join(":"),
    compressed.toUpperCase(),
    `${head.join(":")}:${quad}`,
    `${compressedHead}${quad}`,
    `${compressed}%eth0`,
    `[${compressed}]`,
  ];
}

/** Every IPv6 form that embeds `v4` (dotted quad), each form in every spelling. */
function embeddings(v4: string): Array<{ form: string; addresses: string[] }> {
  const octets = v4.split(".").map(Number);
  const inverted = octets.map((octet) => octet ^ 0xff);
  const last32 = [12, 13, 14, 15];
  const publicServer = [8, 8, 8, 8];
  return [
    { form: "IPv4-compatible ::/96", bytes: ipv6Bytes([], octets, last32) },
    {
      form: "IPv4-mapped ::ffff:0:0/96",
      bytes: ipv6Bytes([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], octets, last32),
    },
    {
      form: "IPv4-translated ::ffff:0:0:0/96",
      bytes: ipv6Bytes([0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], octets, last32),
    },
    { form: "NAT64 64:ff9b::/96", bytes: ipv6Bytes([0, 0x64, 0xff, 0x9b], octets, last32) },
    {
      form: "local NAT64 64:ff9b:1::/48 (/96)",
      bytes: ipv6Bytes([0, 0x64, 0xff, 0x9b, 0, 1], octets, last32),
    },
    { form: "local NAT64 (/64)", bytes: ipv6Bytes([0, 0x64, 0xff, 0x9b, 0, 1], octets, [9, 10, 11, 12]) },
    { form: "local NAT64 (/56)", bytes: ipv6Bytes([0, 0x64, 0xff, 0x9b, 0, 1], octets, [7, 9, 10, 11]) },
    { form: "local NAT64 (/48)", bytes: ipv6Bytes([0, 0x64, 0xff, 0x9b, 0, 1], octets, [6, 7, 9, 10]) },
    { form: "6to4 2002::/16", bytes: ipv6Bytes([0x20, 0x02, ...octets], [1], [15]) },
    {
      form: "Teredo 2001::/32 client",
      bytes: ipv6Bytes([0x20, 0x01, 0, 0, ...publicServer], inverted, last32),
    },
    {
      form: "Teredo 2001::/32 server",
      bytes: ipv6Bytes(
        [0x20, 0x01, 0, 0, ...octets],
        publicServer.map((octet) => octet ^ 0xff),
        last32,
      ),
    },
  ].map(({ form, bytes }) => ({ form, addresses: spellings(bytes) }));
}

/** `isAllowedAddress` on a spelling as a URL host may give it (brackets stripped, as `resolveTarget` does). */
const allowed = (address: string, allowLoopback: boolean) =>
  isAllowedAddress(address.replace(/^\[(.*)\]$/, "$1"), allowLoopback);

describe("IPv6 addresses that embed an IPv4 address", () => {
  const refusedTargets = {
    loopback: "127.0.0.1",
    "loopback (127/8)": "127.9.8.7",
    "private 10/8": "10.0.0.1",
    "private 172.16/12": "172.16.5.4",
    "private 192.168/16": "192.168.1.1",
    "link-local": "169.254.1.1",
    "cloud metadata": "169.254.169.254",
    "carrier-grade NAT": "100.64.0.1",
    unspecified: "0.0.0.0",
  };

  it("are judged by that address in every form and spelling", () => {
    for (const [target, v4] of Object.entries(refusedTargets)) {
      for (const { form, addresses } of embeddings(v4)) {
        for (const address of addresses)
          expect(allowed(address, false), `${target}, ${form}: ${address}`).toBe(false);
      }
    }
  });

  it("allow a public embedded address, but local-use NAT64, whose layout the prefix does not fix", () => {
    for (const { form, addresses } of embeddings("8.8.8.8")) {
      for (const address of addresses) {
        expect(allowed(address, false), `${form}: ${address}`).toBe(!form.startsWith("local NAT64"));
      }
    }
  });

  it("keep WEBHOOK_ALLOW_LOOPBACK's meaning: loopback in any form, nothing else private", () => {
    for (const { form, addresses } of embeddings("127.0.0.1")) {
      if (form.startsWith("local NAT64")) continue;
      for (const address of addresses) expect(allowed(address, true), `${form}: ${address}`).toBe(true);
    }
    for (const v4 of ["10.0.0.1", "169.254.169.254", "100.64.0.1"]) {
      for (const { form, addresses } of embeddings(v4)) {
        for (const address of addresses)
          expect(allowed(address, true), `${v4}, ${form}: ${address}`).toBe(false);
      }
    }
    expect(isAllowedAddress("::1", true)).toBe(true);
    expect(isAllowedAddress("::", true)).toBe(false);
  });

  it("are refused as targets whatever the URL's spelling, naming no address", async () => {
    for (const url of [
      "http://[::127.0.0.1]/",
      "http://[::7f00:1]:8080/x",
      "http://[0:0:0:0:0:0:127.0.0.1]/",
      "http://[::FFFF:A9FE:A9FE]/latest/meta-data/",
      "http://[64:ff9b::10.0.0.1]/",
      "http://[2002:c0a8:101::1]/",
      "http://[2001:0:808:808::9bbf:fffe]/",
    ]) {
      const host = new URL(url).hostname;
      await expect(resolveTarget(host, false), url).rejects.toThrow(
        new RefusedTargetError(`refused target ${host.slice(1, -1)}: not a public address`),
      );
    }
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
