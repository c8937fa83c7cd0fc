/**
 * `pnpm bench`: the service against bare Express 5, in one run on one machine.
 *
 * Starts Redis, a LiveKit RoomService stand-in and the built service (production settings, Redis store)
 * each in its own process, and a bare Express 5 app answering the same routes with a constant body; drives
 * both with autocannon (32 connections; a unique Idempotency-Key per create) and prints, for create and
 * get, req/s, p50, p99 and the ratio to bare Express. Then it measures Redis memory per session over 100k
 * creates and the service's RSS, and writes the table to bench/results.md. Then it registers one
 * customer webhook endpoint (a receiver in this process that answers 204), measures create again, and
 * how fast the session.created events reach the receiver. Numbers only: nothing here fails on timing.
 *
 *   BENCH_DURATION_S (10)  BENCH_STORED (1; "1,10000,1000000" = pnpm bench:scale)  BENCH_MEMORY_SESSIONS (100000)
 *   BENCH_RESULTS (results.md; the file in bench/ the table is written to)
 *   BENCH_CPU_PROF (unset; a directory: the service runs under node --cpu-prof and writes its profile
 *   there on exit; summarize it with `tsx src/profile-summary.ts <file>`)
 *   BENCH_SERVER (apps/server/dist/main.js; another build of the service, e.g. an older commit's, to
 *   compare under the same load)
 *
 * The service runs as production does: the rate limiter on (with a limit no request reaches, so what is
 * measured is the cost of counting) and one customer webhook endpoint registered for the account, whose
 * deliveries share the service's CPU.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AccountLimits } from "@dhs/server/domain/account-limits.js";
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
/** A key of an account whose limit of open sessions is 1: once it has one, every create is refused. */
const CAPPED_KEY = "dhs_bench_capped_key";
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
  /** 2xx answers in all. */
  ok: number;
  /** CPU time of the measured process per request answered (µs), when its pid is known. */
  cpuUsPerRequest: number | null;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

let keyCounter = 0;
/** CPU time a process has used so far (user + system), in microseconds, from /proc (Linux clock ticks). */
function cpuUsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / CLOCK_TICKS_PER_S;
}
const CLOCK_TICKS_PER_S = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

async function measure(
  url: string,
  op: "create" | "get",
  sessionId: string,
  durationS: number,
  options: { pid?: number; key?: string } = {},
): Promise<Measured> {
  const headers = { authorization: `Bearer ${options.key ?? API_KEY}`, "content-type": "application/json" };
  const run = `${process.pid}-${Date.now()}`;
  const cpuBefore = options.pid ? cpuUsOf(options.pid) : 0;
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
  const answered = result.requests.total;
  return {
    ok: result["2xx"],
    cpuUsPerRequest: options.pid && answered > 0 ? Math.round((cpuUsOf(options.pid) - cpuBefore) / answered) : null,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * Create, then get. With a webhook receiver (`settle` waits until its deliveries stop), a create's CPU
 * counts until its session.created events are delivered: that work is the create's, and measured after
 * the load it would be charged to the gets.
 */
async function bothOps(
  url: string,
  sessionId: string,
  pid?: number,
  settle?: () => Promise<void>,
): Promise<{ create: Measured; get: Measured }> {
  await measure(url, "create", sessionId, WARMUP_S);
  await settle?.();
  const cpuBefore = pid ? cpuUsOf(pid) : 0;
  const create = await measure(url, "create", sessionId, DURATION_S, pid ? { pid } : {});
  if (pid && settle) {
    await settle();
    create.cpuUsPerRequest = Math.round((cpuUsOf(pid) - cpuBefore) / Math.max(create.ok, 1));
  }
  await measure(url, "get", sessionId, WARMUP_S);
  const get = await measure(url, "get", sessionId, DURATION_S, pid ? { pid } : {});
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
    accounts: new AccountLimits(Number.MAX_SAFE_INTEGER),
    settings: {
      eventRetainMs: 86_400_000,
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
    scopes: ["sessions:read", "sessions:write", "webhooks:read", "webhooks:write"],
    sha256: hashApiKey(API_KEY).toString("hex"),
  };
  const capped = {
    id: "key_capped",
    account_id: "acct_capped",
    scopes: ["sessions:write"],
    sha256: hashApiKey(CAPPED_KEY).toString("hex"),
  };
  writeFileSync(keysFile, JSON.stringify({ keys: [key, capped], accounts: [{ id: "acct_capped", max_open_sessions: 1 }] }));

  const redisServer = await startRedis();
  stopRedis = () => redisServer.stop();
  const tsx = [here("../node_modules/tsx/dist/cli.mjs")];
  await start(process.execPath, [...tsx, here("./livekit-stand-in.ts")], { PORT: String(livekitPort) }, /ready/);
  await start(process.execPath, [...tsx, here("./bare-express.ts")], { PORT: String(barePort) }, /ready/);
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF] : [];
  const serverUrl = `http://127.0.0.1:${serverPort}`;
  const service = await startService(
    [...profile, process.env.BENCH_SERVER ?? here("../../apps/server/dist/main.js")],
    {
      // Production's settings, each given here; not NODE_ENV=production itself, which (rightly) refuses a
      // webhook endpoint on loopback, where the bench's receiver listens.
      NODE_ENV: "bench",
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      // The benchmark's creates stay open: the cap far above them (its check still runs on every create).
      ACCOUNT_MAX_OPEN_SESSIONS: "100000",
      HOST: "127.0.0.1",
      PORT: String(serverPort),
      METRICS_PORT: "0",
      REDIS_URL: redisServer.url,
      LIVEKIT_URL: `ws://127.0.0.1:${livekitPort}`,
      LIVEKIT_API_KEY: LIVEKIT.key,
      LIVEKIT_API_SECRET: LIVEKIT.secret,
      API_KEYS_FILE: keysFile,
      RATE_LIMIT_ENABLED: "true",
      RATE_LIMIT_PER_SECOND: "1000000",
      RATE_LIMIT_BURST: "1000000",
      LOG_LEVEL: "info",
    },
    join(dir, "service.log"),
    serverUrl,
  );
  return { serverUrl, bareUrl: `http://127.0.0.1:${barePort}`, redis: new Redis(redisServer.url), servicePid: service.pid as number };
}

/** Create and get on bare Express, then on the service with each number of stored sessions: the table's rows. */
async function measureAll(stack: Stack, settle: () => Promise<void>): Promise<{ rows: string[][]; bareCreate: Measured }> {
  const first = await fetch(`${stack.serverUrl}/v1/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json", "idempotency-key": "bench-get-target" },
    body: "{}",
  });
  const sessionId = ((await first.json()) as { id: string }).id;

  process.stdout.write(`bench: ${CONNECTIONS} connections, ${DURATION_S} s per measurement after ${WARMUP_S} s warm-up\n`);
  // Bare Express runs under tsx's launcher: its pid is not the server's, so its CPU is not read.
  const bare = await bothOps(stack.bareUrl, sessionId);
  const rows: string[][] = [];
  let have = 0; // sessions seeded so far; the benchmark's own creates come on top
  for (const stored of STORED) {
    if (stored > have) {
      process.stdout.write(`bench: storing ${stored - have} more sessions... `);
      process.stdout.write(`${await seed(stack.redis, stored - have)} creates/s in-process\n`);
      have = stored;
    }
    const ours = await bothOps(stack.serverUrl, sessionId, stack.servicePid, settle);
    for (const op of ["create", "get"] as const) {
      const [mine, base] = [ours[op], bare[op]];
      rows.push([
        op,
        String(stored),
        String(mine.rps),
        `${mine.p50}`,
        `${mine.p99}`,
        String(mine.errors),
        String(mine.cpuUsPerRequest ?? "?"),
        String(base.rps),
        `${base.p50}`,
        `${base.p99}`,
        (mine.rps / base.rps).toFixed(2),
      ]);
    }
  }
  return { rows, bareCreate: bare.create };
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

/** Creates of an account at its limit of open sessions: every one answered 429 concurrency_limit_exceeded. */
async function measureAtLimit(stack: Stack): Promise<Measured> {
  await measure(stack.serverUrl, "create", "", WARMUP_S, { key: CAPPED_KEY });
  return measure(stack.serverUrl, "create", "", DURATION_S, { key: CAPPED_KEY, pid: stack.servicePid });
}

interface WebhookFigures {
  create: Measured;
  bareCreate: Measured;
  delivered: number;
  duplicates: number;
  duringLoadPerS: number;
  backlogAtEnd: number;
  drainPerS: number | null;
}

interface Receiver {
  arrivals: number[];
  duplicates(): number;
  close(): void;
}

/** A customer's webhook receiver here (answering 204, counting every delivery) and its endpoint registered. */
async function registerReceiver(stack: Stack): Promise<Receiver> {
  const arrivals: number[] = [];
  const ids = new Set<string>();
  let duplicates = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      arrivals.push(performance.now());
      const id = String(req.headers["webhook-id"]);
      if (ids.has(id)) duplicates++;
      ids.add(id);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as AddressInfo).port;
  const registered = await fetch(`${stack.serverUrl}/v1/webhook-endpoints`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks` }),
  });
  if (registered.status !== 201)
    throw new Error(`registering the bench's webhook endpoint: ${registered.status} ${await registered.text()}`);
  return { arrivals, duplicates: () => duplicates, close: () => receiver.close() };
}

/** Resolves once the receiver has had no delivery for a second. */
async function quiet(receiver: Receiver): Promise<void> {
  let seen = -1;
  while (seen !== receiver.arrivals.length) {
    seen = receiver.arrivals.length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Create once more, following its session.created events to the receiver, during the load and after it. */
async function measureWebhooks(stack: Stack, receiver: Receiver, bareCreate: Measured): Promise<WebhookFigures> {
  const { arrivals } = receiver;
  // What the main measurements queued arrives first.
  await quiet(receiver);
  const before = arrivals.length;
  const started = performance.now();
  const create = await measure(stack.serverUrl, "create", "", DURATION_S, { pid: stack.servicePid });
  const ended = performance.now();
  const duringLoad = arrivals.length - before;
  const backlogAtEnd = Math.max(0, create.ok - duringLoad);
  await until(() => arrivals.length - before >= create.ok, 120_000);
  const drainedAt = arrivals.at(-1) ?? ended;
  receiver.close();
  return {
    create,
    bareCreate,
    delivered: arrivals.length - before,
    duplicates: receiver.duplicates(),
    duringLoadPerS: Math.round(duringLoad / ((ended - started) / 1000)),
    backlogAtEnd,
    drainPerS: backlogAtEnd > 0 && drainedAt > ended ? Math.round(backlogAtEnd / ((drainedAt - ended) / 1000)) : null,
  };
}

/** Waits until `done` holds; throws after the timeout (a delivery lost is a finding, not a figure). */
async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("the bench's webhook receiver did not get every event in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The commit the service was built from, marked when the tree had changes. */
function commit(): string {
  try {
    const sha = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], { encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "../apps", "../packages"], { encoding: "utf8" }).trim();
    return dirty ? `${sha} with uncommitted changes` : sha;
  } catch {
    return "unknown";
  }
}

function report(
  rows: string[][],
  memory: { bytes: number; keys: string; seedRate: number },
  rss: number,
  hooks: WebhookFigures,
  atLimit: Measured,
): string {
  const header = [
    "op",
    "stored sessions",
    "req/s",
    "p50 ms",
    "p99 ms",
    "non-2xx",
    "CPU µs/req",
    "bare req/s",
    "bare p50",
    "bare p99",
    "ratio",
  ];
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
    `Settings: ${CONNECTIONS} connections, ${DURATION_S} s per measurement after ${WARMUP_S} s of warm-up; the service with production's settings (NODE_ENV=bench only so that a webhook endpoint on loopback is allowed), the Redis store, info-level request logs to a file, no response validation, the rate limiter on (1 000 000 a second: counting, never refusing), one customer webhook endpoint registered for the account (its receiver in the load generator's process).`,
    `Measured: commit ${commit()}.`,
    "",
    table,
    "",
    "CPU µs/req: the service process alone (utime + stime from /proc) over the measurement, divided by the requests it answered; a create's counts until its session.created event has been delivered to the endpoint.",
    "",
    `Redis memory per session: ${memory.bytes} bytes (used_memory over ${MEMORY_SESSIONS} creates through the service's create path; ${memory.keys} keys per session: session, idempotency record, plus shared index and timer sets). Seeding ran at ${memory.seedRate} creates/s in-process.`,
    "",
    `Service RSS after the load: ${rss} MiB.`,
    "",
    "## Deliveries to the customer webhook endpoint",
    "",
    "The endpoint above (every event type, its receiver answering 204): create once more, following its session.created events.",
    "",
    "| op | req/s | p50 ms | p99 ms | non-2xx | CPU µs/req | bare req/s | ratio |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    `| create, 1 endpoint | ${hooks.create.rps} | ${hooks.create.p50} | ${hooks.create.p99} | ${hooks.create.errors} | ${hooks.create.cpuUsPerRequest} | ${hooks.bareCreate.rps} | ${(hooks.create.rps / hooks.bareCreate.rps).toFixed(2)} |`,
    "",
    "## At the account's limit of open sessions",
    "",
    "Creates of an account that has its one allowed session open: each is answered 429 concurrency_limit_exceeded by the idempotency claim's script, before any LiveKit call.",
    "",
    "| op | req/s | p50 ms | p99 ms | 429s | CPU µs/req |",
    "| --- | --- | --- | --- | --- | --- |",
    `| create beyond the limit | ${atLimit.rps} | ${atLimit.p50} | ${atLimit.p99} | ${atLimit.errors} | ${atLimit.cpuUsPerRequest} |`,
    "",
    `Deliveries: ${hooks.delivered} session.created events delivered for ${hooks.create.ok} creates autocannon counted (it does not count the creates still in flight when it stops), ${hooks.duplicates} delivered twice; ${hooks.duringLoadPerS}/s arrived during the load, ${hooks.backlogAtEnd} were still queued when it ended${hooks.drainPerS === null ? "" : `, and those drained at ${hooks.drainPerS}/s`}.`,
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const stack = await startStack();
  const receiver = await registerReceiver(stack);
  const { rows, bareCreate } = await measureAll(stack, () => quiet(receiver));
  const rss = rssMb(stack.servicePid);
  const hooks = await measureWebhooks(stack, receiver, bareCreate);
  const atLimit = await measureAtLimit(stack);
  const text = report(rows, await memoryPerSession(stack.redis), rss, hooks, atLimit);
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
