/**
 * What the PostgreSQL history costs (docs/storage.md), on a database of its own on the machine's
 * PostgreSQL: a second service like the measured one, on the same Redis under its own key prefix, with
 * DATABASE_URL through a TcpGate. First the gate is closed and sessions are created and ended at once
 * (the quiet account: no webhook deliveries), so the queue fills; then it opens and the queue drains:
 * the service's CPU for the drain per session written, the rows written per second, and what the
 * history holds per session on disk (the sessions table, its indexes and partitions, with usage's rows;
 * then transcript segments, written straight into their table, per segment); then the webhook delivery
 * log's copy (measureLogCopy). The same create-and-end on the measured service, its own database in
 * reach, is the yardstick of the request path.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { webhookRecord } from "@dhs/server/webhook-record";
import { createDatabase, freePort, TcpGate, until, WebhookReceiver } from "@dhs/testkit";
import { Redis } from "ioredis";
import pg from "pg";
import { cpuUsOf } from "./figures.js";
import { inParallel } from "./in-parallel.js";
import { API_KEY, here, QUIET } from "./settings.js";
import { type Stack, startService } from "./stack.js";

export interface HistoryFigures {
  sessions: number;
  /** Service CPU per session created and ended: the measured service (its database in reach), and this one while its database is out of reach. */
  requestUsWithout: number;
  requestUsWith: number;
  /** Service CPU per session while the queue drained (claim, read, write, complete, usage's moves). */
  writeUsPerSession: number;
  /** Sessions written per second by one replica's writer draining the queue. */
  rowsPerSecond: number;
  /** Bytes on disk per ended session (the sessions table with its indexes, and usage's rows). */
  bytesPerSession: number;
  /** Bytes on disk per transcript segment (80 characters of text). */
  bytesPerSegment: number;
  /** Delivery attempts logged while the database was out of reach, then copied to it. */
  attempts: number;
  /** Service CPU per attempt copied (its endpoint's health and the log entry, in the account's transaction). */
  copyUsPerAttempt: number;
  /** Bytes on disk per logged attempt (row and primary key). */
  bytesPerAttempt: number;
}

/** Endpoints of the account (the most it may have) and test events to each, for the delivery log's copy. */
const ENDPOINTS = 10;
const TESTS_PER_ENDPOINT = Number(process.env.BENCH_HISTORY_ATTEMPTS ?? 900);

const SESSIONS = Number(process.env.BENCH_HISTORY_SESSIONS ?? 20_000);
const run = promisify(execFile);

/** Creates and ends `count` sessions on `url`; the service's CPU per session. */
async function createAndEnd(url: string, pid: number, count: number): Promise<number> {
  const headers = { Authorization: `Bearer ${QUIET.key}` };
  const before = cpuUsOf(pid);
  await inParallel(
    count,
    async () => {
      const created = await fetch(`${url}/v1/sessions`, {
        method: "POST",
        headers: { ...headers, "Idempotency-Key": crypto.randomUUID(), "Content-Type": "application/json" },
        body: JSON.stringify({ participant_identity: "history" }),
      });
      const { id } = (await created.json()) as { id: string };
      const ended = await fetch(`${url}/v1/sessions/${id}/end`, { method: "POST", headers });
      await ended.arrayBuffer();
      if (created.status !== 201 || ended.status !== 200) throw new Error(`create ${created.status}, end ${ended.status}`);
    },
    32,
  );
  return Math.round((cpuUsOf(pid) - before) / count);
}

async function queued(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^dhs_history_queue_sessions (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
}

export async function measureHistory(stack: Stack): Promise<HistoryFigures> {
  // Each service warmed up on a thousand first: compiled code, not the compiler, is compared.
  await createAndEnd(stack.serverUrl, stack.servicePid, 1000);
  const requestUsWithout = await createAndEnd(stack.serverUrl, stack.servicePid, Math.min(SESSIONS, 5000));
  const database = await createDatabase({ prefix: "dhs_bench" });
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  // Idle connections end with the database's drop at the end.
  db.on("error", () => undefined);
  const gate = await new TcpGate({ host: "127.0.0.1", port: 5432 }).open();
  try {
    await run("pnpm", ["--filter", "@dhs/server", "migrate"], { cwd: here("../.."), env: { ...process.env, DATABASE_URL: database.url } });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const metricsPort = await freePort();
    const via = new URL(database.url);
    via.port = String(gate.port);
    const service = await startService(
      stack.service.args.filter((arg) => !arg.startsWith("--cpu-prof")),
      {
        ...stack.service.env,
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        REDIS_KEY_PREFIX: "history",
        DATABASE_URL: via.toString(),
      },
      join(stack.service.dir, "history-service.log"),
      url,
    );
    const pid = service.pid as number;
    const metrics = `http://127.0.0.1:${metricsPort}/metrics`;
    // The queue fills while the database is out of reach; the writer's tries back off meanwhile.
    await gate.close();
    await createAndEnd(url, pid, 1000);
    const requestUsWith = await createAndEnd(url, pid, SESSIONS - 1000);
    await gate.open();
    // From the first batch written (the writer's backoff from its failed tries is not the drain's).
    const until = async (done: (left: number) => boolean) => {
      for (;;) {
        const left = await queued(metrics);
        if (done(left)) return left;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const left = await until((n) => n < SESSIONS - 100);
    const drainFrom = cpuUsOf(pid);
    const started = Date.now();
    await until((n) => n === 0);
    const drainS = (Date.now() - started) / 1000;
    const writeUsPerSession = Math.round((cpuUsOf(pid) - drainFrom) / left);
    const size = async (table: string) =>
      Number(
        (
          await db.query<{ bytes: string }>("SELECT sum(pg_total_relation_size(relid))::bigint AS bytes FROM pg_partition_tree($1)", [
            table,
          ])
        ).rows[0]?.bytes ?? 0,
      );
    const tableSize = async (table: string) =>
      Number((await db.query<{ bytes: string }>("SELECT pg_total_relation_size($1)::bigint AS bytes", [table])).rows[0]?.bytes ?? 0);
    await db.query("VACUUM ANALYZE sessions");
    const written = Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM sessions")).rows[0]?.n);
    const bytesPerSession = Math.round(
      ((await size("sessions")) + (await tableSize("usage_counts")) + (await tableSize("usage_moves"))) / written,
    );
    // Ten 80-character segments for each of 2 000 sessions, as the writer writes them.
    await db.query(`
      INSERT INTO transcript_segments (account_id, session_created_at, session_id, segment_id, speaker, text, started_at, ended_at)
      SELECT s.account_id, s.created_at, s.id, 'seg-' || n, CASE WHEN n % 2 = 0 THEN 'participant' ELSE 'digital_human' END,
        repeat('x', 80), s.created_at + n * interval '3 seconds', s.created_at + n * interval '3 seconds' + interval '2 seconds'
      FROM (SELECT * FROM sessions LIMIT 2000) s, generate_series(1, 10) n`);
    await db.query("VACUUM ANALYZE transcript_segments");
    const bytesPerSegment = Math.round((await size("transcript_segments")) / 20_000);
    const log = await measureLogCopy(url, stack, gate, db);
    service.kill("SIGTERM");
    return {
      sessions: written,
      requestUsWithout,
      requestUsWith,
      writeUsPerSession,
      rowsPerSecond: Math.round(left / drainS),
      bytesPerSession,
      bytesPerSegment,
      ...log,
    };
  } finally {
    await gate.close();
    await db.end();
    await database.drop();
  }
}

/**
 * The delivery log's way to PostgreSQL: the account's endpoints (each to the receiver) are registered,
 * the database goes out of reach of the service, test events are delivered and logged in Redis (the
 * service's copier fails meanwhile). Then the history writer's copier, the service's own code run in this
 * process on the same Redis with the database in reach, copies every attempt: its CPU, measured here
 * (the service's own CPU would mix in its sweeper firing the ended sessions' timers). Three rounds
 * (endpoints made and deleted each time); the median.
 */
async function measureLogCopy(url: string, stack: Stack, gate: TcpGate, db: pg.Pool) {
  const receiver = await new WebhookReceiver({ keepBodies: false, answer: () => ({ status: 204 }) }).start();
  const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
  const redis = new Redis(stack.service.env.REDIS_URL as string);
  const { copier } = webhookRecord(redis, "history", db);
  const attempts = ENDPOINTS * TESTS_PER_ENDPOINT;
  const rounds: number[] = [];
  let bytesPerAttempt = 0;
  try {
    for (let round = 0; round < 3; round++) {
      const ids: string[] = [];
      for (let i = 0; i < ENDPOINTS; i++) {
        const made = await fetch(`${url}/v1/webhook-endpoints`, { method: "POST", headers, body: JSON.stringify({ url: receiver.url }) });
        if (made.status !== 201) throw new Error(`registering an endpoint: ${made.status} ${await made.text()}`);
        ids.push(((await made.json()) as { id: string }).id);
      }
      await gate.close();
      await inParallel(
        attempts,
        async (i) => {
          const sent = await fetch(`${url}/v1/webhook-endpoints/${ids[i % ENDPOINTS]}/test`, { method: "POST", headers });
          await sent.arrayBuffer();
          if (sent.status !== 202) throw new Error(`a test event: ${sent.status}`);
        },
        16,
      );
      await until(() => receiver.received.length >= (round + 1) * attempts, { timeoutMs: 120_000, what: "every test event delivered" });
      const from = process.cpuUsage();
      let copied = 0;
      while (copied < ENDPOINTS) copied += await copier.copyDue(Date.now() + 60_000);
      const used = process.cpuUsage(from);
      rounds.push((used.user + used.system) / attempts);
      const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ANY($1)", [ids]);
      if (Number(rows[0]?.n) !== attempts) throw new Error(`${rows[0]?.n} attempts copied of ${attempts}`);
      if (round === 0) {
        await db.query("VACUUM ANALYZE webhook_deliveries");
        const size = await db.query<{ bytes: string }>("SELECT pg_total_relation_size('webhook_deliveries')::bigint AS bytes");
        bytesPerAttempt = Math.round(Number(size.rows[0]?.bytes) / attempts);
      }
      await gate.open();
      for (const id of ids) await (await fetch(`${url}/v1/webhook-endpoints/${id}`, { method: "DELETE", headers })).arrayBuffer();
    }
  } finally {
    redis.disconnect();
    await receiver.stop();
  }
  console.log(`webhook log copy: ${rounds.map((us) => us.toFixed(1)).join(", ")} µs per attempt`);
  const median = [...rounds].sort((a, b) => a - b)[1] as number;
  return { attempts, copyUsPerAttempt: Math.round(median), bytesPerAttempt };
}

export function historySection(h: HistoryFigures): string {
  return [
    "## History in PostgreSQL (DATABASE_URL)",
    "",
    `${h.sessions} sessions created and ended (quiet account) while the database was out of reach, then the queue drained by one replica.`,
    "",
    "| what | figure |",
    "|---|---|",
    `| service CPU per session created and ended (the measured service, its own database in reach) | ${h.requestUsWithout} µs |`,
    `| the same while the database is out of reach (queued in the end's script; another, fresher process) | ${h.requestUsWith} µs |`,
    `| service CPU per ended session written (claim, read, write, complete, usage moved) | ${h.writeUsPerSession} µs |`,
    `| sessions written per second by one replica's writer | ${h.rowsPerSecond} |`,
    `| bytes on disk per ended session (table, indexes, usage rows) | ${h.bytesPerSession} |`,
    `| bytes on disk per transcript segment (80 characters) | ${h.bytesPerSegment} |`,
    `| service CPU per webhook delivery attempt copied to the endpoint's log (${h.attempts} attempts, ${ENDPOINTS} endpoints; median of 3) | ${h.copyUsPerAttempt} µs |`,
    `| bytes on disk per logged attempt | ${h.bytesPerAttempt} |`,
    "",
  ].join("\n");
}
