/**
 * Where a delivery may go (server-side request forgery, PostHog CVE-2024-9710): only public unicast
 * addresses. A name is resolved once (every address, `dns.lookup` with `all`), every address must
 * pass, and the request then connects to the checked address only (./send.ts hands it to the socket
 * through `lookup`), so a second resolution cannot swap in another target (DNS rebinding).
 *
 * Refused: private (10/8, 172.16/12, 192.168/16), carrier-grade NAT (100.64/10), loopback (127/8,
 * ::1), link-local (169.254/16 with the cloud metadata address, fe80::/10), unique-local (fc00::/7),
 * multicast, broadcast, unspecified (0.0.0.0/8, ::), reserved and documentation ranges, and IPv6
 * forms that embed an IPv4 address (IPv4-mapped ::ffff:a.b.c.d is judged as that IPv4 address; NAT64,
 * 6to4 and Teredo are refused). Ranges come from ipaddr.js's tables. Loopback alone can be allowed,
 * by `WEBHOOK_ALLOW_LOOPBACK` (tests).
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

/** The ipaddr.js range name of `address` (IPv4-mapped IPv6 judged as its IPv4 address). */
export function addressRange(address: string): string {
  return ipaddr.process(address).range();
}

/** Whether a delivery may connect to `address`: a public unicast one, or loopback when allowed. */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  const range = addressRange(address);
  return range === "unicast" || (allowLoopback && range === "loopback");
}

/**
 * The address to connect to for `hostname` (a name, or an IPv4/IPv6 literal without brackets): the
 * first of its resolved addresses, once every one of them passed `isAllowedAddress`.
 * @throws RefusedTargetError naming the refused address and its range, or a name that does not resolve.
 */
export async function resolveTarget(hostname: string, allowLoopback: boolean): Promise<CheckedAddress> {
  const host = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "error";
      throw new RefusedTargetError(`could not resolve ${host}: ${code}`);
    }
  }
  if (addresses.length === 0) throw new RefusedTargetError(`could not resolve ${host}: no address`);
  for (const { address } of addresses) {
    if (!isAllowedAddress(address, allowLoopback)) {
      const range = ipaddr.isValid(address) ? addressRange(address) : "invalid";
      throw new RefusedTargetError(`refused target ${host}: address ${address} is ${range}, not public`);
    }
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
