/**
 * Managing webhook endpoints through the client: create (the secret shown once), list, get, delete,
 * rotate, enable, test; scopes; other accounts' endpoints; the limit of 10 per account.
 */

import type { WebhookDelivery, WebhookEndpoint, WebhookEndpointCreate } from "@dhs/client";
import { WebhookReceiver } from "@dhs/testkit";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveriesSettled } from "../support/deliveries.js";
import { ENDPOINT_OPERATIONS, expectData, KEYS, until, useHarness } from "../support/harness.js";
import { ShiftedClock } from "../support/shifted-clock.js";

// The dispatcher's clock is the test's: a pending retry falls due when a test moves it, not a second later.
const clock = new ShiftedClock();
const h = useHarness({ WEBHOOK_RETRY_DELAYS_S: "1,1" }, { webhookClock: clock.now });
const receiver = new WebhookReceiver();
beforeAll(async () => {
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** An endpoint of the test's receiver, created with its secret (shown once). */
async function register(
  body: Partial<WebhookEndpointCreate> = {},
  key: string = KEYS.aHooks,
): Promise<WebhookEndpoint & { secret: string }> {
  const answer = await h.client(key).createWebhookEndpoint({ url: receiver.url, ...body });
  expect(answer.response.status, JSON.stringify(answer.error)).toBe(201);
  return answer.data as WebhookEndpoint & { secret: string };
}

const hooks = (key: string = KEYS.aHooks) => h.client(key);

describe("POST /v1/webhook-endpoints", () => {
  it("answers 201 with the endpoint and its secret, which no read shows again", async () => {
    const created = await register({ event_types: ["session.ended"], description: "Billing" });
    expect(created).toMatchObject({
      url: receiver.url,
      event_types: ["session.ended"],
      description: "Billing",
      status: "enabled",
      disabled_reason: null,
    });
    expect(created.id).toMatch(/^we_[0-9a-f]{24}$/);
    expect(created.secret).toMatch(SECRET);
    expect(Buffer.from(created.secret.slice(6), "base64")).toHaveLength(32);

    const read = expectData(await hooks().getWebhookEndpoint(created.id));
    expect(read).toEqual({ ...created, secret: undefined });
    expect(read).not.toHaveProperty("secret");
    const list = expectData(await hooks(KEYS.aHooksRead).listWebhookEndpoints());
    expect(JSON.stringify(list)).not.toContain(created.secret);
  });

  it("without event_types, or with * among them, takes every event type", async () => {
    expect((await register()).event_types).toEqual(["*"]);
    expect((await register({ event_types: ["session.created", "*"] })).event_types).toEqual(["*"]);
  });

  it("answers 422 for a body the contract refuses, naming the field", async () => {
    for (const body of [
      {},
      { url: "ftp://example.com/x" },
      { url: receiver.url, event_types: ["webhook.test"] },
      { url: receiver.url, x: 1 },
    ]) {
      const answer = await hooks().createWebhookEndpoint(body as WebhookEndpointCreate);
      expect(answer.response.status, JSON.stringify(body)).toBe(422);
      expect(answer.error?.code).toBe("validation_failed");
    }
  });

  it("with a key that has only sessions scopes, or only webhooks:read, answers 403 naming webhooks:write", async () => {
    for (const key of [KEYS.a, KEYS.aHooksRead]) {
      const answer = await hooks(key).createWebhookEndpoint({ url: receiver.url });
      expect(answer.response.status).toBe(403);
      expect(answer.error?.detail).toEqual({ missing_scope: "webhooks:write" });
    }
  });

  it("beyond 10 endpoints in an account answers 422 webhook_endpoint_limit_reached and stores nothing", async () => {
    const made = await Promise.all(Array.from({ length: 10 }, () => register({}, KEYS.bHooks)));
    const b = hooks(KEYS.bHooks);
    const refused = await b.createWebhookEndpoint({ url: receiver.url });
    expect(refused.response.status).toBe(422);
    expect(refused.error?.code).toBe("webhook_endpoint_limit_reached");
    expect(expectData(await b.listWebhookEndpoints()).data).toHaveLength(10);
    // Concurrent creates cannot overshoot the limit either.
    await b.deleteWebhookEndpoint(made[0]?.id as string);
    const race = await Promise.all(Array.from({ length: 5 }, () => b.createWebhookEndpoint({ url: receiver.url })));
    expect(race.map((r) => r.response.status).sort()).toEqual([201, 422, 422, 422, 422]);
    const left = expectData(await b.listWebhookEndpoints()).data;
    expect(left).toHaveLength(10);
    await Promise.all(left.map((e) => b.deleteWebhookEndpoint(e.id)));
  });
});

describe("GET /v1/webhook-endpoints", () => {
  it("lists the account's endpoints newest first, and none of another account's", async () => {
    const older = await register();
    const newer = await register();
    const list = expectData(await hooks(KEYS.aHooksRead).listWebhookEndpoints()).data;
    const ids = list.map((e) => e.id);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    const theirs = expectData(await hooks(KEYS.bHooks).listWebhookEndpoints()).data;
    expect(theirs.map((e) => e.id)).not.toContain(newer.id);
  });
});

describe("another account's endpoint", () => {
  it("is answered 404 by every operation on it, exactly like an unknown id", async () => {
    const mine = await register();
    const unknown = "we_000000000000000000000000";
    for (const id of [mine.id, unknown, "not-an-id"]) {
      for (const [name, operation] of ENDPOINT_OPERATIONS) {
        const answer = await operation(hooks(KEYS.bHooks), id);
        expect(answer.response.status, `${name} ${id}`).toBe(404);
        expect((answer.error as { code?: string } | undefined)?.code).toBe("not_found");
      }
    }
    // Still there for its owner.
    expect((await hooks().getWebhookEndpoint(mine.id)).response.status).toBe(200);
  });
});

describe("DELETE /v1/webhook-endpoints/{id}", () => {
  it("deletes it: 200 {id, deleted}, then 404, and its pending events are never sent", async () => {
    receiver.answer = () => ({ status: 500 });
    const endpoint = await register();
    const test = expectData(await hooks().testWebhookEndpoint(endpoint.id), 202);
    await until(() => receiver.received.some((r) => r.id === test.id));
    expect((await hooks().deleteWebhookEndpoint(endpoint.id)).data).toEqual({ id: endpoint.id, deleted: true });
    expect((await hooks().getWebhookEndpoint(endpoint.id)).response.status).toBe(404);
    // Its retry (due 1 s later) finds no endpoint and is dropped: a day on, nothing more was sent.
    try {
      clock.advance(86_400_000);
      await deliveriesSettled(h);
    } finally {
      // The other tests' secrets overlap by the wall clock.
      clock.reset();
    }
    expect(receiver.received.filter((r) => r.id === test.id)).toHaveLength(1);
    receiver.answer = () => ({ status: 200 });
  });
});

describe("POST /v1/webhook-endpoints/{id}/test", () => {
  it("answers 202 with the queued webhook.test event, which arrives signed under the same id", async () => {
    const endpoint = await register({ event_types: ["session.ended"] });
    receiver.secrets = [endpoint.secret];
    const event = expectData(await hooks().testWebhookEndpoint(endpoint.id), 202);
    expect(event).toMatchObject({ type: "webhook.test", data: { endpoint_id: endpoint.id } });
    expect(event.id).toMatch(/^evt_[0-9a-f]{32}$/);
    const got = await until(() => receiver.received.find((r) => r.id === event.id));
    expect(got.verifiedWith).toBe(0);
    expect(got.body).toEqual({ type: "webhook.test", mode: "live", timestamp: event.timestamp, data: { endpoint_id: endpoint.id } });
    expect(Math.abs(got.timestamp - Date.now() / 1000)).toBeLessThan(10);
  });
});

describe("POST /v1/webhook-endpoints/{id}/rotate-secret", () => {
  it("answers a new secret; during the overlap every delivery verifies with the old secret and with the new one", async () => {
    const endpoint = await register();
    const rotated = expectData(await hooks().rotateWebhookEndpointSecret(endpoint.id));
    expect(rotated.secret).toMatch(SECRET);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.id).toBe(endpoint.id);
    const event = expectData(await hooks().testWebhookEndpoint(endpoint.id), 202);
    const got = await until(() => receiver.received.find((r) => r.id === event.id));
    expect(got.signature.split(" ")).toHaveLength(2);
    for (const secret of [endpoint.secret, rotated.secret]) expect(() => verifyAgain(got, secret)).not.toThrow();
    // Rotating again ends the first secret's overlap at once: two signatures, the old one no more.
    const again = expectData(await hooks().rotateWebhookEndpointSecret(endpoint.id));
    const next = expectData(await hooks().testWebhookEndpoint(endpoint.id), 202);
    const second = await until(() => receiver.received.find((r) => r.id === next.id));
    expect(second.signature.split(" ")).toHaveLength(2);
    expect(() => verifyAgain(second, again.secret)).not.toThrow();
    expect(() => verifyAgain(second, rotated.secret)).not.toThrow();
    expect(() => verifyAgain(second, endpoint.secret)).toThrow();
  });
});

describe("POST /v1/webhook-endpoints/{id}/enable", () => {
  it("turns an endpoint disabled by a 410 on again", async () => {
    const endpoint = await register();
    receiver.answer = (d) => (d.type === "webhook.test" && d.body.data.endpoint_id === endpoint.id ? { status: 410 } : { status: 200 });
    await hooks().testWebhookEndpoint(endpoint.id);
    const disabled = await until(async () => {
      const now = expectData(await hooks().getWebhookEndpoint(endpoint.id));
      return now.status === "disabled" ? now : undefined;
    });
    expect(disabled.disabled_reason).toBe("gone");
    receiver.answer = () => ({ status: 200 });
    const enabled = expectData(await hooks().enableWebhookEndpoint(endpoint.id));
    expect(enabled).toMatchObject({ id: endpoint.id, status: "enabled", disabled_reason: null });
    // Enabling an enabled endpoint changes nothing.
    expect(expectData(await hooks().enableWebhookEndpoint(endpoint.id))).toEqual(enabled);
  });
});

describe("GET /v1/webhook-endpoints/{id}/deliveries", () => {
  it("lists attempts newest first with a cursor, and refuses a cursor it did not issue", async () => {
    const endpoint = await register();
    const events: string[] = [];
    for (let i = 0; i < 5; i++) {
      events.push(expectData(await hooks().testWebhookEndpoint(endpoint.id), 202).id);
      await until(() => receiver.received.some((r) => r.id === events.at(-1)));
    }
    const reader = hooks(KEYS.aHooksRead);
    const seen: WebhookDelivery[] = [];
    let cursor: string | null = null;
    await until(async () => expectData(await reader.listWebhookDeliveries(endpoint.id, { limit: 5 })).data.length === 5);
    do {
      const page: { data: WebhookDelivery[]; next_cursor: string | null } = expectData(
        await reader.listWebhookDeliveries(endpoint.id, cursor === null ? { limit: 2 } : { limit: 2, cursor }),
      );
      seen.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen.map((d) => d.event_id)).toEqual([...events].reverse());
    for (const attempt of seen) {
      expect(attempt).toMatchObject({
        event_type: "webhook.test",
        attempt: 1,
        outcome: "succeeded",
        status_code: 200,
        error: null,
        next_attempt_at: null,
      });
    }
    const bad = await reader.listWebhookDeliveries(endpoint.id, { cursor: "abc" });
    expect(bad.response.status).toBe(422);
  });
});

/** Verifies a received delivery with one secret, as a customer's receiver does. */
function verifyAgain(got: { raw: string; id: string; timestamp: number; signature: string }, secret: string | undefined): unknown {
  return new Webhook(secret as string).verify(got.raw, {
    "webhook-id": got.id,
    "webhook-timestamp": String(got.timestamp),
    "webhook-signature": got.signature,
  });
}
