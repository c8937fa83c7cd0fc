/**
 * `pnpm bench`: the service against bare Express 5, in one run on one machine.
 *
 * Starts Redis, a LiveKit RoomService stand-in and the built service (production settings, Redis store)
 * each in its own process, and a bare Express 5 app answering the same routes with a constant body; drives
 * both with autocannon (32 connections; a unique Idempotency-Key per create) and prints, for create and
 * get, req/s, p50, p99 and the ratio to bare Express. Then it measures Redis memory per session over 100k
 * creates and the service's RSS, and writes the table to bench/results.md. Numbers only: nothing here
 * fails on timing.
 *
 *   BENCH_DURATION_S (10)  BENCH_STORED (1; "1,10000,1000000" = pnpm bench:scale)  BENCH_MEMORY_SESSIONS (100000)
 *   BENCH_RESULTS (results.md; the file in bench/ the table is written to)
 *   BENCH_CPU_PROF (unset; a directory: the service runs under node --cpu-prof and writes its profile
 *   there on exit; summarize it with `tsx src/profile-summary.ts <file>`)
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { hashApiKey } from "@dhs/server/domain/api-keys.js";
import { DigitalHumanCatalog } from "@dhs/server/domain/digital-humans.js";
import { SessionService } from "@dhs/server/domain/session-service.js";
import { LiveKitTokenIssuer } from "@dhs/server/livekit/token-issuer.js";
import { RedisSessionStore } from "@dhs/server/store/redis-store.js";
import { freePort, startRedis, waitForOutput } from "@dhs/testkit";
import autocannon from "autocannon";
import { Redis } from "ioredis";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const WARMUP_S = 3;
const CONNECTIONS = 32;
const STORED = (process.env.BENCH_STORED ?? "1").split(",").map(Number);
const MEMORY_SESSIONS = Number(process.env.BENCH_MEMORY_SESSIONS ?? 100_000);
const API_KEY = "dhs_bench_key";
const ACCOUNT = "acct_bench";
const LIVEKIT = { key: "bench-key", secret: "bench-secret-that-is-long-enough-for-hs256" };
const DIGITAL_HUMAN = { id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f", name: "Ava", agent_name: "ava" } as const;

const children: ChildProcess[] = [];
async function start(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  await waitForOutput(child, ready, { name: command });
  return child;
}

/**
 * The service writes its logs straight into a file, as into a log collector's pipe: none of it passes
 * through the load generator's event loop. It is ready when /healthz answers.
 */
async function startService(args: string[], env: Record<string, string>, logFile: string, url: string): Promise<ChildProcess> {
  const log = openSync(logFile, "a");
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", log, log] });
  children.push(child);
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null)
      throw new Error(`the service exited with ${child.exitCode}: ${readFileSync(logFile, "utf8").slice(-2000)}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the service did not start");
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

let keyCounter = 0;
async function measure(url: string, op: "create" | "get", sessionId: string, durationS: number): Promise<Measured> {
  const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
  const run = `${process.pid}-${Date.now()}`;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: durationS,
    requests: [
      op === "create"
        ? {
            method: "POST",
            path: "/v1/sessions",
            headers,
            body: '{"participant_identity":"bench-user","tags":["bench"]}',
            // Every create is a new logical create: a key of its own.
            setupRequest: (request) => ({ ...request, headers: { ...request.headers, "idempotency-key": `${run}-${keyCounter++}` } }),
          }
        : { method: "GET", path: `/v1/sessions/${sessionId}`, headers },
    ],
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

async function bothOps(url: string, sessionId: string): Promise<{ create: Measured; get: Measured }> {
  await measure(url, "create", sessionId, WARMUP_S);
  const create = await measure(url, "create", sessionId, DURATION_S);
  await measure(url, "get", sessionId, WARMUP_S);
  const get = await measure(url, "get", sessionId, DURATION_S);
  return { create, get };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024);
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info("memory");
  return Number(info.match(/used_memory:(\d+)/)?.[1]);
}

/** Creates sessions through the service's own create path (store and tokens real, LiveKit a no-op). */
async function seed(redis: Redis, count: number, concurrency = 256): Promise<number> {
  const sessions = new SessionService({
    store: new RedisSessionStore(redis),
    rooms: { createRoom: async () => {}, deleteRoom: async () => {}, hasLiveAgentJob: async () => true, dispatchAgent: async () => {} },
    tokens: new LiveKitTokenIssuer(LIVEKIT.key, LIVEKIT.secret),
    catalog: new DigitalHumanCatalog([DIGITAL_HUMAN]),
    settings: {
      rtcUrl: "ws://127.0.0.1",
      participantTokenTtlS: 600,
      idempotencyKeyTtlMs: 86_400_000,
      idempotencyLockTtlMs: 10_000,
      durations: {
        joinTimeoutS: 600,
        digitalHumanJoinTimeoutS: 60,
        maxDurationS: 1800,
        departureTimeoutS: 30,
        redispatchS: 5,
        retentionS: 2_592_000,
      },
    },
  });
  const principal = { keyId: "key_bench", accountId: ACCOUNT, scopes: new Set(["sessions:read", "sessions:write"] as const) };
  const started = Date.now();
  let next = 0;
  const run = `seed-${Date.now()}`;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        await sessions.create(principal, `${run}-${i}`, { participant_identity: `seed-${i}`, tags: ["bench"] });
      }
    }),
  );
  return Math.round(count / ((Date.now() - started) / 1000));
}

function version(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: "utf8" }).trim().split("\n")[0] ?? "";
  } catch {
    return "unknown";
  }
}

function packageVersion(name: string, from = "../../apps/server/"): string {
  // Resolve the package's entry, then walk up to its package.json (exports may hide that path).
  try {
    let dir = dirname(createRequire(here(`${from}package.json`)).resolve(name));
    while (dir !== dirname(dir)) {
      const manifest = join(dir, "package.json");
      if (existsSync(manifest)) {
        const { name: found, version } = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version: string };
        if (found === name) return version;
      }
      dir = dirname(dir);
    }
  } catch {
    // unknown
  }
  return "?";
}

interface Stack {
  serverUrl: string;
  bareUrl: string;
  redis: Redis;
  servicePid: number;
}

/** Redis, the LiveKit stand-in, bare Express and the built service (production settings), each a process. */
async function startStack(): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), "dhs-bench-"));
  const [livekitPort, serverPort, barePort] = await Promise.all([freePort(), freePort(), freePort()]);
  const keysFile = join(dir, "api-keys.json");
  const key = {
    id: "key_bench",
    account_id: ACCOUNT,
    scopes: ["sessions:read", "sessions:write"],
    sha256: hashApiKey(API_KEY).toString("hex"),
  };
  writeFileSync(keysFile, JSON.stringify({ keys: [key] }));

  const redisServer = await startRedis();
  stopRedis = () => redisServer.stop();
  const tsx = [here("../node_modules/tsx/dist/cli.mjs")];
  await start(process.execPath, [...tsx, here("./livekit-stand-in.ts")], { PORT: String(livekitPort) }, /ready/);
  await start(process.execPath, [...tsx, here("./bare-express.ts")], { PORT: String(barePort) }, /ready/);
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF] : [];
  const serverUrl = `http://127.0.0.1:${serverPort}`;
  const service = await startService(
    [...profile, here("../../apps/server/dist/main.js")],
    {
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(serverPort),
      METRICS_PORT: "0",
      REDIS_URL: redisServer.url,
      LIVEKIT_URL: `ws://127.0.0.1:${livekitPort}`,
      LIVEKIT_API_KEY: LIVEKIT.key,
      LIVEKIT_API_SECRET: LIVEKIT.secret,
      API_KEYS_FILE: keysFile,
      RATE_LIMIT_ENABLED: "false",
      LOG_LEVEL: "info",
    },
    join(dir, "service.log"),
    serverUrl,
  );
  return { serverUrl, bareUrl: `http://127.0.0.1:${barePort}`, redis: new Redis(redisServer.url), servicePid: service.pid as number };
}

/** Create and get on bare Express, then on the service with each number of stored sessions: the table's rows. */
async function measureAll(stack: Stack): Promise<string[][]> {
  const first = await fetch(`${stack.serverUrl}/v1/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json", "idempotency-key": "bench-get-target" },
    body: "{}",
  });
  const sessionId = ((await first.json()) as { id: string }).id;

  process.stdout.write(`bench: ${CONNECTIONS} connections, ${DURATION_S} s per measurement after ${WARMUP_S} s warm-up\n`);
  const bare = await bothOps(stack.bareUrl, sessionId);
  const rows: string[][] = [];
  let have = 0; // sessions seeded so far; the benchmark's own creates come on top
  for (const stored of STORED) {
    if (stored > have) {
      process.stdout.write(`bench: storing ${stored - have} more sessions... `);
      process.stdout.write(`${await seed(stack.redis, stored - have)} creates/s in-process\n`);
      have = stored;
    }
    const ours = await bothOps(stack.serverUrl, sessionId);
    for (const op of ["create", "get"] as const) {
      const [mine, base] = [ours[op], bare[op]];
      rows.push([
        op,
        String(stored),
        String(mine.rps),
        `${mine.p50}`,
        `${mine.p99}`,
        String(mine.errors),
        String(base.rps),
        `${base.p50}`,
        `${base.p99}`,
        (mine.rps / base.rps).toFixed(2),
      ]);
    }
  }
  return rows;
}

/** Redis memory per session: sessions, their idempotency records, list indexes and timers, over many creates. */
async function memoryPerSession(redis: Redis): Promise<{ bytes: number; keys: string; seedRate: number }> {
  await redis.flushall();
  const before = await usedMemory(redis);
  const seedRate = await seed(redis, MEMORY_SESSIONS);
  const after = await usedMemory(redis);
  return {
    bytes: Math.round((after - before) / MEMORY_SESSIONS),
    keys: (Number(await redis.dbsize()) / MEMORY_SESSIONS).toFixed(2),
    seedRate,
  };
}

function report(rows: string[][], memory: { bytes: number; keys: string; seedRate: number }, rss: number): string {
  const header = ["op", "stored sessions", "req/s", "p50 ms", "p99 ms", "non-2xx", "bare req/s", "bare p50", "bare p99", "ratio"];
  const table = [header, header.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
  const cpu = cpus();
  const versions = {
    node: process.version,
    redis: version("redis-server", ["--version"]).split(" ")[2]?.replace("v=", "") ?? "?",
    express: packageVersion("express"),
    "express-openapi-validator": packageVersion("express-openapi-validator"),
    ioredis: packageVersion("ioredis"),
    "livekit-server-sdk": packageVersion("livekit-server-sdk"),
    pino: packageVersion("pino"),
    autocannon: packageVersion("autocannon", "../"),
  };
  return [
    "# Benchmark results",
    "",
    `Written by \`pnpm bench\` (BENCH_STORED=${STORED.join(",")}) on ${new Date().toISOString()}.`,
    "",
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB; load generator, service, bare Express, Redis and the LiveKit stand-in all on it.`,
    `Versions: ${Object.entries(versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}.`,
    `Settings: ${CONNECTIONS} connections, ${DURATION_S} s per measurement after ${WARMUP_S} s of warm-up; the service with NODE_ENV=production, the Redis store, info-level request logs to a file, no response validation, no rate limits.`,
    "",
    table,
    "",
    `Redis memory per session: ${memory.bytes} bytes (used_memory over ${MEMORY_SESSIONS} creates through the service's create path; ${memory.keys} keys per session: session, idempotency record, plus shared index and timer sets). Seeding ran at ${memory.seedRate} creates/s in-process.`,
    "",
    `Service RSS after the load: ${rss} MiB.`,
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const stack = await startStack();
  const rows = await measureAll(stack);
  const rss = rssMb(stack.servicePid);
  const text = report(rows, await memoryPerSession(stack.redis), rss);
  process.stdout.write(`\n${text}\n`);
  writeFileSync(here(`../${process.env.BENCH_RESULTS ?? "results.md"}`), text);
  await stack.redis.quit();
}

let stopRedis: () => Promise<void> = async () => {};

try {
  await main();
} finally {
  // SIGTERM lets the service exit cleanly, which is when --cpu-prof writes its profile.
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve(undefined);
          child.once("exit", resolve);
          child.kill("SIGTERM");
          setTimeout(() => child.kill("SIGKILL"), 5000).unref();
        }),
    ),
  );
  await stopRedis();
}
