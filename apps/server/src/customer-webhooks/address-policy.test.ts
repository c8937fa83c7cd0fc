import { describe, expect, it } from "vitest";
import { AddressPolicy, isPublicAddress } from "./address-policy.js";

describe("isPublicAddress", () => {
  it.each(["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "2a00:1450:4001:82a::200e"])("allows public unicast %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.0.0.1",
    "172.31.255.255",
    "192.168.10.10",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "192.0.2.1",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd00:ec2::254",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::7f00:1",
    "2002:7f00:1::1",
    "ff02::1",
    "not-an-address",
  ])("refuses %s", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe("AddressPolicy.refusal", () => {
  const resolve = async (host: string) => (host === "public.test" ? [{ address: "93.184.215.14", family: 4 }] : []);

  it("refuses plain http unless allowed (production never allows it)", async () => {
    const production = new AddressPolicy({ allowHttp: false, allowPrivate: false, resolve });
    expect(await production.refusal("http://public.test/x")).toMatch(/https/);
    expect(await production.refusal("https://public.test/x")).toBeNull();
    const development = new AddressPolicy({ allowHttp: true, allowPrivate: false, resolve });
    expect(await development.refusal("http://public.test/x")).toBeNull();
  });

  it("does not answer for a host whose DNS does not answer within 3 s", async () => {
    const silent = new AddressPolicy({ allowHttp: true, allowPrivate: false, resolve: () => new Promise(() => undefined) });
    const started = Date.now();
    expect(await silent.refusal("https://slow.test/x")).toMatch(/does not resolve/);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("allows internal addresses only when told to (tests, local development)", async () => {
    expect(await new AddressPolicy({ allowHttp: true, allowPrivate: false, resolve }).refusal("http://127.0.0.1:9/x")).toMatch(/loopback/);
    expect(await new AddressPolicy({ allowHttp: true, allowPrivate: true, resolve }).refusal("http://127.0.0.1:9/x")).toBeNull();
  });
});

/**
 * IANA's special-purpose address registries (iana-ipv4-special-registry, iana-ipv6-special-registry, as
 * of 2025), with the multicast blocks and the deprecated ranges of RFC 4291 (IPv4-compatible) and RFC 3879
 * (site-local). None is a place to post a customer's webhook to, even those IANA marks globally reachable
 * (anycast services, AS112), so each block's first and last address must be refused. A block added to the
 * registries belongs here: the test then says whether the policy already refuses it.
 */
const SPECIAL_PURPOSE: [block: string, first: string, last: string][] = [
  ["0.0.0.0/8", "0.0.0.0", "0.255.255.255"],
  ["10.0.0.0/8", "10.0.0.0", "10.255.255.255"],
  ["100.64.0.0/10", "100.64.0.0", "100.127.255.255"],
  ["127.0.0.0/8", "127.0.0.0", "127.255.255.255"],
  ["169.254.0.0/16", "169.254.0.0", "169.254.255.255"],
  ["172.16.0.0/12", "172.16.0.0", "172.31.255.255"],
  ["192.0.0.0/24", "192.0.0.0", "192.0.0.255"],
  ["192.0.0.9/32 (PCP anycast)", "192.0.0.9", "192.0.0.9"],
  ["192.0.0.10/32 (TURN anycast)", "192.0.0.10", "192.0.0.10"],
  ["192.0.2.0/24", "192.0.2.0", "192.0.2.255"],
  ["192.31.196.0/24 (AS112)", "192.31.196.0", "192.31.196.255"],
  ["192.52.193.0/24 (AMT)", "192.52.193.0", "192.52.193.255"],
  ["192.88.99.0/24 (6to4 relay)", "192.88.99.0", "192.88.99.255"],
  ["192.168.0.0/16", "192.168.0.0", "192.168.255.255"],
  ["192.175.48.0/24 (AS112)", "192.175.48.0", "192.175.48.255"],
  ["198.18.0.0/15", "198.18.0.0", "198.19.255.255"],
  ["198.51.100.0/24", "198.51.100.0", "198.51.100.255"],
  ["203.0.113.0/24", "203.0.113.0", "203.0.113.255"],
  ["224.0.0.0/4 (multicast)", "224.0.0.0", "239.255.255.255"],
  ["240.0.0.0/4", "240.0.0.0", "255.255.255.254"],
  ["255.255.255.255/32", "255.255.255.255", "255.255.255.255"],
  ["::/128", "::", "::"],
  ["::1/128", "::1", "::1"],
  ["::/96 (IPv4-compatible, deprecated)", "::0.0.0.2", "::255.255.255.255"],
  ["::ffff:0:0/96", "::ffff:0.0.0.0", "::ffff:255.255.255.255"],
  ["64:ff9b::/96", "64:ff9b::", "64:ff9b::ffff:ffff"],
  ["64:ff9b:1::/48", "64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"],
  ["100::/64", "100::", "100::ffff:ffff:ffff:ffff"],
  ["100:0:0:1::/64 (dummy)", "100:0:0:1::", "100::1:ffff:ffff:ffff:ffff"],
  ["2001::/23", "2001::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2001:db8::/32", "2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2002::/16 (6to4)", "2002::", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2620:4f:8000::/48 (AS112)", "2620:4f:8000::", "2620:4f:8000:ffff:ffff:ffff:ffff:ffff"],
  ["3fff::/20", "3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["5f00::/16 (SRv6)", "5f00::", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["fc00::/7", "fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["fe80::/10", "fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["fec0::/10 (site-local, deprecated)", "fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["ff00::/8 (multicast)", "ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
];

describe("the address policy against IANA's special-purpose registries", () => {
  it.each(SPECIAL_PURPOSE)("refuses %s, first (%s) and last (%s) address", (_block, first, last) => {
    expect(isPublicAddress(first)).toBe(false);
    expect(isPublicAddress(last)).toBe(false);
  });

  it.each([
    ["::127.0.0.1", "IPv4-compatible loopback"],
    ["::7f00:1", "the same, in hexadecimal"],
    ["::a9fe:a9fe", "IPv4-compatible cloud metadata"],
    ["::8.8.8.8", "IPv4-compatible, public inside"],
  ])("refuses %s (%s)", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(["1.0.0.1", "192.0.1.255", "192.0.3.0", "198.17.255.255", "198.20.0.0", "223.255.255.255", "2001:200::1", "2003::1", "3ffe::1"])(
    "allows %s, just outside a special-purpose block",
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it("refuses https://[::127.0.0.1]/ and https://[::7f00:1]/ at registration in production", async () => {
    const production = new AddressPolicy({ allowHttp: false, allowPrivate: false, resolve: async () => [] });
    for (const url of ["https://[::127.0.0.1]/hook", "https://[::7f00:1]/hook"]) {
      expect(await production.refusal(url)).toMatch(/ipv4Compatible address/);
    }
  });
});
