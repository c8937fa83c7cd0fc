/**
 * The history database's faults under load, against a PostgreSQL server of the test's own (stopped and
 * crashed here; the machine's is never touched): stopped for 60 s while sessions are created and ended,
 * creates keep answering 201, the queue of sessions to write grows, and once it is back the queue drains
 * with every ended session written once; and two replicas writing history, one SIGKILLed again and again
 * while it writes, lose and double nothing (sessions, and their usage).
 */
import { performance } from "node:perf_hooks";
import { createDatabase, FakeLiveKit, type PostgresServer, type RedisServer, startPostgres, startRedis } from "@dhs/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../support/database.js";
import { killServerProcesses, type ServerProcess, startServerProcess } from "../support/server-process.js";
import { DEV_KEY, ms, report, sleep } from "./support.js";

let postgres: PostgresServer;
let redis: RedisServer;
let livekit: FakeLiveKit;

beforeAll(async () => {
  [postgres, redis, livekit] = await Promise.all([startPostgres(), startRedis({ appendonly: true }), new FakeLiveKit().start()]);
});
afterAll(async () => {
  killServerProcesses();
  await postgres?.destroy();
  await redis?.stop();
  await livekit?.stop();
});

const auth = { Authorization: `Bearer ${DEV_KEY}` };
// The minute; shorter when looking into the drain by hand.
const OUTAGE_MS = Number(process.env.HISTORY_OUTAGE_S ?? 60) * 1000;

/** A replica on the test's Redis and database, its own key prefix per test. */
function replica(databaseUrl: string, prefix: string): ServerProcess {
  return startServerProcess({
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: prefix,
    DATABASE_URL: databaseUrl,
    LIVEKIT_API_URL: livekit.url,
    RATE_LIMIT_PER_SECOND: "100000",
    RATE_LIMIT_BURST: "100000",
    SWEEP_INTERVAL_MS: "200",
  });
}

/** `concurrency` loops, each creating a session and ending it at once, until stopped; what each got. */
function createAndEnd(urls: () => string[], concurrency: number) {
  const created: { id: string; at: number; status: number }[] = [];
  const ended = new Set<string>();
  const failures: { at: number; what: string }[] = [];
  let running = true;
  let n = 0;
  const loop = async () => {
    while (running) {
      const candidates = urls();
      const url = candidates[n++ % candidates.length] as string;
      const at = performance.now();
      try {
        const res = await fetch(`${url}/v1/sessions`, {
          method: "POST",
          headers: { ...auth, "Idempotency-Key": crypto.randomUUID(), "Content-Type": "application/json" },
          body: JSON.stringify({ participant_identity: "load" }),
          signal: AbortSignal.timeout(5000),
        });
        const body = (await res.json()) as { id?: string };
        if (res.status !== 201 || !body.id) {
          failures.push({ at, what: `create ${res.status} ${JSON.stringify(body)}` });
          continue;
        }
        created.push({ id: body.id, at, status: res.status });
        const end = await fetch(`${url}/v1/sessions/${body.id}/end`, { method: "POST", headers: auth, signal: AbortSignal.timeout(5000) });
        if (end.status === 200) ended.add(body.id);
        // The answer's detail says which dependency failed, should one.
        else failures.push({ at, what: `end ${end.status} ${await end.text()}` });
      } catch (error) {
        // A replica being killed: its connections fail; the loop moves on to the next one.
        failures.push({ at, what: (error as Error).name });
        await sleep(20);
      }
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  return {
    created,
    ended,
    failures,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

async function rowsOf(url: string, ids: readonly string[]): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; n: number }>(
      "SELECT id::text AS id, count(*)::int AS n FROM sessions WHERE id = ANY($1::uuid[]) GROUP BY id",
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.n]));
  } finally {
    await client.end();
  }
}

async function queued(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^dhs_history_queue_sessions (\S+)$/m.exec(text)?.[1]);
}

const metricsUrlOf = async (proc: ServerProcess) => (await proc.listening).metrics_url as string;

describe("the history database under load", () => {
  it("stopped for 60 s: creates keep answering 201, the queue grows, then drains with every ended session written once", {
    timeout: 180_000,
  }, async () => {
    const database = await createDatabase({ adminUrl: postgres.url, prefix: "outage" });
    await migrate(database.url);
    const proc = replica(database.url, "outage");
    const url = (await proc.listening).url;
    const metrics = await metricsUrlOf(proc);
    const load = createAndEnd(() => [url], 4);
    await sleep(3000);
    const stoppedAt = performance.now();
    await postgres.stop("immediate");
    await sleep(OUTAGE_MS);
    const queuedAtRestart = await queued(metrics);
    await postgres.start();
    const backAt = performance.now();
    await sleep(3000);
    await load.stop();
    const drained = await (async () => {
      for (;;) {
        if ((await queued(metrics)) === 0) return performance.now();
        await sleep(100);
      }
    })();

    const during = load.created.filter((c) => c.at >= stoppedAt && c.at < backAt);
    const ids = [...load.ended];
    const rows = await rowsOf(database.url, ids);
    report("PostgreSQL stopped for 60 s under load (4 loops creating and ending sessions)", {
      "sessions created (201)": load.created.length,
      "created while PostgreSQL was down": during.length,
      "failed requests": load.failures.length,
      "queued when it came back": queuedAtRestart,
      "drained (ms after it was back)": ms(drained - backAt),
      "drained (sessions/s since it was back, the writer's backoff of up to 5 s included)": queuedAtRestart / ((drained - backAt) / 1000),
      "ended sessions": ids.length,
      "in the history": rows.size,
      "written twice": [...rows.values()].filter((n) => n > 1).length,
    });
    expect(load.failures).toEqual([]);
    expect(during.length).toBeGreaterThan(100);
    expect(queuedAtRestart).toBeGreaterThan(100);
    expect(rows.size).toBe(ids.length);
    expect([...rows.values()].every((n) => n === 1)).toBe(true);
    proc.child.kill("SIGTERM");
    await proc.exited;
  });

  it("two replicas writing, one SIGKILLed again and again: every ended session written once, and its usage counted once", {
    timeout: 180_000,
  }, async () => {
    const database = await createDatabase({ adminUrl: postgres.url, prefix: "kill" });
    await migrate(database.url);
    const steady = replica(database.url, "kill");
    const steadyUrl = (await steady.listening).url;
    let victim = replica(database.url, "kill");
    let victimUrl = (await victim.listening).url;
    // The usage asked for is of the days the load ran: a run across midnight (UTC) counts on two.
    const firstDay = new Date().toISOString().slice(0, 10);
    const load = createAndEnd(() => [steadyUrl, victimUrl], 6);
    let kills = 0;
    for (let round = 0; round < 6; round++) {
      // Somewhere in its writer's passes (every 200 ms, a batch in one transaction, then Redis).
      await sleep(1500 + Math.random() * 700);
      victim.child.kill("SIGKILL");
      await victim.exited;
      kills++;
      victim = replica(database.url, "kill");
      victimUrl = (await victim.listening).url;
    }
    await sleep(1000);
    await load.stop();
    const metrics = await metricsUrlOf(steady);
    // Claims the killed replica held come back when their lease ends (30 s).
    for (let waited = 0; (await queued(metrics)) > 0; waited += 200) {
      if (waited > 60_000) throw new Error("the history queue did not drain");
      await sleep(200);
    }
    const ids = [...load.ended];
    const rows = await rowsOf(database.url, ids);
    // An end whose replica died before it gave back the session's place (and counted its usage) is
    // repaired when the account is next asked about (GET /v1/me).
    await fetch(`${steadyUrl}/v1/me`, { headers: auth });
    const lastDay = new Date().toISOString().slice(0, 10);
    const usage = (await (await fetch(`${steadyUrl}/v1/usage?from=${firstDay}&to=${lastDay}`, { headers: auth })).json()) as {
      totals: { sessions_created: number; sessions_ended: Record<string, number> };
    };
    report("a history-writing replica SIGKILLed under load (2 replicas, 6 loops creating and ending sessions)", {
      kills,
      "sessions created (201)": load.created.length,
      "ended (200)": ids.length,
      "in the history": rows.size,
      "written twice": [...rows.values()].filter((n) => n > 1).length,
      "usage: created": usage.totals.sessions_created,
      "usage: ended (cancelled)": usage.totals.sessions_ended.cancelled ?? 0,
    });
    expect(rows.size).toBe(ids.length);
    expect([...rows.values()].every((n) => n === 1)).toBe(true);
    // Every 201 is one session created; a create whose answer was lost with its replica may have made
    // one more, and an end whose answer was lost may have ended one more: never fewer, never more.
    const unanswered = load.failures.length;
    expect(usage.totals.sessions_created).toBeGreaterThanOrEqual(load.created.length);
    expect(usage.totals.sessions_created).toBeLessThanOrEqual(load.created.length + unanswered);
    expect(usage.totals.sessions_ended.cancelled).toBeGreaterThanOrEqual(ids.length);
    expect(usage.totals.sessions_ended.cancelled).toBeLessThanOrEqual(ids.length + unanswered);
  });
});
