/**
 * Session events reach a customer's receiver: the whole path over HTTP (register, create, LiveKit's
 * signed webhooks move the session, the receiver verifies every delivery with the standardwebhooks
 * library), filtering by event type, and delivery's rules: retries on the schedule with the same
 * webhook-id, Retry-After, 410 and a failing streak disabling the endpoint, redirects not followed, a
 * dead endpoint delaying nobody else.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebhookEndpoint } from "@dhs/client";
import { WebhookReceiver } from "@dhs/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { deliveriesSettled } from "../support/deliveries.js";
import { expectData, KEYS, newSession, roomEvent, until, useHarness } from "../support/harness.js";
import { ShiftedClock } from "../support/shifted-clock.js";

// Retries 1 s then 2 s apart (three attempts in all); an endpoint failing for 4 s is disabled. The
// dispatcher's clock is the test's: a retry falls due when the test moves it there, not seconds later.
const clock = new ShiftedClock();
const h = useHarness(
  {
    WEBHOOK_RETRY_DELAYS_S: "1,2",
    WEBHOOK_DISABLE_AFTER_S: "4",
    WEBHOOK_ATTEMPT_TIMEOUT_S: "2",
    WEBHOOK_CONCURRENCY: "8",
    SWEEP_INTERVAL_MS: "100",
  },
  { webhookClock: clock.now },
);
const receiver = new WebhookReceiver();
beforeAll(async () => {
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});
afterEach(async () => {
  receiver.answer = () => ({ status: 200 });
  // Each test's endpoints go, so the next test's events reach only its own.
  for (const key of [KEYS.aHooks, KEYS.bHooks]) {
    const list = expectData(await h.client(key).listWebhookEndpoints());
    await Promise.all(list.data.map((e) => h.client(key).deleteWebhookEndpoint(e.id)));
  }
  // Each test's times are its own.
  clock.reset();
});

async function register(body: { url?: string; event_types?: WebhookEndpoint["event_types"] } = {}, key: string = KEYS.aHooks) {
  const answer = await h.client(key).createWebhookEndpoint({ url: receiver.url, ...body });
  expect(answer.response.status, JSON.stringify(answer.error)).toBe(201);
  const endpoint = answer.data as WebhookEndpoint & { secret: string };
  receiver.secrets = [endpoint.secret];
  return endpoint;
}

async function sendTest(endpointId: string, key: string = KEYS.aHooks): Promise<string> {
  return (await h.client(key).testWebhookEndpoint(endpointId)).data?.id as string;
}

async function deliveries(endpointId: string, key: string = KEYS.aHooks) {
  return expectData(await h.client(key).listWebhookDeliveries(endpointId, { limit: 100 })).data;
}

type Delivery = Awaited<ReturnType<typeof deliveries>>[number];

/** The endpoint's attempts, oldest first, once there are at least `count`. */
function attempts(endpointId: string, count: number): Promise<Delivery[]> {
  return until(
    async () => {
      const all = await deliveries(endpointId);
      return all.length >= count ? all.reverse() : undefined;
    },
    { timeoutMs: 10_000 },
  );
}

/**
 * How long after an attempt's answer its retry was due, by the dispatcher's clock: the delay is counted
 * from when the answer came (attempted_at is when it began, duration_ms later the answer), and the
 * dispatcher reads its clock a moment after that, for which up to `AFTER_ANSWER_MS` is allowed (and 2 ms
 * less, for duration_ms's rounding against the clock's whole milliseconds).
 */
function retryGapMs(attempt: Delivery | undefined): number {
  return Date.parse(attempt?.next_attempt_at ?? "") - Date.parse(attempt?.attempted_at ?? "") - (attempt?.duration_ms ?? 0);
}
const AFTER_ANSWER_MS = 250;

/** Moves the dispatcher's clock to an attempt's retry and has it look at once. */
function retryNow(attempt: Delivery | undefined): void {
  clock.advanceTo(Date.parse(attempt?.next_attempt_at ?? ""));
  h.composed.dispatcher.nudge();
}

async function endpointOf(endpointId: string) {
  return expectData(await h.client(KEYS.aHooks).getWebhookEndpoint(endpointId));
}

describe("a session's life, as the receiver sees it", () => {
  it("delivers session.created, digital_human_joined, active and ended, each signed, with the session's data and no token", async () => {
    await register();
    const session = await newSession(h);
    await h.webhook(roomEvent("participant_joined", session, { identity: "ava-agent", kind: "AGENT" }));
    await h.webhook(roomEvent("participant_joined", session, { identity: session.identity }));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const ended = expectData(await h.client().endSession(session.id));
    const types = ["session.created", "session.digital_human_joined", "session.active", "session.ended"];
    const got = await until(() => {
      const mine = receiver.received.filter((r) => r.body.data?.id === session.id);
      return types.every((type) => mine.some((r) => r.type === type)) ? mine : undefined;
    });
    expect(got.map((r) => r.type).sort()).toEqual([...types].sort());
    for (const delivery of got) {
      expect(delivery.verifiedWith, delivery.type).toBe(0);
      expect(delivery.raw).not.toMatch(/token|secret|whsec_/);
      expect(Object.keys(delivery.body).sort()).toEqual(["data", "mode", "timestamp", "type"]);
      expect(delivery.body.mode).toBe("live");
      expect(delivery.id).toMatch(/^evt_[0-9a-f]{32}$/);
    }
    expect(new Set(got.map((r) => r.id)).size).toBe(4);
    const endedEvent = got.find((r) => r.type === "session.ended")?.body as Record<string, any>;
    expect(endedEvent.data).toMatchObject({
      id: session.id,
      status: "completed",
      end_reason: "user_ended",
      participant_identity: session.identity,
      started_at: ended.started_at,
      ended_at: ended.ended_at,
    });
    const activeMs = Date.parse(ended.ended_at as string) - Date.parse(ended.started_at as string);
    expect(endedEvent.data.duration_seconds).toBe(Math.ceil(activeMs / 1000));
    expect(endedEvent.data.duration_seconds).toBeGreaterThanOrEqual(2);
    expect(endedEvent.timestamp).toBe(ended.ended_at);
    const created = got.find((r) => r.type === "session.created")?.body as Record<string, any>;
    expect(created.data).toMatchObject({ status: "created", started_at: null, duration_seconds: 0, digital_human_joined_at: null });
  });

  it("sends an endpoint only the event types it asked for, and an idempotent replay sends nothing again", async () => {
    const endedOnly = await register({ event_types: ["session.ended"] });
    const createdOnly = await register({ event_types: ["session.created"] });
    const key = crypto.randomUUID();
    const session = expectData(await h.client().createSession({}, { idempotencyKey: key }), 201);
    await h.client().createSession({}, { idempotencyKey: key });
    await h.client().endSession(session.id);
    await until(() => receiver.received.some((r) => r.body.data?.id === session.id && r.type === "session.ended"));
    await until(() => receiver.received.some((r) => r.body.data?.id === session.id && r.type === "session.created"));
    await deliveriesSettled(h);
    const mine = receiver.received.filter((r) => r.body.data?.id === session.id);
    expect(mine.map((r) => r.type).sort()).toEqual(["session.created", "session.ended"]);
    expect((await deliveries(endedOnly.id)).map((d) => d.event_type)).toEqual(["session.ended"]);
    expect((await deliveries(createdOnly.id)).map((d) => d.event_type)).toEqual(["session.created"]);
  });

  it("never sends one account's events to another account's endpoint", async () => {
    await register({}, KEYS.bHooks);
    const session = await newSession(h);
    await h.client().endSession(session.id);
    await deliveriesSettled(h);
    expect(receiver.received.filter((r) => r.body.data?.id === session.id)).toEqual([]);
  });
});

describe("delivery", () => {
  it("retries a 500 on the schedule under the same webhook-id, never before it is due, then stops at a 200", async () => {
    const endpoint = await register();
    let calls = 0;
    receiver.answer = () => (++calls <= 2 ? { status: 500 } : { status: 204 });
    const id = await sendTest(endpoint.id);
    const [first] = await attempts(endpoint.id, 1);
    // 1 s, then 2 s, each varied by up to 20%.
    expect(retryGapMs(first)).toBeGreaterThanOrEqual(800 - 2);
    expect(retryGapMs(first)).toBeLessThanOrEqual(1200 + AFTER_ANSWER_MS);
    retryNow(first);
    const [, second] = await attempts(endpoint.id, 2);
    expect(Date.parse(second?.attempted_at ?? "")).toBeGreaterThanOrEqual(Date.parse(first?.next_attempt_at ?? ""));
    expect(retryGapMs(second)).toBeGreaterThanOrEqual(1600 - 2);
    expect(retryGapMs(second)).toBeLessThanOrEqual(2400 + AFTER_ANSWER_MS);
    retryNow(second);
    const log = await attempts(endpoint.id, 3);
    expect(Date.parse(log[2]?.attempted_at ?? "")).toBeGreaterThanOrEqual(Date.parse(second?.next_attempt_at ?? ""));
    expect(log.map((d) => [d.attempt, d.outcome, d.status_code, d.event_id])).toEqual([
      [1, "failed", 500, id],
      [2, "failed", 500, id],
      [3, "succeeded", 204, id],
    ]);
    expect(log[2]?.next_attempt_at).toBeNull();
    const got = receiver.received.filter((r) => r.id === id);
    expect(got).toHaveLength(3);
    for (const r of got) expect(r.verifiedWith).toBe(0);
    expect((await endpointOf(endpoint.id)).status).toBe("enabled");
  });

  it("gives up after the last attempt of the schedule: a day later nothing more is tried", async () => {
    const endpoint = await register();
    receiver.answer = () => ({ status: 503 });
    const id = await sendTest(endpoint.id);
    retryNow((await attempts(endpoint.id, 1))[0]);
    retryNow((await attempts(endpoint.id, 2))[1]);
    const log = await attempts(endpoint.id, 3);
    expect(log[2]).toMatchObject({ attempt: 3, outcome: "failed", status_code: 503, next_attempt_at: null });
    clock.advance(86_400_000);
    await deliveriesSettled(h);
    expect(receiver.received.filter((r) => r.id === id)).toHaveLength(3);
    expect(await deliveries(endpoint.id)).toHaveLength(3);
  });

  it("waits as long as a Retry-After on 429 asks", async () => {
    const endpoint = await register();
    let calls = 0;
    receiver.answer = () => (++calls === 1 ? { status: 429, headers: { "Retry-After": "3" } } : { status: 200 });
    await sendTest(endpoint.id);
    const [first] = await attempts(endpoint.id, 1);
    expect(first).toMatchObject({ outcome: "failed", status_code: 429 });
    expect(retryGapMs(first)).toBeGreaterThanOrEqual(3000 - 2);
    // Up to 20% more than the schedule's 1 s is 1.2 s: what decided 3 s was the endpoint's header.
    expect(retryGapMs(first)).toBeLessThan(3000 + AFTER_ANSWER_MS);
    retryNow(first);
    const [, second] = await attempts(endpoint.id, 2);
    expect(second).toMatchObject({ outcome: "succeeded", status_code: 200 });
    expect(Date.parse(second?.attempted_at ?? "")).toBeGreaterThanOrEqual(Date.parse(first?.next_attempt_at ?? ""));
  });

  it("a 410 disables the endpoint at once, and it receives nothing more until enabled", async () => {
    const endpoint = await register();
    receiver.answer = () => ({ status: 410 });
    const id = await sendTest(endpoint.id);
    await until(async () => (await endpointOf(endpoint.id)).status === "disabled");
    expect(await endpointOf(endpoint.id)).toMatchObject({ status: "disabled", disabled_reason: "gone" });
    expect(receiver.received.filter((r) => r.id === id)).toHaveLength(1);
    receiver.answer = () => ({ status: 200 });
    const session = await newSession(h);
    await h.client().endSession(session.id);
    await deliveriesSettled(h);
    expect(receiver.received.filter((r) => r.body.data?.id === session.id)).toEqual([]);
    await h.client(KEYS.aHooks).enableWebhookEndpoint(endpoint.id);
    const next = await newSession(h);
    await until(() => receiver.received.some((r) => r.body.data?.id === next.id));
  });

  it("an endpoint whose every attempt failed for WEBHOOK_DISABLE_AFTER_S is disabled as failing, not before", async () => {
    const endpoint = await register();
    receiver.answer = () => ({ status: 500 });
    await sendTest(endpoint.id);
    await attempts(endpoint.id, 1);
    // Half the streak by the dispatcher's clock (the rest of the 4 s is the margin for a slow machine): still enabled.
    clock.advance(2000);
    await sendTest(endpoint.id);
    await attempts(endpoint.id, 2);
    await deliveriesSettled(h);
    expect((await endpointOf(endpoint.id)).status).toBe("enabled");
    clock.advance(2000);
    await sendTest(endpoint.id);
    const disabled = await until(
      async () => {
        const now = await endpointOf(endpoint.id);
        return now.status === "disabled" ? now : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(disabled.disabled_reason).toBe("failing");
  });

  it("does not follow a redirect: a 3xx is a failed attempt", async () => {
    const target = await new WebhookReceiver().start();
    const redirector = await new WebhookReceiver({ answer: () => ({ status: 307, headers: { Location: target.url } }) }).start();
    try {
      const endpoint = await register({ url: redirector.url });
      await sendTest(endpoint.id);
      const log = await until(async () => {
        const all = await deliveries(endpoint.id);
        return all.length > 0 ? all : undefined;
      });
      expect(log[0]).toMatchObject({ outcome: "failed", status_code: 307 });
      expect(target.received).toEqual([]);
    } finally {
      await redirector.stop();
      await target.stop();
    }
  });

  // A server of its own: no receiver answers a body a byte at a time.
  it("an answer whose body is still dripping when the attempt's time is up is a failed attempt (timeout)", async () => {
    const dripping: Server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "Content-Type": "text/plain" });
      const drip = setInterval(() => res.write("."), 300);
      res.on("close", () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => dripping.listen(0, "127.0.0.1", resolve));
    try {
      const port = (dripping.address() as AddressInfo).port;
      const endpoint = await register({ url: `http://127.0.0.1:${port}/hooks` });
      await sendTest(endpoint.id);
      const log = await until(async () => {
        const all = await deliveries(endpoint.id);
        return all.length > 0 ? all : undefined;
      });
      expect(log[0]).toMatchObject({ outcome: "failed", error: "timeout" });
      expect(log[0]?.duration_ms).toBeGreaterThanOrEqual(1900);
    } finally {
      dripping.closeAllConnections();
      dripping.close();
    }
  });

  it("a receiver that is down gets the event once it is back, under the same webhook-id", async () => {
    const endpoint = await register();
    await receiver.stop();
    const id = await sendTest(endpoint.id);
    const failed = await until(async () => {
      const all = await deliveries(endpoint.id);
      return all.length > 0 ? all : undefined;
    });
    expect(failed[0]).toMatchObject({ outcome: "failed", status_code: null, error: "connection_failed" });
    await receiver.restart();
    const got = await until(() => receiver.received.find((r) => r.id === id), { timeoutMs: 10_000 });
    expect(got.verifiedWith).toBe(0);
  });

  it("an endpoint that never answers delays nobody else's deliveries", async () => {
    const dead = new WebhookReceiver();
    await dead.start();
    dead.answer = () => "hang";
    try {
      const deadEndpoint = await register({ url: dead.url });
      // Far more than the replica's 8 places: the dead endpoint may take 2 of them at a time.
      for (let i = 0; i < 20; i++) await sendTest(deadEndpoint.id);
      await until(() => dead.received.length >= 2);
      const other = await register({}, KEYS.bHooks);
      const started = Date.now();
      const id = await sendTest(other.id, KEYS.bHooks);
      await until(() => receiver.received.some((r) => r.id === id));
      expect(Date.now() - started).toBeLessThan(1000);
      // At most a quarter of the places went to the dead endpoint at any time.
      expect(dead.received.length).toBeLessThanOrEqual(2);
      const log = await until(
        async () => {
          const all = await deliveries(deadEndpoint.id);
          return all.length > 0 ? all : undefined;
        },
        { timeoutMs: 10_000 },
      );
      expect(log[0]).toMatchObject({ outcome: "failed", error: "timeout", status_code: null });
      expect(log[0]?.duration_ms).toBeGreaterThanOrEqual(1900);
    } finally {
      await dead.stop();
    }
  });
});

describe("operations", () => {
  it("counts attempts and deliveries by event type and outcome, and reports the queue, in /metrics", async () => {
    const endpoint = await register();
    receiver.answer = () => ({ status: 200 });
    const id = await sendTest(endpoint.id);
    await until(() => receiver.received.some((r) => r.id === id));
    await h.composed.dispatcher.reconcile();
    const metrics = await until(async () => {
      const text = await (await fetch(`${h.metricsUrl}/metrics`)).text();
      return /dhs_customer_webhook_deliveries_total\{event_type="webhook.test",outcome="delivered"\} [1-9]/.test(text) ? text : undefined;
    });
    expect(metrics).toMatch(/dhs_customer_webhook_attempt_duration_seconds_count\{event_type="webhook.test",outcome="succeeded"\} [1-9]/);
    expect(metrics).toMatch(/^dhs_customer_webhook_queue_depth \d+/m);
    expect(metrics).toMatch(/^dhs_customer_webhook_oldest_pending_seconds \d/m);
  });

  it("logs one line per attempt with the endpoint, event, status and duration, never the secret or the payload", async () => {
    const endpoint = await register();
    const id = await sendTest(endpoint.id);
    await until(() => receiver.received.some((r) => r.id === id));
    const line = await until(() => h.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "webhook attempt" && l.event_id === id));
    expect(line).toMatchObject({ endpoint_id: endpoint.id, event_type: "webhook.test", attempt: 1, status: 200, error: null });
    expect(line.duration_ms).toEqual(expect.any(Number));
    const all = h.logs.join("\n");
    expect(all).not.toContain(endpoint.secret);
    expect(all).not.toContain('"data"');
  });
});
