/**
 * PostgreSQL out of reach (its connections reset, new ones refused: a TcpGate between the service and the
 * server): creates, reads of live sessions and ends go on, since they need only Redis and LiveKit; the
 * queue of sessions to write grows; reads that need the history answer 503; once the database is back,
 * the queue drains and every ended session is in the history once.
 */
import { TcpGate, WebhookReceiver } from "@dhs/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectData, KEYS, newSession, until, useHarness } from "../support/harness.js";

const gate = new TcpGate({ host: "127.0.0.1", port: 5432 });
const receiver = new WebhookReceiver();
beforeAll(async () => {
  await gate.open();
  await receiver.start();
});
const h = useHarness({}, {}, {}, { databasePort: () => gate.port });
afterAll(async () => {
  await gate.close();
  await receiver.stop();
});

/** A query's rows, on a connection of its own made past the gate (the test reads while the service cannot). */
async function rowsOf<Row extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<Row[]> {
  const client = new pg.Client({ connectionString: h.databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

async function count(sql: string, values: unknown[]): Promise<number> {
  return (await rowsOf<{ n: number }>(sql, values))[0]?.n ?? 0;
}

function historyRows(ids: readonly string[]): Promise<{ id: string; n: number }[]> {
  return rowsOf("SELECT id::text AS id, count(*)::int AS n FROM sessions WHERE id = ANY($1::uuid[]) GROUP BY id", [ids]);
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${h.metricsUrl}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
}

describe("the history database out of reach", () => {
  it("keeps creates, live reads and ends going, queues the ended sessions, and writes each once when it is back", async () => {
    await gate.close();
    const sessions = await Promise.all(Array.from({ length: 20 }, () => newSession(h)));
    const ended = sessions.slice(0, 10);
    for (const session of ended) expectData(await h.client().endSession(session.id));
    for (const session of sessions) expect((await h.client().getSession(session.id)).response.status).toBe(200);
    await until(async () => ((await metric("dhs_history_queue_sessions")) >= 10 ? true : undefined), { timeoutMs: 5000 });
    expect(await metric("dhs_database_errors_total")).toBeGreaterThan(0);
    // A list needs the history: it says so, and the client may retry.
    const list = await h.client().listSessions({ limit: 100 });
    expect(list.response.status).toBe(503);
    expect(list.error).toMatchObject({ code: "service_unavailable" });
    expect(list.response.headers.get("retry-after")).toBe("1");

    // The writer has tried (and failed) at least twice by now: the sessions were claimed and given back.
    const failures = await metric("dhs_database_errors_total");
    await until(async () => ((await metric("dhs_database_errors_total")) >= failures + 2 ? true : undefined), { timeoutMs: 10_000 });
    // However often they were claimed and given back, the queue's age counts from when they were first due.
    await until(async () => ((await metric("dhs_history_queue_oldest_seconds")) >= 3 ? true : undefined), { timeoutMs: 10_000 });
    await gate.open();
    const backAt = Date.now();
    const ids = ended.map((s) => s.id);
    await until(async () => ((await historyRows(ids)).length === ids.length ? true : undefined), { timeoutMs: 40_000 });
    console.log(`the history database back: ${ids.length} queued sessions written within ${Date.now() - backAt} ms`);
    expect((await historyRows(ids)).every((row) => row.n === 1)).toBe(true);
    await until(async () => ((await metric("dhs_history_queue_sessions")) === 0 ? true : undefined), { timeoutMs: 5000 });
    expect(await metric("dhs_history_queue_oldest_seconds")).toBe(0);
    const listed = expectData(await h.client().listSessions({ limit: 100 })).data.map((s) => s.id);
    expect(listed.sort()).toEqual(sessions.map((s) => s.id).sort());
  });

  it("refuses configuration writes 503 but serves a digital human from what it last read, and a session is created with it", async () => {
    const personas = h.client(KEYS.aPersonas);
    const maya = expectData(await personas.createDigitalHuman({ name: "Maya", greeting: "Hello." }), 201);
    await gate.close();
    try {
      const refused = await personas.createDigitalHuman({ name: "Sol" });
      expect(refused.response.status).toBe(503);
      expect(refused.error).toMatchObject({ code: "service_unavailable" });
      expect((await personas.updateDigitalHuman(maya.id, { name: "Maya II" })).response.status).toBe(503);
      expect((await personas.deleteDigitalHuman(maya.id)).response.status).toBe(503);
      expect((await personas.listDigitalHumans()).response.status).toBe(503);
      expect(expectData(await personas.getDigitalHuman(maya.id))).toEqual(maya);
      const session = expectData(await h.client().createSession({ participant_identity: "during-outage", digital_human_id: maya.id }), 201);
      expect(session.status).toBe("created");
    } finally {
      await gate.open();
    }
    // The write refused while it was down changed nothing; once it is back, writes go through.
    expect(expectData(await personas.getDigitalHuman(maya.id)).name).toBe("Maya");
    expect(expectData(await personas.updateDigitalHuman(maya.id, { name: "Maya II" })).name).toBe("Maya II");
  });

  it("answers a create it could not make 503, and the same create retried once the database is back 201 as made now, not a replay", async () => {
    const personas = h.client(KEYS.aPersonas);
    const key = crypto.randomUUID();
    await gate.close();
    try {
      expect((await personas.createDigitalHuman({ name: "Nia" }, { idempotencyKey: key })).response.status).toBe(503);
    } finally {
      await gate.open();
    }
    const made = await personas.createDigitalHuman({ name: "Nia" }, { idempotencyKey: key });
    expect(made.response.status).toBe(201);
    expect(made.response.headers.get("Idempotent-Replayed")).toBeNull();
    const again = await personas.createDigitalHuman({ name: "Nia" }, { idempotencyKey: key });
    expect([again.response.status, again.response.headers.get("Idempotent-Replayed"), again.data?.id]).toEqual([
      201,
      "true",
      made.data?.id,
    ]);
  });

  it("takes a database that accepts no connections for now (SQLSTATE 55000) as down: writes 503, a digital human served from what it last read", async () => {
    const personas = h.client(KEYS.aPersonas);
    const maya = expectData(await personas.createDigitalHuman({ name: "Maya", greeting: "Hello." }), 201);
    const name = new URL(h.databaseUrl as string).pathname.slice(1);
    const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    try {
      // As an operator does for maintenance; the service's open connections are ended, new ones refused with 55000.
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
      const refused = await personas.createDigitalHuman({ name: "Sol" });
      expect(refused.response.status).toBe(503);
      expect(refused.error).toMatchObject({ code: "service_unavailable" });
      expect(expectData(await personas.getDigitalHuman(maya.id))).toEqual(maya);
    } finally {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    expect(expectData(await personas.updateDigitalHuman(maya.id, { name: "Maya II" })).name).toBe("Maya II");
  });

  it("refuses webhook endpoint writes 503 while events still reach the endpoints, whose log reaches PostgreSQL once it is back", async () => {
    const hooks = h.client(KEYS.aHooks);
    const endpoint = expectData(await hooks.createWebhookEndpoint({ url: receiver.url }), 201);
    receiver.secrets = [endpoint.secret as string];
    await gate.close();
    let session: Awaited<ReturnType<typeof newSession>>;
    try {
      expect((await hooks.createWebhookEndpoint({ url: receiver.url })).response.status).toBe(503);
      expect((await hooks.deleteWebhookEndpoint(endpoint.id)).response.status).toBe(503);
      expect((await hooks.rotateWebhookEndpointSecret(endpoint.id)).response.status).toBe(503);
      // Read from Redis's copy, and delivered by it.
      expect(expectData(await hooks.getWebhookEndpoint(endpoint.id)).id).toBe(endpoint.id);
      session = await newSession(h, "hooked-during-outage");
      await until(() => receiver.acknowledged("session.created").some((r) => r.body.data?.id === session.id), {
        what: "the session's event delivered while PostgreSQL is down",
      });
      expect(expectData(await hooks.listWebhookDeliveries(endpoint.id)).data.map((d) => d.event_type)).toEqual(["session.created"]);
    } finally {
      await gate.open();
    }
    await until(
      async () =>
        (await count("SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1", [endpoint.id])) === 1 ? true : undefined,
      { what: "the attempt copied once PostgreSQL is back", timeoutMs: 20_000 },
    );
    expect(expectData(await hooks.listWebhookEndpoints()).data.map((e) => e.id)).toEqual([endpoint.id]);
  });
});
