/**
 * Which addresses a webhook may be posted to (contract guide, "Webhooks", Addresses): public unicast
 * only. Anything ipaddr.js does not classify as plain `unicast` is refused (loopback, private, link-local
 * with the cloud metadata address, unique-local, shared, reserved, IPv4-mapped, -compatible and
 * translated IPv6 that could carry one of them), so an address nobody thought of is refused too. Hosts are judged by every
 * address they resolve to, at registration and again on each connection, so DNS rebinding is caught.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import type { UrlPolicy } from "../domain/customer-webhooks/ports.js";

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

// A registration waits this long for DNS, no longer: it is a request someone is waiting on.
const REGISTRATION_LOOKUP_MS = 3000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * Ranges that are not public although ipaddr.js calls them `unicast`: the deprecated IPv4-compatible
 * IPv6 addresses (`::7f00:1` reaches 127.0.0.1 on a host that still honours them) and the dummy prefix
 * of RFC 9780. The address-policy table test holds the policy to IANA's special-purpose registries.
 */
const NOT_PUBLIC: [ipaddr.IPv6, number, string][] = [
  [...ipaddr.IPv6.parseCIDR("::/96"), "ipv4Compatible"],
  [...ipaddr.IPv6.parseCIDR("100:0:0:1::/64"), "dummy"],
];

/**
 * The range an address is in (`unicast` when it is public): ipaddr.js's, after unwrapping IPv4-mapped
 * IPv6, narrowed by NOT_PUBLIC.
 */
function rangeOf(address: string): string {
  const canonical = canonicalAddress(address);
  if (canonical === undefined) return "invalid";
  const parsed = ipaddr.parse(canonical);
  if (parsed.kind() === "ipv4") return parsed.range();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  const range = v6.range();
  if (range !== "unicast") return range;
  return NOT_PUBLIC.find(([network, bits]) => v6.match(network, bits))?.[2] ?? range;
}

/**
 * The address as the socket would use it. IPv6 is first written in hexadecimal by the WHATWG URL parser:
 * ipaddr.js reads a dotted tail such as `::8.8.8.8` as IPv4-mapped (`::ffff:8.8.8.8`), while a socket
 * connects to the IPv4-compatible `::808:808`, another address. What neither reads is undefined.
 */
function canonicalAddress(address: string): string | undefined {
  if (isIP(address) === 4) return ipaddr.IPv4.isValidFourPartDecimal(address) ? address : undefined;
  if (isIP(address) !== 6) return undefined;
  try {
    const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
    return ipaddr.IPv6.isValid(canonical) ? canonical : undefined;
  } catch {
    return undefined;
  }
}

export function isPublicAddress(address: string): boolean {
  return rangeOf(address) === "unicast";
}

/** `[::1]` in a URL is `::1` to the resolver and to the checks. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** A host resolved to an address that may not be reached. */
export class AddressNotAllowedError extends Error {
  override readonly name = "AddressNotAllowedError";
  readonly code = "DHS_ADDRESS_NOT_ALLOWED";
  constructor(readonly address: string) {
    super(`${address} is a ${rangeOf(address)} address`);
  }
}

export interface AddressPolicyOptions {
  /** Plain http allowed (development deployments). */
  allowHttp: boolean;
  /** Internal addresses allowed (tests, local development; never production). */
  allowPrivate: boolean;
  resolve?: Resolver;
}

export class AddressPolicy implements UrlPolicy {
  readonly resolve: Resolver;

  constructor(readonly options: AddressPolicyOptions) {
    this.resolve = options.resolve ?? systemResolver;
  }

  /** The addresses `host` may be connected to; rejects when any of them is not allowed (fails closed). */
  async allowedAddresses(host: string): Promise<{ address: string; family: number }[]> {
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await this.resolve(host);
    if (!this.options.allowPrivate) {
      const refused = addresses.find(({ address }) => !isPublicAddress(address));
      if (refused) throw new AddressNotAllowedError(refused.address);
    }
    return addresses;
  }

  async refusal(raw: string): Promise<string | null> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return "This is not a URL.";
    }
    if (url.protocol !== "https:" && !(this.options.allowHttp && url.protocol === "http:")) {
      return "Webhook endpoints must use https.";
    }
    if (url.username !== "" || url.password !== "") {
      return "A webhook URL must not carry credentials: deliveries are authenticated by their signature.";
    }
    // Nothing to refuse by address: no lookup (a development machine may have no DNS at all).
    if (this.options.allowPrivate) return null;
    try {
      await withTimeout(this.allowedAddresses(hostOf(url)), REGISTRATION_LOOKUP_MS);
      return null;
    } catch (error) {
      if (error instanceof AddressNotAllowedError) {
        return `The host of this URL resolves to ${error.address}, a ${rangeOf(error.address)} address; webhook endpoints must be reachable on the public internet.`;
      }
      return `The host ${hostOf(url)} does not resolve.`;
    }
  }
}
