/**
 * What every adapter of the customer webhook store must do (domain/customer-webhooks/ports.ts): its
 * endpoints, its delivery queue with leases, its attempt log and the endpoints' health, and the events a
 * session's change queues in it through the same adapter's session store. Run against the memory store
 * (its unit test) and against Redis and Redis Cluster (test/store). Times passed to the store are the
 * real clock's and later ones: the stores keep events for their retain time by the real clock.
 */
import { describe, expect, it } from "vitest";
import type {
  AttemptRecord,
  ClaimedAccount,
  ClaimedDelivery,
  OutboundEvent,
  WebhookEndpointRecord,
  WebhookStore,
} from "../../src/domain/customer-webhooks/ports.js";
import type { SessionStore } from "../../src/domain/sessions/ports.js";
import { persona, sessionRecord } from "../support/session-fixtures.js";

export interface WebhookStoreUnderTest {
  webhooks: WebhookStore;
  /** The same adapter's session store, whose changes queue their events in `webhooks`. */
  sessions: SessionStore;
  close(): Promise<void>;
}

const LEASE_MS = 30_000;
const ANY = { max: 100, perEndpoint: 100, busy: new Map<string, number>() };

const endpointId = () => `we_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;

function endpoint(accountId: string, overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  return {
    id: endpointId(),
    accountId,
    url: "https://example.test/hooks",
    eventTypes: ["*"],
    description: null,
    status: "enabled",
    disabledReason: null,
    createdAtMs: Date.now(),
    secrets: [{ secret: "whsec_current", expiresAtMs: null }],
    failingSinceMs: null,
    ...overrides,
  };
}

function event(type: OutboundEvent["type"], createdAtMs = Date.now(), traceparent?: string): OutboundEvent {
  const id = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
  return { id, type, createdAtMs, body: JSON.stringify({ id, type }), retainMs: 3_600_000, ...(traceparent ? { traceparent } : {}) };
}

function attempt(e: OutboundEvent, n: number, atMs: number, outcome: "succeeded" | "failed"): AttemptRecord {
  return {
    event_id: e.id,
    event_type: e.type,
    attempt: n,
    attempted_at: new Date(atMs).toISOString(),
    outcome,
    status_code: outcome === "succeeded" ? 200 : 503,
    error: null,
    duration_ms: 12,
    next_attempt_at: null,
  };
}

/** A new endpoint of the account, stored (the account may have `max`), with `events` queued for it; its partition. */
async function queuedFor(webhooks: WebhookStore, account: string, events: OutboundEvent[], max = 10) {
  const stored = endpoint(account);
  expect(await webhooks.createEndpoint(stored, max)).toBe(true);
  for (const e of events) expect(await webhooks.enqueueFor(account, stored.id, e)).toBe(true);
  return { stored, partition: webhooks.partitionOf(stored.id) };
}

/** Claims the account's queue in the partition, then every delivery due in it, at `nowMs`. */
async function claimAll(store: WebhookStore, accountId: string, partition: number, nowMs: number): Promise<ClaimedDelivery[]> {
  const accounts = await store.claimDueAccounts(nowMs, LEASE_MS, 100, [partition]);
  const account = accounts.find((a) => a.accountId === accountId);
  return account ? store.claimDeliveries(account, nowMs, LEASE_MS, ANY) : [];
}

/** Another endpoint id in the same partition as `id` (a partition holds many). */
function samePartition(store: WebhookStore, id: string): string {
  for (;;) {
    const other = endpointId();
    if (store.partitionOf(other) === store.partitionOf(id)) return other;
  }
}

/** A session of the account created through the session store's steps, its creation queuing `events`. */
async function createdWith(sessions: SessionStore, accountId: string, events: OutboundEvent[]): Promise<string> {
  const key = crypto.randomUUID();
  const claim = { lockTtlMs: 10_000, keyTtlMs: 60_000, maxOpen: 100, createdAtMs: Date.now() };
  const begun = await sessions.beginCreate(accountId, key, "print", claim);
  if (begun.kind !== "acquired") throw new Error(`expected an acquisition, got ${begun.kind}`);
  const session = sessionRecord({ id: begun.sessionId, account_id: accountId, created_at: new Date().toISOString() });
  const completion = {
    ...{ session, idempotencyKey: key, fingerprint: "print", lock: begun.lock, keyTtlMs: 60_000, events, usage: undefined },
    ...{ persona: persona(), personaTtlMs: 60_000 },
  };
  expect(await sessions.completeCreate(completion)).toBe(true);
  return session.id;
}

export function webhookStoreContract(adapter: string, make: () => Promise<WebhookStoreUnderTest>): void {
  const withStore = (test: (stores: WebhookStoreUnderTest, account: string) => Promise<void>) => async () => {
    const stores = await make();
    try {
      await test(stores, `acct_${crypto.randomUUID().slice(0, 8)}`);
    } finally {
      await stores.close();
    }
  };

  describe(`${adapter}: webhook endpoints`, () => {
    it(
      "stores an endpoint as given and finds and lists it under its own account only",
      withStore(async ({ webhooks }, account) => {
        const stored = endpoint(account, { description: "orders", eventTypes: ["session.created", "session.ended"] });
        expect(await webhooks.createEndpoint(stored, 10)).toBe(true);
        expect(await webhooks.getEndpoint(account, stored.id)).toEqual(stored);
        expect(await webhooks.listEndpoints(account)).toEqual([stored]);
        expect(await webhooks.getEndpoint(`${account}_other`, stored.id)).toBeUndefined();
        expect(await webhooks.listEndpoints(`${account}_other`)).toEqual([]);
        expect(await webhooks.getEndpoint(account, endpointId())).toBeUndefined();
      }),
    );

    it(
      "stores no more endpoints than the account may have; another account has its own",
      withStore(async ({ webhooks }, account) => {
        const [a, b] = [endpoint(account), endpoint(account, { createdAtMs: Date.now() + 1 })];
        expect(await webhooks.createEndpoint(a, 2)).toBe(true);
        expect(await webhooks.createEndpoint(b, 2)).toBe(true);
        expect(await webhooks.createEndpoint(endpoint(account), 2)).toBe(false);
        expect((await webhooks.listEndpoints(account)).map((e) => e.id).sort()).toEqual([a.id, b.id].sort());
        expect(await webhooks.createEndpoint(endpoint(`${account}_other`), 2)).toBe(true);
      }),
    );

    it(
      "deletes an endpoint once: it is no longer found or listed, its place is free, its log is gone",
      withStore(async ({ webhooks }, account) => {
        const e = event("webhook.test");
        const { stored, partition } = await queuedFor(webhooks, account, [e], 1);
        const [delivery] = await claimAll(webhooks, account, partition, Date.now());
        if (!delivery) throw new Error("expected a delivery");
        await webhooks.finishDelivery(
          delivery,
          { kind: "retry", atMs: Date.now() + 60_000 },
          attempt(e, 1, Date.now(), "failed"),
          "failed",
          Date.now(),
        );
        expect((await webhooks.listDeliveries(account, stored.id, 10, undefined)).items).toHaveLength(1);

        expect(await webhooks.deleteEndpoint(account, stored.id)).toBe(true);
        expect(await webhooks.deleteEndpoint(account, stored.id)).toBe(false);
        expect(await webhooks.getEndpoint(account, stored.id)).toBeUndefined();
        expect(await webhooks.listEndpoints(account)).toEqual([]);
        expect(await webhooks.listDeliveries(account, stored.id, 10, undefined)).toEqual({ items: [], next: null });
        // Its pending delivery finds no endpoint when it comes due (and is dropped by the dispatcher).
        expect((await webhooks.loadDelivery(delivery)).endpoint).toBeUndefined();
        expect(await webhooks.createEndpoint(endpoint(account), 1)).toBe(true);
      }),
    );

    it(
      "replaces an endpoint's secrets only while they are the ones read",
      withStore(async ({ webhooks }, account) => {
        const { stored } = await queuedFor(webhooks, account, []);
        const rotated = [
          { secret: "whsec_next", expiresAtMs: null },
          { secret: "whsec_current", expiresAtMs: Date.now() + 86_400_000 },
        ];
        expect(await webhooks.replaceSecrets(account, stored.id, stored.secrets, rotated)).toBe(true);
        expect((await webhooks.getEndpoint(account, stored.id))?.secrets).toEqual(rotated);
        // A writer that read the old secrets lost the race: nothing changes.
        expect(await webhooks.replaceSecrets(account, stored.id, stored.secrets, [{ secret: "whsec_lost", expiresAtMs: null }])).toBe(
          false,
        );
        expect((await webhooks.getEndpoint(account, stored.id))?.secrets).toEqual(rotated);
        expect(await webhooks.replaceSecrets(account, endpointId(), stored.secrets, rotated)).toBe(false);
      }),
    );
  });

  describe(`${adapter}: the delivery queue`, () => {
    it(
      "queues a test event for one existing endpoint, due at its creation, with what an attempt needs",
      withStore(async ({ webhooks }, account) => {
        const { stored, partition } = await queuedFor(webhooks, account, []);
        const now = Date.now();
        const traceparent = `00-${"b".repeat(32)}-${"c".repeat(16)}-01`;
        const e = event("webhook.test", now, traceparent);
        expect(await webhooks.enqueueFor(account, endpointId(), e)).toBe(false);
        expect(await webhooks.enqueueFor(account, stored.id, e)).toBe(true);
        expect(webhooks.partitionOf(stored.id)).toBe(partition);

        const accounts = await webhooks.claimDueAccounts(now, LEASE_MS, 10);
        expect(accounts).toEqual([{ accountId: account, partition, claimedUntil: now + LEASE_MS }]);
        const claimed = await webhooks.claimDeliveries(accounts[0] as ClaimedAccount, now, LEASE_MS, ANY);
        expect(claimed).toEqual([{ accountId: account, partition, endpointId: stored.id, eventId: e.id, claimedUntil: now + LEASE_MS }]);
        expect(await webhooks.loadDelivery(claimed[0] as ClaimedDelivery)).toEqual({
          endpoint: stored,
          body: e.body,
          attemptsMade: 0,
          traceparent,
        });
      }),
    );

    it(
      "hands out nothing before it is due, looking where it is told to",
      withStore(async ({ webhooks }, account) => {
        const now = Date.now();
        const { partition } = await queuedFor(webhooks, account, [event("webhook.test", now + 10_000)]);
        expect(await webhooks.claimDueAccounts(now, LEASE_MS, 10, [partition])).toEqual([]);
        expect(await webhooks.claimDueAccounts(now + 10_000, LEASE_MS, 10, [partition])).toEqual([
          { accountId: account, partition, claimedUntil: now + 10_000 + LEASE_MS },
        ]);
      }),
    );

    it(
      "hands out a claim once while its lease lasts, again after it (its holder died), and takes the outcome of the current holder only",
      withStore(async ({ webhooks }, account) => {
        const now = Date.now();
        const e = event("webhook.test", now);
        const { stored, partition } = await queuedFor(webhooks, account, [e]);
        const [first] = await webhooks.claimDueAccounts(now, LEASE_MS, 10, [partition]);
        if (!first) throw new Error("expected the account");
        expect(await webhooks.claimDueAccounts(now, LEASE_MS, 10, [partition])).toEqual([]);
        const [dead] = await webhooks.claimDeliveries(first, now, LEASE_MS, ANY);
        if (!dead) throw new Error("expected the delivery");
        expect(await webhooks.claimDeliveries(first, now, LEASE_MS, ANY)).toEqual([]);
        expect(await webhooks.claimDueAccounts(now + LEASE_MS - 1, LEASE_MS, 10, [partition])).toEqual([]);

        const later = now + LEASE_MS;
        const [again] = await webhooks.claimDueAccounts(later, LEASE_MS, 10, [partition]);
        if (!again) throw new Error("expected the account again");
        const [current] = await webhooks.claimDeliveries(again, later, LEASE_MS, ANY);
        expect(current).toEqual({ ...dead, claimedUntil: later + LEASE_MS });
        // The holder whose lease ran out writes nothing: no log entry, no health, the delivery stays.
        expect(await webhooks.finishDelivery(dead, { kind: "done" }, attempt(e, 1, now, "failed"), "failed", now)).toBe(false);
        expect(await webhooks.listDeliveries(account, stored.id, 10, undefined)).toEqual({ items: [], next: null });
        expect((await webhooks.getEndpoint(account, stored.id))?.failingSinceMs).toBeNull();
        expect((await webhooks.loadDelivery(current as ClaimedDelivery)).body).toBe(e.body);
        expect(
          await webhooks.finishDelivery(
            current as ClaimedDelivery,
            { kind: "done" },
            attempt(e, 1, later, "succeeded"),
            "succeeded",
            later,
          ),
        ).toBe(true);
        expect((await webhooks.listDeliveries(account, stored.id, 10, undefined)).items).toHaveLength(1);
      }),
    );

    it(
      "claims at most `max` deliveries, and at most `perEndpoint` to an endpoint counting those in flight",
      withStore(async ({ webhooks }, account) => {
        const one = endpoint(account);
        const two = endpoint(account, { id: samePartition(webhooks, one.id) });
        await webhooks.createEndpoint(one, 10);
        await webhooks.createEndpoint(two, 10);
        const now = Date.now();
        for (let i = 3; i > 0; i--) {
          await webhooks.enqueueFor(account, one.id, event("webhook.test", now - i));
          await webhooks.enqueueFor(account, two.id, event("webhook.test", now - i));
        }
        const [claim] = await webhooks.claimDueAccounts(now, LEASE_MS, 10, [webhooks.partitionOf(one.id)]);
        if (!claim) throw new Error("expected the account");
        const limited = await webhooks.claimDeliveries(claim, now, LEASE_MS, { max: 10, perEndpoint: 2, busy: new Map([[one.id, 1]]) });
        const to = (id: string) => limited.filter((d) => d.endpointId === id).length;
        expect([to(one.id), to(two.id)]).toEqual([1, 2]);
        expect(await webhooks.claimDeliveries(claim, now, LEASE_MS, { max: 2, perEndpoint: 10, busy: new Map() })).toHaveLength(2);
        expect(await webhooks.claimDeliveries(claim, now, LEASE_MS, ANY)).toHaveLength(1);
      }),
    );

    it(
      "brings a retry back at its time with the attempts made; once done, the delivery and its event are gone",
      withStore(async ({ webhooks }, account) => {
        const now = Date.now();
        const e = event("webhook.test", now);
        const { stored, partition } = await queuedFor(webhooks, account, [e]);
        const [first] = await claimAll(webhooks, account, partition, now);
        if (!first) throw new Error("expected the delivery");
        const retryAt = now + 5_000;
        expect(await webhooks.finishDelivery(first, { kind: "retry", atMs: retryAt }, attempt(e, 1, now, "failed"), "failed", now)).toBe(
          true,
        );
        expect(await claimAll(webhooks, account, partition, retryAt - 1)).toEqual([]);
        const [second] = await claimAll(webhooks, account, partition, retryAt);
        if (!second) throw new Error("expected the retry");
        expect(await webhooks.loadDelivery(second)).toMatchObject({ body: e.body, attemptsMade: 1 });
        expect(await webhooks.finishDelivery(second, { kind: "done" }, attempt(e, 2, retryAt, "succeeded"), "succeeded", retryAt)).toBe(
          true,
        );
        expect(await webhooks.loadDelivery(second)).toEqual({ endpoint: stored, body: undefined, attemptsMade: 0, traceparent: undefined });
        // Nothing is left to hand out, now or later.
        expect(await claimAll(webhooks, account, partition, retryAt + LEASE_MS)).toEqual([]);
        expect(await claimAll(webhooks, account, partition, retryAt + 10 * LEASE_MS)).toEqual([]);
      }),
    );

    it(
      "reports how many deliveries are pending and when the oldest event was created",
      withStore(async ({ webhooks }, account) => {
        const now = Date.now();
        expect(await webhooks.reconcile(now)).toEqual({ pending: 0, oldestCreatedAtMs: null });
        const [older, newer] = [event("webhook.test", now - 2_000), event("webhook.test", now - 1_000)];
        const { partition } = await queuedFor(webhooks, account, [older, newer]);
        expect(await webhooks.reconcile(now)).toEqual({ pending: 2, oldestCreatedAtMs: now - 2_000 });
        const claimed = await claimAll(webhooks, account, partition, now);
        // A claimed delivery is pending until it is resolved.
        expect(await webhooks.reconcile(now)).toEqual({ pending: 2, oldestCreatedAtMs: now - 2_000 });
        const delivery = claimed.find((d) => d.eventId === older.id) as ClaimedDelivery;
        await webhooks.finishDelivery(delivery, { kind: "done" }, null, "unchanged", now);
        expect(await webhooks.reconcile(now)).toEqual({ pending: 1, oldestCreatedAtMs: now - 1_000 });
      }),
    );
  });

  describe(`${adapter}: the attempt log and the endpoint's health`, () => {
    it(
      "logs attempts newest first, a page at a time, and follows the failure streak from them",
      withStore(async ({ webhooks }, account) => {
        const now = Date.now();
        const events = [event("webhook.test", now - 3), event("webhook.test", now - 2), event("webhook.test", now - 1)];
        const { stored, partition } = await queuedFor(webhooks, account, events);
        const claimed = await claimAll(webhooks, account, partition, now);
        const byEvent = (e: OutboundEvent) => claimed.find((d) => d.eventId === e.id) as ClaimedDelivery;
        // Two failures (the streak starts at the first), then a success (it ends).
        const outcomes = ["failed", "failed", "succeeded"] as const;
        const failingSince = [now + 1, now + 1, null];
        const attempts = events.map((e, i) => attempt(e, 1, now + 1 + i, outcomes[i] as "failed" | "succeeded"));
        for (const [i, e] of events.entries()) {
          const health = outcomes[i] as "failed" | "succeeded";
          expect(await webhooks.finishDelivery(byEvent(e), { kind: "done" }, attempts[i] as AttemptRecord, health, now + 1 + i)).toBe(true);
          expect((await webhooks.getEndpoint(account, stored.id))?.failingSinceMs).toBe(failingSince[i]);
        }

        const first = await webhooks.listDeliveries(account, stored.id, 2, undefined);
        expect(first.items).toEqual([
          { id: expect.stringMatching(/^att_/), ...attempts[2] },
          { id: expect.stringMatching(/^att_/), ...attempts[1] },
        ]);
        expect(first.next).not.toBeNull();
        const second = await webhooks.listDeliveries(account, stored.id, 2, first.next as string);
        expect(second).toEqual({ items: [{ id: expect.stringMatching(/^att_/), ...attempts[0] }], next: null });
        expect(new Set([...first.items, ...second.items].map((item) => item.id)).size).toBe(3);
      }),
    );

    it(
      "disables an endpoint an attempt says to, with its reason; enabling it forgets the reason and the streak",
      withStore(async ({ webhooks }, account) => {
        const now = Date.now();
        const [e1, e2] = [event("webhook.test", now - 2), event("webhook.test", now - 1)];
        const { stored, partition } = await queuedFor(webhooks, account, [e1, e2]);
        const claimed = await claimAll(webhooks, account, partition, now);
        const [d1, d2] = [e1, e2].map((e) => claimed.find((d) => d.eventId === e.id) as ClaimedDelivery);
        await webhooks.finishDelivery(d1 as ClaimedDelivery, { kind: "done" }, attempt(e1, 1, now, "failed"), "failed", now);
        // No attempt to log, only what the endpoint's health becomes.
        expect(await webhooks.finishDelivery(d2 as ClaimedDelivery, { kind: "done" }, null, { disable: "failing" }, now + 1)).toBe(true);
        expect(await webhooks.getEndpoint(account, stored.id)).toEqual({
          ...stored,
          status: "disabled",
          disabledReason: "failing",
          failingSinceMs: null,
        });
        expect((await webhooks.listDeliveries(account, stored.id, 10, undefined)).items).toHaveLength(1);

        expect(await webhooks.enableEndpoint(account, stored.id)).toBe(true);
        expect(await webhooks.getEndpoint(account, stored.id)).toEqual(stored);
        expect(await webhooks.enableEndpoint(account, endpointId())).toBe(false);
      }),
    );
  });

  describe(`${adapter}: events a session's change queues`, () => {
    it(
      "go to every enabled endpoint of the account whose event types take them, in the session's partition, and to no other",
      withStore(async ({ webhooks, sessions }, account) => {
        const all = endpoint(account, { eventTypes: ["*"] });
        const created = endpoint(account, { eventTypes: ["session.created", "session.ended"] });
        const ended = endpoint(account, { eventTypes: ["session.ended"] });
        const deleted = endpoint(account, { eventTypes: ["*"] });
        const elsewhere = endpoint(`${account}_other`, { eventTypes: ["*"] });
        for (const e of [all, created, ended, deleted, elsewhere]) await webhooks.createEndpoint(e, 10);
        await webhooks.deleteEndpoint(account, deleted.id);

        const e = event("session.created");
        const sessionId = await createdWith(sessions, account, [e]);
        const claimed = await claimAll(webhooks, account, webhooks.partitionOf(sessionId), Date.now());
        expect(claimed.map((d) => d.endpointId).sort()).toEqual([all.id, created.id].sort());
        for (const delivery of claimed) {
          expect(delivery).toMatchObject({ accountId: account, partition: webhooks.partitionOf(sessionId), eventId: e.id });
          expect(await webhooks.loadDelivery(delivery)).toMatchObject({ body: e.body, attemptsMade: 0 });
        }
        expect(await claimAll(webhooks, `${account}_other`, webhooks.partitionOf(sessionId), Date.now())).toEqual([]);
      }),
    );

    it(
      "skip an endpoint while it is disabled, and reach it again once it is enabled",
      withStore(async ({ webhooks, sessions }, account) => {
        const { stored, partition } = await queuedFor(webhooks, account, [event("webhook.test")]);
        const [delivery] = await claimAll(webhooks, account, partition, Date.now());
        await webhooks.finishDelivery(delivery as ClaimedDelivery, { kind: "done" }, null, { disable: "gone" }, Date.now());

        const skipped = await createdWith(sessions, account, [event("session.created")]);
        expect(await claimAll(webhooks, account, webhooks.partitionOf(skipped), Date.now())).toEqual([]);
        await webhooks.enableEndpoint(account, stored.id);
        const e = event("session.created");
        const reached = await createdWith(sessions, account, [e]);
        const claimed = await claimAll(webhooks, account, webhooks.partitionOf(reached), Date.now());
        expect(claimed.map((d) => [d.endpointId, d.eventId])).toEqual([[stored.id, e.id]]);
      }),
    );
  });
}
