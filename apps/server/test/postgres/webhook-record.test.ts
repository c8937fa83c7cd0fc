/**
 * The webhook endpoints' record in PostgreSQL and Redis's copy of it, kept in step by the history
 * writer's copier: what deliveries change (the log, the endpoint's health) reaches the record once; after
 * Redis lost everything, the endpoints and their logs are served from the record and copied back so that
 * events reach them again; endpoints Redis held before DATABASE_URL are taken into the record.
 */

import type { TestDatabase } from "@dhs/testkit";
import { Redis } from "ioredis";
import type pg from "pg";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import type { AttemptRecord, ClaimedDelivery, OutboundEvent, WebhookEndpointRecord } from "../../src/domain/customer-webhooks/ports.js";
import { HistoryWebhookStore } from "../../src/store/hybrid/history-webhook-store.js";
import { WebhookRecordCopier } from "../../src/store/hybrid/webhook-record-copier.js";
import { webhookEndpointTable } from "../../src/store/postgres/webhook-endpoint-table.js";
import { RedisWebhookCopy } from "../../src/store/redis/customer-webhook-copy.js";
import { RedisWebhookStore } from "../../src/store/redis/customer-webhook-store.js";
import { databaseFrom, flushPrefix, testPool } from "../support/database.js";

let database: TestDatabase;
let db: pg.Pool;
let redis: Redis;
let prefix: string;
let live: RedisWebhookStore;
let copy: RedisWebhookCopy;
let store: HistoryWebhookStore;
let copier: WebhookRecordCopier;
const account = () => `acct_${prefix}`;

beforeEach(async () => {
  database = await databaseFrom(inject("databaseTemplate"));
  db = testPool(database.url, 5);
  redis = new Redis(inject("redisUrl"));
  prefix = `rec${crypto.randomUUID().slice(0, 8)}`;
  live = new RedisWebhookStore(redis, prefix, undefined, true);
  copy = new RedisWebhookCopy(redis, prefix);
  store = new HistoryWebhookStore(live, copy, db);
  copier = new WebhookRecordCopier({ store, live, copy, db }, { leaseMs: 30_000, batch: 100, retryMs: 5000 });
});

afterEach(async () => {
  await flushPrefix(redis, prefix);
  redis.disconnect();
  await db.end();
  await database.drop();
});

function endpoint(overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  return {
    ...{ id: `we_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`, accountId: account(), url: "https://example.test/hooks" },
    ...{ eventTypes: ["*"], description: "orders", status: "enabled", disabledReason: null, createdAtMs: Date.now() },
    ...{ secrets: [{ secret: "whsec_current", expiresAtMs: null }], failingSinceMs: null },
    ...overrides,
  } as WebhookEndpointRecord;
}

function event(): OutboundEvent {
  const id = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
  return { id, type: "webhook.test", createdAtMs: Date.now(), body: JSON.stringify({ id }), retainMs: 3_600_000 };
}

/** `count` test events to the endpoint, each attempted once and failed (the last one disables it when `disable`). */
async function failedAttempts(on: WebhookEndpointRecord, count: number, disable = false): Promise<AttemptRecord[]> {
  const events = Array.from({ length: count }, event);
  for (const e of events) expect(await store.enqueueFor(on.accountId, on.id, e)).toBe(true);
  const [claimed] = await store.claimDueAccounts(Date.now(), 30_000, 10, [store.partitionOf(on.id)]);
  const deliveries = await store.claimDeliveries(claimed as NonNullable<typeof claimed>, Date.now(), 30_000, {
    ...{ max: 100, perEndpoint: 100, busy: new Map() },
  });
  const attempts: AttemptRecord[] = [];
  for (const [i, e] of events.entries()) {
    const delivery = deliveries.find((d) => d.eventId === e.id) as ClaimedDelivery;
    const attempt: AttemptRecord = {
      ...{ event_id: e.id, event_type: e.type, attempt: 1, attempted_at: new Date().toISOString(), outcome: "failed" },
      ...{ status_code: 500, error: null, duration_ms: 3, next_attempt_at: null },
    };
    const health = disable && i === count - 1 ? { disable: "failing" as const } : ("failed" as const);
    expect(await store.finishDelivery(delivery, { kind: "done" }, attempt, health, Date.now())).toBe(true);
    attempts.push(attempt);
  }
  return attempts;
}

const recordOf = (id: string) => webhookEndpointTable.endpoint(db, account(), id);
const loggedIn = async (id: string) => (await webhookEndpointTable.log(db, account(), id, 2000)).length;

describe("the webhook endpoints' record", () => {
  it("is written first, and gets each attempt and the endpoint's health once, from the copier", async () => {
    const first = endpoint();
    expect(await store.createEndpoint(first, 10)).toBe(true);
    expect(await recordOf(first.id)).toEqual(first);

    await failedAttempts(first, 3, true);
    // Not in the record until the copier's pass.
    expect(await loggedIn(first.id)).toBe(0);
    expect(await copier.copyDue(Date.now())).toBe(1);
    expect(await loggedIn(first.id)).toBe(3);
    expect(await recordOf(first.id)).toMatchObject({ status: "disabled", disabledReason: "failing", failingSinceMs: null });
    // Nothing left to copy: a second pass changes nothing.
    expect(await copier.copyDue(Date.now())).toBe(0);
    await failedAttempts(first, 2);
    expect(await copier.copyDue(Date.now())).toBe(1);
    expect(await loggedIn(first.id)).toBe(5);

    expect(await store.enableEndpoint(account(), first.id)).toBe(true);
    expect(await recordOf(first.id)).toEqual(first);
  });

  it("keeps an endpoint's newest 1 000 attempts: counted, or from Redis's oldest when its log is full", async () => {
    const kept = endpoint();
    expect(await store.createEndpoint(kept, 10)).toBe(true);
    const entries = Array.from({ length: 1003 }, (_, i) => ({ ms: String(1_800_000_000_000 + i), seq: "0", attempt: { n: i } }));
    await webhookEndpointTable.appendLog(db, account(), kept.id, entries as never, 1000);
    const log = await webhookEndpointTable.log(db, account(), kept.id, 2000);
    expect(log.map((row) => row.ms)).toEqual(
      entries
        .slice(3)
        .map((e) => e.ms)
        .reverse(),
    );

    // Through the copier: Redis's log full (1 000 of 1 020 attempts), each copied once, none older kept.
    const full = endpoint({ createdAtMs: Date.now() + 1 });
    expect(await store.createEndpoint(full, 10)).toBe(true);
    const key = `${prefix}:{${account()}}:hook:log:${full.id}`;
    const add = async (n: number) => {
      for (let i = 0; i < n; i++) await redis.xadd(key, "MAXLEN", "1000", "*", "a", JSON.stringify({ n: i }));
      await redis.zincrby(`${prefix}:{${account()}}:hook:unsynced`, 1, full.id);
      await copy.markDue(account(), Date.now());
    };
    await add(1020);
    await copier.copyDue(Date.now());
    const redisIds = async () => (await redis.xrevrange(key, "+", "-")).map(([id]) => `att_${id}`);
    const recordIds = async () => (await webhookEndpointTable.log(db, account(), full.id, 2000)).map((r) => `att_${r.ms}-${r.seq}`);
    expect(await recordIds()).toEqual(await redisIds());
    await add(7);
    await copier.copyDue(Date.now());
    expect(await recordIds()).toEqual(await redisIds());
    expect(await recordIds()).toHaveLength(1000);
  });

  it("after Redis lost everything, serves the endpoints and their logs from the record, and copies them back for the next events", async () => {
    const [kept, disabled] = [endpoint(), endpoint({ createdAtMs: Date.now() + 1, eventTypes: ["session.ended"] })];
    for (const e of [kept, disabled]) expect(await store.createEndpoint(e, 10)).toBe(true);
    const attempts = await failedAttempts(disabled, 2, true);
    await copier.copyDue(Date.now());
    const before = {
      endpoints: await store.listEndpoints(account()),
      log: await store.listDeliveries(account(), disabled.id, 10, undefined),
    };
    expect(before.log.items.map((item) => item.event_id)).toEqual(attempts.map((a) => a.event_id).reverse());

    await flushPrefix(redis, prefix);
    // A test event to an endpoint Redis lost: its account's copy is made whole first, from the record.
    expect(await store.enqueueFor(account(), kept.id, event())).toBe(true);
    expect(await copy.whole(account())).toBe(true);
    await flushPrefix(redis, prefix);
    expect(await store.listEndpoints(account())).toEqual(before.endpoints);
    expect(await store.getEndpoint(account(), disabled.id)).toEqual(before.endpoints[1]);
    expect(await store.listDeliveries(account(), disabled.id, 10, undefined)).toEqual(before.log);
    const page = await store.listDeliveries(account(), disabled.id, 1, undefined);
    expect(await store.listDeliveries(account(), disabled.id, 1, page.next as string)).toEqual({
      items: [before.log.items[1]],
      next: null,
    });

    expect(await copier.restore(false)).toBe(1);
    expect(await copy.whole(account())).toBe(true);
    expect(await copier.restore(false)).toBe(0);
    expect(await live.listEndpoints(account())).toEqual(before.endpoints);
    // Routed again: an event reaches the enabled endpoint (the disabled one stays without).
    const e = event();
    expect(await store.enqueueFor(account(), kept.id, e)).toBe(true);
    const [claimed] = await store.claimDueAccounts(Date.now(), 30_000, 10, [store.partitionOf(kept.id)]);
    expect(claimed?.accountId).toBe(account());
  });

  it("takes in the endpoints Redis held before DATABASE_URL was set, keeping what the record has", async () => {
    const held = endpoint();
    expect(await live.createEndpoint(held, 10)).toBe(true);
    expect(await store.listEndpoints(account())).toEqual([]);
    await copier.restore(false);
    expect(await recordOf(held.id)).toEqual(held);
    expect(await store.listEndpoints(account())).toEqual([held]);
  });

  it("leaves nothing of an endpoint deleted while its changes waited to be copied, and keeps one changed meanwhile marked", async () => {
    const [gone, busy] = [endpoint(), endpoint({ createdAtMs: Date.now() + 1 })];
    for (const e of [gone, busy]) expect(await store.createEndpoint(e, 10)).toBe(true);
    await failedAttempts(gone, 1);
    expect(await store.deleteEndpoint(account(), gone.id)).toBe(true);
    await copier.copyDue(Date.now());
    expect(await recordOf(gone.id)).toBeUndefined();
    expect(await copy.unsynced(account())).toEqual([]);

    await failedAttempts(busy, 1);
    const [read] = await copy.unsynced(account());
    await failedAttempts(busy, 1);
    await copy.markCopied(account(), read as NonNullable<typeof read>, undefined);
    expect((await copy.unsynced(account())).map((e) => e.id)).toEqual([busy.id]);
    await copier.copyDue(Date.now());
    expect(await loggedIn(busy.id)).toBe(2);
  });
});

describe("Redis's copy ahead of the record (a write whose COMMIT failed after the copy took it)", () => {
  /** The copy holds a secret the record never took for `kept`, and an endpoint the record never had. */
  async function ahead() {
    const kept = endpoint();
    expect(await store.createEndpoint(kept, 10)).toBe(true);
    await live.replaceSecrets(account(), kept.id, kept.secrets, [{ secret: "whsec_never_shown", expiresAtMs: null }]);
    const ghost = endpoint();
    expect(await live.createEndpoint(ghost, 100)).toBe(true);
    return { kept, ghost };
  }

  async function expectPutBack({ kept, ghost }: Awaited<ReturnType<typeof ahead>>) {
    expect((await live.getEndpoint(account(), kept.id))?.secrets).toEqual(kept.secrets);
    expect(await live.getEndpoint(account(), ghost.id)).toBeUndefined();
    expect((await live.listEndpoints(account())).map((e) => e.id)).toEqual([kept.id]);
  }

  it("is put back by the writer's next pass when the write could not put it back at once", async () => {
    const diverged = await ahead();
    await copy.markRepair(account(), diverged.kept.id);
    await copy.markRepair(account(), diverged.ghost.id);
    await copier.restore(false);
    await expectPutBack(diverged);
    expect(await copy.repairs(10)).toEqual([]);
  });

  it("is found and put back by the hourly sweep, whatever left it so", async () => {
    const diverged = await ahead();
    // Not the sweep: a pass alone does not read every account.
    await copier.restore(false);
    expect((await live.listEndpoints(account())).length).toBe(2);
    await copier.restore(true);
    await expectPutBack(diverged);
  });
});

describe("a write whose copy and its repair both failed", () => {
  it("reports the repair it could not mark, and answers the write's own failure", async () => {
    const skipped: [string, string][] = [];
    const reporting = new HistoryWebhookStore(live, copy, db, Date.now, (step, error) => skipped.push([step, (error as Error).message]));
    // The endpoints' copy and the list of repairs are strings where a hash and a set were: the copy, its
    // repair and the mark for the sweep each fail, as they would on a Redis out of memory.
    await redis.set(`${prefix}:{${account()}}:hook:endpoints`, "not a hash");
    await redis.set(`${prefix}:{hooks}:repairs`, "not a set");
    await expect(reporting.createEndpoint(endpoint(), 10)).rejects.toThrow(/WRONGTYPE/);
    expect(skipped).toEqual([["webhook_copy_repair_mark", expect.stringContaining("WRONGTYPE")]]);
  });
});
