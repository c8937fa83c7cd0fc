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
