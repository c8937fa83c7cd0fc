/**
 * Managing webhook endpoints over HTTP: create (the secret shown once), list, get, delete, rotate,
 * enable, test; scopes; other accounts' endpoints; the limit of 10 per account.
 */
import { WebhookReceiver } from "@dhs/testkit";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_OPERATIONS, KEYS, until, useHarness } from "../support/harness.js";

const h = useHarness({ WEBHOOK_RETRY_DELAYS_S: "1,1" });
const receiver = new WebhookReceiver();
beforeAll(async () => {
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

async function register(body: Record<string, unknown> = {}, key: string = KEYS.aHooks): Promise<Record<string, any>> {
  const res = await h.request("POST", "/v1/webhook-endpoints", { key, body: { url: receiver.url, ...body } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Record<string, any>;
}

const json = async (res: Response) => (await res.json()) as Record<string, any>;

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

    const read = await json(await h.request("GET", `/v1/webhook-endpoints/${created.id}`, { key: KEYS.aHooks }));
    expect(read).toEqual({ ...created, secret: undefined });
    expect(read).not.toHaveProperty("secret");
    const list = await json(await h.request("GET", "/v1/webhook-endpoints", { key: KEYS.aHooksRead }));
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
      const res = await h.request("POST", "/v1/webhook-endpoints", { key: KEYS.aHooks, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((await json(res)).code).toBe("validation_failed");
    }
  });

  it("with a key that has only sessions scopes, or only webhooks:read, answers 403 naming webhooks:write", async () => {
    for (const key of [KEYS.a, KEYS.aHooksRead]) {
      const res = await h.request("POST", "/v1/webhook-endpoints", { key, body: { url: receiver.url } });
      expect(res.status).toBe(403);
      expect((await json(res)).detail).toEqual({ missing_scope: "webhooks:write" });
    }
  });

  it("beyond 10 endpoints in an account answers 422 webhook_endpoint_limit_reached and stores nothing", async () => {
    const made = await Promise.all(Array.from({ length: 10 }, () => register({}, KEYS.bHooks)));
    const res = await h.request("POST", "/v1/webhook-endpoints", { key: KEYS.bHooks, body: { url: receiver.url } });
    expect(res.status).toBe(422);
    expect((await json(res)).code).toBe("webhook_endpoint_limit_reached");
    expect((await json(await h.request("GET", "/v1/webhook-endpoints", { key: KEYS.bHooks }))).data).toHaveLength(10);
    // Concurrent creates cannot overshoot the limit either.
    await h.request("DELETE", `/v1/webhook-endpoints/${made[0]?.id}`, { key: KEYS.bHooks });
    const race = await Promise.all(
      Array.from({ length: 5 }, () => h.request("POST", "/v1/webhook-endpoints", { key: KEYS.bHooks, body: { url: receiver.url } })),
    );
    expect(race.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422]);
    const left = (await json(await h.request("GET", "/v1/webhook-endpoints", { key: KEYS.bHooks }))).data as { id: string }[];
    expect(left).toHaveLength(10);
    await Promise.all(left.map((e) => h.request("DELETE", `/v1/webhook-endpoints/${e.id}`, { key: KEYS.bHooks })));
  });
});

describe("GET /v1/webhook-endpoints", () => {
  it("lists the account's endpoints newest first, and none of another account's", async () => {
    const older = await register();
    const newer = await register();
    const list = (await json(await h.request("GET", "/v1/webhook-endpoints", { key: KEYS.aHooksRead }))).data as { id: string }[];
    const ids = list.map((e) => e.id);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    const theirs = (await json(await h.request("GET", "/v1/webhook-endpoints", { key: KEYS.bHooks }))).data as { id: string }[];
    expect(theirs.map((e) => e.id)).not.toContain(newer.id);
  });
});

describe("another account's endpoint", () => {
  it("is answered 404 by every operation on it, exactly like an unknown id", async () => {
    const mine = await register();
    const unknown = "we_000000000000000000000000";
    for (const id of [mine.id, unknown, "not-an-id"]) {
      for (const [method, suffix] of ENDPOINT_OPERATIONS) {
        const res = await h.request(method, `/v1/webhook-endpoints/${id}${suffix}`, { key: KEYS.bHooks });
        expect(res.status, `${method} ${id}${suffix}`).toBe(404);
        expect((await json(res)).code).toBe("not_found");
      }
    }
    // Still there for its owner.
    expect((await h.request("GET", `/v1/webhook-endpoints/${mine.id}`, { key: KEYS.aHooks })).status).toBe(200);
  });
});

describe("DELETE /v1/webhook-endpoints/{id}", () => {
  it("deletes it: 200 {id, deleted}, then 404, and its pending events are never sent", async () => {
    receiver.answer = () => ({ status: 500 });
    const endpoint = await register();
    const test = await json(await h.request("POST", `/v1/webhook-endpoints/${endpoint.id}/test`, { key: KEYS.aHooks }));
    await until(() => receiver.received.some((r) => r.id === test.id));
    const res = await h.request("DELETE", `/v1/webhook-endpoints/${endpoint.id}`, { key: KEYS.aHooks });
    expect(await json(res)).toEqual({ id: endpoint.id, deleted: true });
    expect((await h.request("GET", `/v1/webhook-endpoints/${endpoint.id}`, { key: KEYS.aHooks })).status).toBe(404);
    // Its retry (1 s later) finds no endpoint and is dropped.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(receiver.received.filter((r) => r.id === test.id)).toHaveLength(1);
    receiver.answer = () => ({ status: 200 });
  });
});

describe("POST /v1/webhook-endpoints/{id}/test", () => {
  it("answers 202 with the queued webhook.test event, which arrives signed under the same id", async () => {
    const endpoint = await register({ event_types: ["session.ended"] });
    receiver.secrets = [endpoint.secret];
    const res = await h.request("POST", `/v1/webhook-endpoints/${endpoint.id}/test`, { key: KEYS.aHooks });
    expect(res.status).toBe(202);
    const event = await json(res);
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
    const rotated = await json(await h.request("POST", `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { key: KEYS.aHooks }));
    expect(rotated.secret).toMatch(SECRET);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.id).toBe(endpoint.id);
    const event = await json(await h.request("POST", `/v1/webhook-endpoints/${endpoint.id}/test`, { key: KEYS.aHooks }));
    const got = await until(() => receiver.received.find((r) => r.id === event.id));
    expect(got.signature.split(" ")).toHaveLength(2);
    for (const secret of [endpoint.secret, rotated.secret]) expect(() => verifyAgain(got, secret)).not.toThrow();
    // Rotating again ends the first secret's overlap at once: two signatures, the old one no more.
    const again = await json(await h.request("POST", `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { key: KEYS.aHooks }));
    const next = await json(await h.request("POST", `/v1/webhook-endpoints/${endpoint.id}/test`, { key: KEYS.aHooks }));
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
    await h.request("POST", `/v1/webhook-endpoints/${endpoint.id}/test`, { key: KEYS.aHooks });
    const disabled = await until(async () => {
      const now = await json(await h.request("GET", `/v1/webhook-endpoints/${endpoint.id}`, { key: KEYS.aHooks }));
      return now.status === "disabled" ? now : undefined;
    });
    expect(disabled.disabled_reason).toBe("gone");
    receiver.answer = () => ({ status: 200 });
    const enabled = await json(await h.request("POST", `/v1/webhook-endpoints/${endpoint.id}/enable`, { key: KEYS.aHooks }));
    expect(enabled).toMatchObject({ id: endpoint.id, status: "enabled", disabled_reason: null });
    // Enabling an enabled endpoint changes nothing.
    expect(await json(await h.request("POST", `/v1/webhook-endpoints/${endpoint.id}/enable`, { key: KEYS.aHooks }))).toEqual(enabled);
  });
});

describe("GET /v1/webhook-endpoints/{id}/deliveries", () => {
  it("lists attempts newest first with a cursor, and refuses a cursor it did not issue", async () => {
    const endpoint = await register();
    const events: string[] = [];
    for (let i = 0; i < 5; i++) {
      events.push((await json(await h.request("POST", `/v1/webhook-endpoints/${endpoint.id}/test`, { key: KEYS.aHooks }))).id);
      await until(() => receiver.received.some((r) => r.id === events.at(-1)));
    }
    const seen: Record<string, any>[] = [];
    let cursor: string | null = null;
    await until(async () => {
      const page = await json(await h.request("GET", `/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=5`, { key: KEYS.aHooksRead }));
      return page.data.length === 5;
    });
    do {
      const query: string = cursor === null ? "?limit=2" : `?limit=2&cursor=${cursor}`;
      const page = await json(await h.request("GET", `/v1/webhook-endpoints/${endpoint.id}/deliveries${query}`, { key: KEYS.aHooksRead }));
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
    const bad = await h.request("GET", `/v1/webhook-endpoints/${endpoint.id}/deliveries?cursor=abc`, { key: KEYS.aHooksRead });
    expect(bad.status).toBe(422);
  });
});

/** Verifies a received delivery with one secret, as a customer's receiver does. */
function verifyAgain(got: { raw: string; id: string; timestamp: number; signature: string }, secret: string): unknown {
  return new Webhook(secret).verify(got.raw, {
    "webhook-id": got.id,
    "webhook-timestamp": String(got.timestamp),
    "webhook-signature": got.signature,
  });
}
