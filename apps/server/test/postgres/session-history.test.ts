/**
 * The PostgreSQL history as a customer meets it: an ended session is written there once, within seconds,
 * from Redis's queue, and is read the same (getSession, listSessions) once Redis has lost it; while
 * PostgreSQL refuses connections, creates and live sessions go on and the queue grows, and once it is
 * back the queue drains with every session written once.
 */

import { WebhookReceiver } from "@dhs/testkit";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { keyspace } from "../../src/store/redis/keys.js";
import { flushPrefix } from "../support/database.js";
import { expectData, KEYS, listed, newSession, until, useHarness } from "../support/harness.js";

// The transcript of a session is complete a second after its end: its session changes once more then.
const h = useHarness({ TRANSCRIPT_GRACE_S: "1" });
let db: pg.Client;
let redis: Redis;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  db = new pg.Client({ connectionString: h.databaseUrl });
  // The harness drops its database when it closes: a connection still open then is ended, not a failure.
  db.on("error", () => undefined);
  await db.connect();
  redis = new Redis(inject("redisUrl"));
});

afterAll(async () => {
  await receiver.stop();
  await db?.end();
  redis?.disconnect();
});

/** How many rows the history holds for each of these sessions. */
async function rows(ids: readonly string[]): Promise<number[]> {
  const { rows: found } = await db.query<{ id: string; n: number }>(
    "SELECT id::text AS id, count(*)::int AS n FROM sessions WHERE id = ANY($1::uuid[]) GROUP BY id",
    [ids],
  );
  return ids.map((id) => found.find((row) => row.id === id)?.n ?? 0);
}

const flushRedis = () => flushPrefix(redis, h.redisPrefix);

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${h.metricsUrl}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
}

/** Sessions waiting to be written (the history queue's metric). */
const queued = () => metric("dhs_history_queue_sessions");

async function endedSession(identity?: string) {
  const session = await newSession(h, identity);
  expectData(await h.client().endSession(session.id));
  return session;
}

describe("the history in PostgreSQL", () => {
  it("holds an ended session once, within seconds of its end, and serves it as before after Redis lost it", async () => {
    const session = await endedSession();
    const before = await h.session(session.id);
    const startedAt = Date.now();
    await until(async () => ((await rows([session.id]))[0] === 1 ? true : undefined), { timeoutMs: 10_000 });
    console.log(`ended session written to PostgreSQL ${Date.now() - startedAt} ms after its end`);
    const item = (await listed(h)).find((s) => s.id === session.id);

    expect(await flushRedis()).toBeGreaterThan(0);
    expect(await h.session(session.id)).toEqual(before);
    expect((await listed(h)).find((s) => s.id === session.id)).toEqual(item);
    // Ended before anyone joined: cancelled.
    expect((await listed(h, { status: "cancelled" })).map((s) => s.id)).toContain(session.id);
    expect((await listed(h, { status: "active" })).map((s) => s.id)).not.toContain(session.id);
    // Another account does not see it, wherever it is.
    expect((await h.client(KEYS.b).getSession(session.id)).response.status).toBe(404);
    expect(await rows([session.id])).toEqual([1]);
  });

  it("writes a session changed after its end again, into its one row (its transcript_ready, a second after its end)", async () => {
    const session = await endedSession();
    const ready = await until(
      async () => {
        const { rows: found } = await db.query<{ ready: string | null }>(
          "SELECT record->>'transcript_ready_at' AS ready FROM sessions WHERE id = $1",
          [session.id],
        );
        return found[0]?.ready ?? undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(Date.parse(ready)).toBeGreaterThan(0);
    expect(await rows([session.id])).toEqual([1]);
  });

  it("sets aside a session PostgreSQL refuses (U+0000 in its metadata, stored before the API refused it), writes every other, and says which", async () => {
    const poisoned = await h.client().createSession({ participant_identity: "poisoned", metadata: { note: "placeholder" } });
    const bad = expectData(poisoned, 201);
    // As a server before the API refused U+0000 would have stored it: jsonb cannot hold it.
    const key = keyspace(h.redisPrefix).session(bad.id);
    const json = (await redis.get(key)) as string;
    await redis.set(key, json.replace('"placeholder"', '"a\\u0000b"'), "KEEPTTL");
    expect(await h.client().endSession(bad.id)).toMatchObject({ response: { status: 200 } });
    const others = [await endedSession(), await newSession(h)];
    expectData(await h.client().endSession(others[1]?.id as string));
    const otherAccount = expectData(await h.client(KEYS.b).createSession({}), 201);
    expectData(await h.client(KEYS.b).endSession(otherAccount.id));
    const ids = [...others.map((s) => s.id), otherAccount.id];

    await until(async () => ((await rows(ids)).every((n) => n === 1) ? true : undefined), { timeoutMs: 10_000 });
    await until(async () => ((await metric("dhs_history_sessions_set_aside")) === 1 ? true : undefined), { timeoutMs: 10_000 });
    expect(await rows([bad.id])).toEqual([0]);
    expect(await metric("dhs_history_sessions_refused_total")).toBeGreaterThanOrEqual(1);
    await until(async () => ((await queued()) === 0 ? true : undefined), { timeoutMs: 10_000 });
    const said = h.logs.map((line) => JSON.parse(line)).find((line) => line.session_id === bad.id && line.level === 50);
    expect(said).toMatchObject({ account_id: expect.any(String), err: { name: "ValueRefusedError" } });
    // Redis keeps it, so its customer still reads it.
    expect((await h.client().getSession(bad.id)).response.status).toBe(200);
  });

  it("serves the usage of written sessions the same after Redis lost it", async () => {
    const sessions = [await endedSession(), await endedSession(), await newSession(h)];
    const ended = sessions.slice(0, 2).map((s) => s.id);
    await until(async () => ((await rows(ended)).every((n) => n === 1) ? true : undefined), { timeoutMs: 10_000 });
    // Taken off the queue once their usage moved too.
    await until(async () => ((await queued()) === 0 ? true : undefined), { timeoutMs: 10_000 });
    const day = new Date().toISOString().slice(0, 10);
    const before = expectData(await h.client().getUsage({ from: day, to: day }));
    expect(before.totals.sessions_ended.cancelled).toBeGreaterThanOrEqual(2);
    // The open session's creation moved with the others' (its day's counters moved whole).
    await flushRedis();
    expect(expectData(await h.client().getUsage({ from: day, to: day }))).toEqual(before);
  });

  it("serves the accounts' digital humans the same after Redis lost them (PostgreSQL is their record)", async () => {
    const personas = h.client(KEYS.aPersonas);
    const maya = expectData(await personas.createDigitalHuman({ name: "Maya", instructions: "Be brief." }), 201);
    const listed = expectData(await personas.listDigitalHumans({ limit: 100 })).data;
    await flushRedis();
    expect(expectData(await personas.getDigitalHuman(maya.id))).toEqual(maya);
    expect(expectData(await personas.listDigitalHumans({ limit: 100 })).data).toEqual(listed);
    // And a session is made with it.
    expect((await h.client().createSession({ participant_identity: "after-flush", digital_human_id: maya.id })).response.status).toBe(201);
  });

  it("serves the webhook endpoints and their delivery logs the same after Redis lost them, and delivers the next events to them", async () => {
    const hooks = h.client(KEYS.aHooks);
    const endpoint = expectData(await hooks.createWebhookEndpoint({ url: receiver.url, description: "orders" }), 201);
    receiver.secrets = [endpoint.secret as string];
    const test = expectData(await hooks.testWebhookEndpoint(endpoint.id), 202);
    await until(() => receiver.acknowledged("webhook.test").some((r) => r.id === test.id), { what: "the test event delivered" });
    const log = await until(async () => {
      const page = expectData(await hooks.listWebhookDeliveries(endpoint.id, { limit: 100 })).data;
      return page.length === 1 ? page : undefined;
    });
    // The history writer copies the attempt to PostgreSQL within a pass or two.
    await until(
      async () => {
        const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1", [
          endpoint.id,
        ]);
        return rows[0]?.n === 1 ? true : undefined;
      },
      { what: "the attempt in PostgreSQL", timeoutMs: 10_000 },
    );
    const { secret: _shownOnce, ...shown } = endpoint;
    const before = expectData(await hooks.getWebhookEndpoint(endpoint.id));
    expect(before).toEqual(shown);

    await flushRedis();
    expect(expectData(await hooks.getWebhookEndpoint(endpoint.id))).toEqual(before);
    expect(expectData(await hooks.listWebhookEndpoints()).data).toEqual([before]);
    expect(expectData(await hooks.listWebhookDeliveries(endpoint.id, { limit: 100 })).data).toEqual(log);
    // Redis's copy is made again within a pass: a new session's events reach the endpoint.
    await until(async () => (await redis.exists(`${h.redisPrefix}:{hooks}:copied`)) === 1, { what: "the endpoints copied back" });
    const session = await newSession(h, "after-flush");
    await until(() => receiver.acknowledged("session.created").some((r) => r.body.data?.id === session.id), {
      what: "the next session's event delivered",
    });
  });
});
