/**
 * Where a delivery may go (server-side request forgery, PostHog CVE-2024-9710): only public unicast
 * addresses. A name is resolved once (every address, `dns.lookup` with `all`), every address must
 * pass, and the request then connects to the checked address only (./send.ts hands it to the socket
 * through `lookup`), so a second resolution cannot swap in another target (DNS rebinding).
 *
 * Refused: private (10/8, 172.16/12, 192.168/16), carrier-grade NAT (100.64/10), loopback (127/8,
 * ::1), link-local (169.254/16 with the cloud metadata address, fe80::/10), unique-local (fc00::/7),
 * multicast, broadcast, unspecified (0.0.0.0/8, ::), reserved and documentation ranges. Ranges come
 * from ipaddr.js's tables. An IPv6 address that embeds an IPv4 address is judged by it, so that a
 * gateway or tunnel cannot carry a delivery to a refused IPv4 target (`embeddedIPv4`). Loopback
 * alone can be allowed, by `WEBHOOK_ALLOW_LOOPBACK` (tests).
 *
 * A refusal says the target is not public and nothing else: not the address a name resolved to,
 * not its range, not whether it resolved at all. The delivery log is read by whoever may read the
 * webhook, and would otherwise tell them what the server's DNS answers for internal names.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** An address a delivery may connect to. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/** A target refused before any connection; its message goes to the delivery log. */
export class RefusedTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RefusedTargetError";
  }
}

/** IPv4-compatible addresses (RFC 4291 §2.5.5.1, deprecated): the IPv4 address in the last 32 bits. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");
/** The well-known NAT64 prefix (RFC 6052): the IPv4 address in the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");

/**
 * Where an IPv4 address sits behind a NAT64 prefix of each length ≥ 48 (RFC 6052 §2.2, byte offsets;
 * byte 8, bits 64–71, is always skipped). A local-use prefix (64:ff9b:1::/48, RFC 8215) may be any
 * of these lengths, chosen by the network's operator.
 */
const NAT64_OFFSETS = [
  [6, 7, 9, 10],
  [7, 9, 10, 11],
  [9, 10, 11, 12],
  [12, 13, 14, 15],
];

/** The IPv4 address of `bytes` at `offsets`, each byte XORed with `mask`. */
function ipv4At(bytes: readonly number[], offsets: readonly number[], mask = 0): ipaddr.IPv4 {
  return new ipaddr.IPv4(offsets.map((offset) => bytes[offset]! ^ mask));
}

/**
 * The IPv4 addresses `address` carries a delivery to, or null when it embeds none:
 * IPv4-compatible (::/96, but `::` and `::1`), IPv4-mapped (::ffff:0:0/96) and IPv4-translated
 * (::ffff:0:0:0/96, RFC 6145): the last 32 bits; NAT64 (64:ff9b::/96): the last 32 bits; local-use
 * NAT64 (64:ff9b:1::/48): the address at every position its prefix length may put it; 6to4
 * (2002::/16, RFC 3056): bits 16–47; Teredo (2001::/32, RFC 4380): the server (bits 32–63) and the
 * client, stored inverted in the last 32 bits.
 * (ipaddr.js reads the mixed spelling `::a.b.c.d` as IPv4-mapped rather than IPv4-compatible: both
 * embed the same address, so the verdict is the same.)
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const bytes = address.toByteArray();
  const last32 = [12, 13, 14, 15];
  const range = address.range();
  if (range === "unicast" && address.match(IPV4_COMPATIBLE)) return [ipv4At(bytes, last32)];
  switch (range) {
    case "ipv4Mapped":
    case "rfc6145":
      return [ipv4At(bytes, last32)];
    case "rfc6052":
      return address.match(NAT64_WELL_KNOWN)
        ? [ipv4At(bytes, last32)]
        : NAT64_OFFSETS.map((offsets) => ipv4At(bytes, offsets));
    case "6to4":
      return [ipv4At(bytes, [2, 3, 4, 5])];
    case "teredo":
      return [ipv4At(bytes, [4, 5, 6, 7]), ipv4At(bytes, last32, 0xff)];
    default:
      return null;
  }
}

/**
 * Whether a delivery may connect to `address` (an IPv4 or IPv6 literal, any spelling, a zone id
 * allowed): a public unicast one, or loopback when allowed; an IPv6 address that embeds IPv4
 * addresses is judged by them (`embeddedIPv4`).
 */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  const judged = parsed.kind() === "ipv6" ? (embeddedIPv4(parsed as ipaddr.IPv6) ?? [parsed]) : [parsed];
  return judged.every((one) => {
    const range = one.range();
    return range === "unicast" || (allowLoopback && range === "loopback");
  });
}

/**
 * The address to connect to for `hostname` (a name, or an IPv4/IPv6 literal with or without
 * brackets): the first of its resolved addresses, once every one of them passed `isAllowedAddress`.
 * @throws RefusedTargetError `refused target <host>: not a public address` for a literal, `…: does
 *   not resolve to public addresses only` for a name, whether it resolved to a refused address or
 *   not at all (see the module comment).
 */
export async function resolveTarget(hostname: string, allowLoopback: boolean): Promise<CheckedAddress> {
  const host = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  const family = isIP(host);
  if (family !== 0) {
    if (!isAllowedAddress(host, allowLoopback)) {
      throw new RefusedTargetError(`refused target ${host}: not a public address`);
    }
    return { address: host, family: family === 6 ? 6 : 4 };
  }
  const refused = new RefusedTargetError(`refused target ${host}: does not resolve to public addresses only`);
  const addresses = await lookup(host, { all: true, verbatim: true }).catch(() => []);
  if (addresses.length === 0) throw refused;
  if (!addresses.every(({ address }) => isAllowedAddress(address, allowLoopback))) throw refused;
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
