import { describe, expect, it } from "vitest";
import type { SendResult, WebhookEndpointRecord, WebhookSender } from "../domain/customer-webhooks/ports.js";
import { RetrySchedule } from "../domain/customer-webhooks/retry-schedule.js";
import { outboundEvent } from "../domain/sessions/session-events.js";
import { MemoryWebhookStore } from "../store/memory/customer-webhook-store.js";
import type { ActiveSpan, SpanAttributes, SpanOptions, Tracing } from "../tracing/tracing.js";
import { CustomerWebhookDispatcher } from "./customer-webhook-dispatcher.js";

function endpoint(overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  return {
    id: "we_000000000000000000000001",
    accountId: "acct_1",
    url: "https://example.test/hooks",
    eventTypes: ["*"],
    description: null,
    status: "enabled",
    disabledReason: null,
    createdAtMs: 0,
    secrets: [{ secret: "whsec_current", expiresAtMs: null }],
    failingSinceMs: null,
    ...overrides,
  };
}

/** A sender that records what it was asked to send and answers as told; attempts may be held open. */
class FakeSender implements WebhookSender {
  readonly sent: { eventId: string; secrets: string[]; traceparent?: string | undefined }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  constructor(
    private readonly answer: () => Promise<SendResult> = async () => ({ kind: "answered", status: 200, retryAfterMs: null, durationMs: 1 }),
  ) {}
  async send(request: { eventId: string; secrets: string[]; traceparent?: string | undefined }): Promise<SendResult> {
    this.sent.push({ eventId: request.eventId, secrets: request.secrets, traceparent: request.traceparent });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      return await this.answer();
    } finally {
      this.inFlight--;
    }
  }
}

/** Records each span with its attributes, links and options; each span's traceparent is its own. */
class RecordingTracing implements Tracing {
  readonly enabled = true;
  readonly spans: { name: string; attributes: SpanAttributes; links: string[]; options: SpanOptions | undefined }[] = [];
  private active: string | undefined;
  async span<T>(name: string, attributes: SpanAttributes, fn: (span: ActiveSpan) => Promise<T>, options?: SpanOptions) {
    const span = { name, attributes: { ...attributes }, links: [] as string[], options };
    this.spans.push(span);
    const outer = this.active;
    this.active = `00-${"a".repeat(32)}-${String(this.spans.length).padStart(16, "0")}-01`;
    try {
      return await fn({ setAttributes: (more) => Object.assign(span.attributes, more), link: (tp) => tp && span.links.push(tp) });
    } finally {
      this.active = outer;
    }
  }
  traceparent = () => this.active;
  logFields = () => ({});
  outside = <T>(fn: () => T) => fn();
}

function dispatcher(store: MemoryWebhookStore, sender: WebhookSender, now: () => number, concurrency = 8, tracing?: Tracing) {
  return new CustomerWebhookDispatcher(store, sender, {
    ...(tracing ? { tracing } : {}),
    intervalMs: 60_000,
    reconcileIntervalMs: 60_000,
    concurrency,
    attemptTimeoutMs: 1000,
    disableAfterMs: 5 * 86_400_000,
    schedule: new RetrySchedule([5]),
    now,
  });
}

const event = (at = 1000) =>
  outboundEvent("webhook.test", "live", new Date(at), { endpoint_id: "we_000000000000000000000001" }, 86_400_000);

describe("CustomerWebhookDispatcher", () => {
  it("makes each attempt a root span linked to the trace its event was recorded in, and sends that span's traceparent", async () => {
    const now = 1000;
    const store = new MemoryWebhookStore(() => now);
    const sender = new FakeSender(async () => ({ kind: "answered", status: 503, retryAfterMs: null, durationMs: 1 }));
    const tracing = new RecordingTracing();
    await store.createEndpoint(endpoint(), 10);
    const d = dispatcher(store, sender, () => now, 8, tracing);
    const cause = `00-${"c".repeat(32)}-${"d".repeat(16)}-01`;
    const traced = outboundEvent("webhook.test", "live", new Date(now), { endpoint_id: "we_000000000000000000000001" }, 86_400_000, cause);
    await store.enqueueFor("acct_1", "we_000000000000000000000001", traced);
    d.nudge();
    await d.idle();
    await d.stop();
    expect(tracing.spans).toEqual([
      {
        name: "webhook.attempt",
        attributes: {
          "dhs.account.id": "acct_1",
          "dhs.webhook.endpoint_id": "we_000000000000000000000001",
          "dhs.webhook.event_id": traced.id,
          "dhs.webhook.event_type": "webhook.test",
          "dhs.webhook.attempt": 1,
          "dhs.webhook.outcome": "retry",
          "http.response.status_code": 503,
          "error.type": "503",
        },
        links: [cause],
        options: { root: true, kind: "client" },
      },
    ]);
    expect(sender.sent[0]?.traceparent).toBe(`00-${"a".repeat(32)}-${"1".padStart(16, "0")}-01`);
  });

  it("signs with the current secret and a rotated-out one until it expires, never after", async () => {
    let now = 1000;
    const store = new MemoryWebhookStore(() => now);
    const sender = new FakeSender();
    const secrets = [
      { secret: "whsec_new", expiresAtMs: null },
      { secret: "whsec_old", expiresAtMs: 5000 },
    ];
    await store.createEndpoint(endpoint({ secrets }), 10);
    const d = dispatcher(store, sender, () => now);
    d.start();
    await store.enqueueFor("acct_1", "we_000000000000000000000001", event(now));
    d.nudge();
    await d.idle();
    now = 6000;
    await store.enqueueFor("acct_1", "we_000000000000000000000001", event(now));
    d.nudge();
    await d.idle();
    await d.stop();
    expect(sender.sent.map((s) => s.secrets)).toEqual([["whsec_new", "whsec_old"], ["whsec_new"]]);
  });

  it("drops a disabled endpoint's events without sending them, but still sends it a test event", async () => {
    const now = 1000;
    const store = new MemoryWebhookStore(() => now);
    const sender = new FakeSender();
    await store.createEndpoint(endpoint({ status: "disabled", disabledReason: "gone" }), 10);
    const d = dispatcher(store, sender, () => now);
    d.start();
    const ended = outboundEvent("session.ended", "live", new Date(now), { endpoint_id: "x" }, 86_400_000);
    await store.enqueueFor("acct_1", "we_000000000000000000000001", ended);
    const test = event(now);
    await store.enqueueFor("acct_1", "we_000000000000000000000001", test);
    d.nudge();
    await d.idle();
    await d.stop();
    expect(sender.sent.map((s) => s.eventId)).toEqual([test.id]);
    expect((await store.reconcile(now)).pending).toBe(0);
  });

  it("never has more attempts in flight than its concurrency, nor more than a quarter of it to one endpoint", async () => {
    const now = 1000;
    const store = new MemoryWebhookStore(() => now);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sender = new FakeSender(async () => {
      await gate;
      return { kind: "answered", status: 200, retryAfterMs: null, durationMs: 1 };
    });
    await store.createEndpoint(endpoint(), 10);
    await store.createEndpoint(endpoint({ id: "we_000000000000000000000002" }), 10);
    for (let i = 0; i < 20; i++) {
      await store.enqueueFor("acct_1", "we_000000000000000000000001", event(now));
      await store.enqueueFor("acct_1", "we_000000000000000000000002", event(now));
    }
    const d = dispatcher(store, sender, () => now, 8);
    d.start();
    d.nudge();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sender.inFlight).toBe(4);
    release();
    await d.idle();
    await d.stop();
    expect(sender.sent).toHaveLength(40);
    expect(sender.maxInFlight).toBeLessThanOrEqual(4);
  });

  it("two dispatchers on one store never attempt a delivery twice", async () => {
    const now = 1000;
    const store = new MemoryWebhookStore(() => now);
    const sender = new FakeSender(async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return { kind: "answered", status: 200, retryAfterMs: null, durationMs: 2 };
    });
    await store.createEndpoint(endpoint(), 10);
    for (let i = 0; i < 50; i++) await store.enqueueFor("acct_1", "we_000000000000000000000001", event(now));
    const a = dispatcher(store, sender, () => now, 4);
    const b = dispatcher(store, sender, () => now, 4);
    a.start();
    b.start();
    await Promise.all([a.idle(), b.idle()]);
    for (let i = 0; i < 20 && sender.sent.length < 50; i++) {
      a.nudge();
      b.nudge();
      await Promise.all([a.idle(), b.idle()]);
    }
    await Promise.all([a.stop(), b.stop()]);
    expect(sender.sent).toHaveLength(50);
    expect(new Set(sender.sent.map((s) => s.eventId)).size).toBe(50);
  });

  it("looks only in the partition nudged for, also while attempts from it end, and everywhere on its interval", async () => {
    const now = 1000;
    const store = new MemoryWebhookStore(() => now);
    const looked: (readonly number[] | undefined)[] = [];
    const claim = store.claimDueAccounts.bind(store);
    store.claimDueAccounts = (nowMs, leaseMs, max, near) => {
      looked.push(near);
      return claim(nowMs, leaseMs, max, near);
    };
    await store.createEndpoint(endpoint(), 10);
    const sender = new FakeSender();
    const d = dispatcher(store, sender, () => now);
    for (let i = 0; i < 5; i++) await store.enqueueFor("acct_1", "we_000000000000000000000001", event(now));
    d.nudge(0);
    d.nudge(0);
    await d.idle();
    expect(sender.sent).toHaveLength(5);
    expect(looked.length).toBeGreaterThan(0);
    expect(looked.every((near) => near?.length === 1 && near[0] === 0)).toBe(true);
    d.nudge();
    await d.idle();
    expect(looked.at(-1)).toBeUndefined();
  });
});
