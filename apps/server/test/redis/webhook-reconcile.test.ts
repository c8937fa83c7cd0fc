/**
 * A session's change and its webhook events are one script in the account's slot; making the account
 * due for delivery is a second command in another slot. A process that dies between the two leaves
 * events with no account due: the reconciliation (each replica, at start and then periodically) finds
 * them, and the harness's receiver gets them.
 */
import { WebhookReceiver } from "@dhs/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { keyspace, shardOf } from "../../src/store/redis/keys.js";
import { type Harness, KEYS, startHarness, until } from "../support/harness.js";

const PREFIX = `recon${crypto.randomUUID().slice(0, 6)}`;
let h: Harness;
let redis: Redis;
const receiver = new WebhookReceiver();
beforeAll(async () => {
  await receiver.start();
  // Reconciliation every 30 sweeps: 3 s here.
  h = await startHarness({ REDIS_KEY_PREFIX: PREFIX, SWEEP_INTERVAL_MS: "100" });
  redis = new Redis(inject("redisUrl"));
});
afterAll(async () => {
  redis.disconnect();
  await h.close();
  await receiver.stop();
});

describe("events whose account was never made due (the process died between the two steps)", () => {
  it("are found by the reconciliation and delivered", async () => {
    const endpoint = (await (
      await h.request("POST", "/v1/webhook-endpoints", { key: KEYS.aHooks, body: { url: receiver.url, event_types: ["session.created"] } })
    ).json()) as { secret: string };
    receiver.secrets = [endpoint.secret];
    receiver.answer = () => ({ status: 200 });
    // Stop delivering, queue an event, and take away what made its account due, as a crash would.
    await h.composed.dispatcher.stop();
    const session = (await (await h.create({})).json()) as { id: string };
    const keys = keyspace(PREFIX);
    const shard = shardOf(session.id);
    const accountsDue = keys.hookAccountsDue(shard);
    expect(await redis.zscore(accountsDue, "acct_a")).not.toBeNull();
    await redis.zrem(accountsDue, "acct_a");
    expect(await redis.zcard(keys.hookDue("acct_a", shard))).toBe(1);

    const restartedAt = Date.now();
    h.composed.dispatcher.start();
    const got = await until(() => receiver.received.find((r) => r.body.data.id === session.id));
    expect(got.verifiedWith).toBe(0);
    expect(got.at - restartedAt).toBeLessThan(3000);
    // The receiver has the request before the dispatcher has its answer and takes the delivery off the
    // queue: the queue empties right after, not necessarily by the time the request arrived.
    await until(async () => (await redis.zcard(keys.hookDue("acct_a", shard))) === 0, { what: "the delivered event off the queue" });
  });
});
