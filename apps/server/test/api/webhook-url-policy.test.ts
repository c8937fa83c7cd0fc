/**
 * Webhook URLs cannot point into the deployment's network (contract guide, "Webhooks", Addresses): with
 * internal addresses not allowed (as in production), registration refuses hosts that are or resolve to
 * loopback, private, link-local (cloud metadata), unique-local, shared or mapped addresses, and every
 * delivery checks the address it is about to connect to, so a name that resolves elsewhere later (DNS
 * rebinding) is refused too. Names resolve through a table here: nothing is sent anywhere but loopback,
 * and the refused deliveries never reach the loopback receiver standing behind them.
 */
import { WebhookReceiver } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectData, KEYS, until, useHarness } from "../support/harness.js";

const receiver = new WebhookReceiver();
/** name -> the addresses it resolves to, one list per lookup (the last repeats). */
const DNS: Record<string, string[][]> = {
  "public.test": [["93.184.215.14"]],
  "internal.test": [["10.1.2.3"]],
  "mixed.test": [["93.184.215.14", "192.168.1.20"]],
  "metadata.test": [["169.254.169.254"]],
  "v6-internal.test": [["fd12:3456::1"]],
  // Public when registered, loopback (where the receiver listens) when delivered to.
  "rebind.test": [["93.184.215.14"], ["127.0.0.1"]],
};
const lookups = new Map<string, number>();
const resolver = async (host: string) => {
  const answers = DNS[host];
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  const n = lookups.get(host) ?? 0;
  lookups.set(host, n + 1);
  const addresses = answers[Math.min(n, answers.length - 1)] as string[];
  return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

const h = useHarness({ WEBHOOK_ALLOW_PRIVATE_URLS: "false", WEBHOOK_RETRY_DELAYS_S: "60", SWEEP_INTERVAL_MS: "100" }, { resolver });
beforeAll(async () => {
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

const register = (url: string) => h.client(KEYS.aHooks).createWebhookEndpoint({ url });

describe("POST /v1/webhook-endpoints, with internal addresses not allowed", () => {
  it.each([
    ["loopback by name", "http://localhost/hooks"],
    ["IPv4 loopback", "https://127.0.0.1/hooks"],
    ["IPv4 private", "https://10.0.0.12/hooks"],
    ["IPv4 private 192.168", "https://192.168.0.1/hooks"],
    ["IPv4 private 172.16", "https://172.16.5.4/hooks"],
    ["cloud metadata", "http://169.254.169.254/latest/meta-data"],
    ["shared (carrier-grade NAT, Alibaba metadata)", "http://100.100.100.200/"],
    ["unspecified", "https://0.0.0.0/"],
    ["IPv6 loopback", "https://[::1]/hooks"],
    ["IPv6 unique-local", "https://[fd00::1]/hooks"],
    ["IPv6 link-local", "https://[fe80::1]/hooks"],
    ["IPv4-mapped IPv6 of a private address", "https://[::ffff:10.0.0.1]/hooks"],
    ["NAT64 of a private address", "https://[64:ff9b::a00:1]/hooks"],
    ["a name resolving to a private address", "https://internal.test/hooks"],
    ["a name with one private address among public ones", "https://mixed.test/hooks"],
    ["a name resolving to the metadata address", "https://metadata.test/hooks"],
    ["a name resolving to IPv6 unique-local", "https://v6-internal.test/hooks"],
    ["a name that does not resolve", "https://nowhere.test/hooks"],
    ["credentials in the URL", "https://user:pass@public.test/hooks"],
  ])("refuses %s with 422 webhook_url_not_allowed", async (_what, url) => {
    const answer = await register(url);
    const body = answer.error;
    expect(answer.response.status, JSON.stringify(body)).toBe(422);
    expect(body?.code).toBe("webhook_url_not_allowed");
    expect(typeof body?.detail).toBe("string");
  });

  it("accepts a name that resolves to public addresses only", async () => {
    expect((await register("https://public.test/hooks")).response.status).toBe(201);
  });
});

describe("a delivery to a name that resolves to an internal address by the time it is sent", () => {
  it("is refused before connecting (address_not_allowed) and never reaches what listens there", async () => {
    const endpoint = expectData(await register(`http://rebind.test:${new URL(receiver.url).port}/hooks`), 201);
    await h.client(KEYS.aHooks).testWebhookEndpoint(endpoint.id);
    const log = await until(async () => {
      const page = expectData(await h.client(KEYS.aHooks).listWebhookDeliveries(endpoint.id));
      return page.data.length > 0 ? page.data : undefined;
    });
    expect(log[0]).toMatchObject({ outcome: "failed", status_code: null, error: "address_not_allowed" });
    expect(receiver.received).toEqual([]);
    expect(lookups.get("rebind.test")).toBeGreaterThanOrEqual(2);
  });
});
