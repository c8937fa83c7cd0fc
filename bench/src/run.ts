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
 *   there on exit; summarize it with `tsx src/profile-summary.ts <file>`; with the LiveKit webhooks'
 *   windows beside it, `... <file> 25 "<kind>"` shows one kind's load alone)
 *   BENCH_SERVER (apps/server/dist/main.js; another build of the service, e.g. an older commit's, to
 *   compare under the same load)
 *   BENCH_REDIS (standalone; "cluster": a local Redis Cluster of three masters, each with a replica)
 *   BENCH_EVENT_SESSIONS (2000; sessions per account whose LiveKit webhooks are measured)
 *   BENCH_ONLY (unset; "events": only LiveKit's webhooks, printed, no results file: quick, and a profile
 *   of their path alone but for their sessions' creates; "tracing": only create and get with tracing off
 *   and on, printed)
 *   BENCH_ACCOUNTS (1; the load spread over this many accounts, one API key, one webhook endpoint and
 *   one session to get each: an account's keys share one hash slot, so one account loads one shard)
 *
 * Beside the service's CPU it reads Redis's own figures from every master (INFO commandstats and cpu):
 * commands and Redis CPU per request, and in a cluster each master's share of the commands.
 *
 * The service runs as production does: the rate limiter on (with a limit no request reaches, so what is
 * measured is the cost of counting) and one customer webhook endpoint registered for the account, whose
 * deliveries share the service's CPU.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AccountLimits } from "@dhs/server/domain/accounts/account-limits.js";
import { hashApiKey } from "@dhs/server/domain/accounts/api-keys.js";
import { DigitalHumanCatalog } from "@dhs/server/domain/digital-humans/digital-human-catalog.js";
import { SessionService } from "@dhs/server/domain/sessions/session-service.js";
import { LiveKitTokenIssuer } from "@dhs/server/livekit/token-issuer.js";
import { RedisSessionStore } from "@dhs/server/store/redis/session-store.js";
import { freePort, startRedis, startRedisCluster, waitForOutput } from "@dhs/testkit";
import autocannon from "autocannon";
import { Cluster, Redis } from "ioredis";
import { AccessToken } from "livekit-server-sdk";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const WARMUP_S = 3;
const CONNECTIONS = 32;
const STORED = (process.env.BENCH_STORED ?? "1").split(",").map(Number);
const MEMORY_SESSIONS = Number(process.env.BENCH_MEMORY_SESSIONS ?? 100_000);
const GET_TARGETS = 64;
const API_KEY = "dhs_bench_key";
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1);
const CLUSTER = process.env.BENCH_REDIS === "cluster";
/** A key of an account whose limit of open sessions is 1: once it has one, every create is refused. */
const CAPPED_KEY = "dhs_bench_capped_key";
/** A key of an account with no webhook endpoint: what a LiveKit event costs without the deliveries it causes. */
const QUIET = { key: "dhs_bench_quiet_key", accountId: "acct_bench_quiet" };
const ACCOUNT = "acct_bench";
const STORED_ACCOUNT = "acct_bench_stored";
const LIVEKIT = { key: "bench-key", secret: "bench-secret-that-is-long-enough-for-hs256" };
const DIGITAL_HUMAN = { id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f", name: "Ava", agent_name: "ava" } as const;

/** The bench's accounts: the first is ACCOUNT with API_KEY, as with one account. */
const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({
  key: i === 0 ? API_KEY : `${API_KEY}_${i}`,
  keyId: i === 0 ? "key_bench" : `key_bench_${i}`,
  accountId: i === 0 ? ACCOUNT : `${ACCOUNT}_${i}`,
}));

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
  /** Redis commands and Redis CPU (µs, all masters) per request answered; per master, its share of the commands. */
  redis?: RedisFigures;
}

interface RedisFigures {
  commandsPerRequest: number;
  cpuUsPerRequest: number;
  shares: number[];
}

/** Calls of every command so far and CPU used so far (µs), per master. */
type RedisSnapshot = { calls: number; cpuUs: number }[];

async function redisSnapshot(nodes: readonly Redis[]): Promise<RedisSnapshot> {
  return Promise.all(
    nodes.map(async (node) => {
      const [stats, cpu] = await Promise.all([node.info("commandstats"), node.info("cpu")]);
      const calls = [...stats.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
      const seconds = ["used_cpu_sys", "used_cpu_user"].reduce(
        (sum, field) => sum + Number(cpu.match(new RegExp(`^${field}:([\\d.]+)`, "m"))?.[1] ?? 0),
        0,
      );
      return { calls, cpuUs: seconds * 1_000_000 };
    }),
  );
}

/** What Redis did between two snapshots, per request; the snapshot's own INFO calls are not counted. */
function redisFigures(before: RedisSnapshot, after: RedisSnapshot, requests: number): RedisFigures {
  // Each snapshot is two INFO commands per node, counted in the later one.
  const calls = after.map((node, i) => Math.max(0, node.calls - (before[i]?.calls ?? 0) - 2));
  const total = calls.reduce((a, b) => a + b, 0);
  const cpuUs = after.reduce((sum, node, i) => sum + node.cpuUs - (before[i]?.cpuUs ?? 0), 0);
  const per = Math.max(requests, 1);
  return {
    commandsPerRequest: Number((total / per).toFixed(1)),
    cpuUsPerRequest: Math.round(cpuUs / per),
    shares: calls.map((c) => (total > 0 ? c / total : 0)),
  };
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
  sessionIds: readonly string[],
  durationS: number,
  options: { pid?: number; key?: string; nodes?: readonly Redis[] } = {},
): Promise<Measured> {
  const headers = { authorization: `Bearer ${options.key ?? API_KEY}`, "content-type": "application/json" };
  const run = `${process.pid}-${Date.now()}`;
  // Round robin over the accounts (unless a key is given): each request as its account's.
  const keys = options.key ? [options.key] : accounts.map((account) => account.key);
  let turn = 0;
  const redisBefore = options.nodes ? await redisSnapshot(options.nodes) : undefined;
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
            setupRequest: (request) => ({
              ...request,
              headers: {
                ...request.headers,
                authorization: `Bearer ${keys[turn++ % keys.length]}`,
                "idempotency-key": `${run}-${keyCounter++}`,
              },
            }),
          }
        : {
            method: "GET",
            path: `/v1/sessions/${sessionIds[0]}`,
            headers,
            setupRequest: (request) => {
              const i = turn++ % sessionIds.length;
              return {
                ...request,
                path: `/v1/sessions/${sessionIds[i]}`,
                headers: { ...request.headers, authorization: `Bearer ${keys[i % keys.length]}` },
              };
            },
          },
    ],
  });
  const answered = result.requests.total;
  const cpuUsPerRequest = options.pid && answered > 0 ? Math.round((cpuUsOf(options.pid) - cpuBefore) / answered) : null;
  return {
    ok: result["2xx"],
    cpuUsPerRequest,
    ...(options.nodes && redisBefore ? { redis: redisFigures(redisBefore, await redisSnapshot(options.nodes), answered) } : {}),
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * Create, then get. On the service, a create's CPU and Redis figures count until its session.created
 * events are delivered (`settle` waits until the receiver's deliveries stop): that work is the create's,
 * and measured after the load it would be charged to the gets.
 */
async function bothOps(
  url: string,
  sessionIds: readonly string[],
  service?: { pid: number; nodes: readonly Redis[]; settle: () => Promise<void> },
): Promise<{ create: Measured; get: Measured }> {
  await measure(url, "create", sessionIds, WARMUP_S);
  await service?.settle();
  const cpuBefore = service ? cpuUsOf(service.pid) : 0;
  const redisBefore = service ? await redisSnapshot(service.nodes) : undefined;
  const create = await measure(url, "create", sessionIds, DURATION_S);
  if (service && redisBefore) {
    await service.settle();
    create.cpuUsPerRequest = Math.round((cpuUsOf(service.pid) - cpuBefore) / Math.max(create.ok, 1));
    create.redis = redisFigures(redisBefore, await redisSnapshot(service.nodes), create.ok);
  }
  await measure(url, "get", sessionIds, WARMUP_S);
  const get = await measure(url, "get", sessionIds, DURATION_S, service ?? {});
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

/** The service's own session use cases on this Redis (store and tokens real, LiveKit a no-op). */
function seedService(redis: Redis | Cluster) {
  return new SessionService({
    store: new RedisSessionStore(redis),
    rooms: {
      createRoom: async () => {},
      deleteRoom: async () => {},
      hasLiveAgentJob: async () => true,
      dispatchAgent: async () => {},
      listSessionRooms: async () => [],
    },
    tokens: new LiveKitTokenIssuer(LIVEKIT.key, LIVEKIT.secret),
    catalog: new DigitalHumanCatalog([DIGITAL_HUMAN]),
    accounts: new AccountLimits(Number.MAX_SAFE_INTEGER),
    settings: {
      eventRetainMs: 86_400_000,
      livekitEventDedupeMs: 3_600_000,
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
}

// An account of their own: the measured accounts stay under their cap of open sessions however many are stored.
const STORED_PRINCIPAL = {
  keyId: "key_stored",
  accountId: STORED_ACCOUNT,
  account: STORED_ACCOUNT,
  mode: "live" as const,
  scopes: new Set(["sessions:read", "sessions:write"] as const),
};

/** Runs `work` for 0..count-1 with `concurrency` at a time; returns how many a second it did. */
async function inParallel(count: number, work: (i: number) => Promise<unknown>, concurrency = 256): Promise<number> {
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
  return Math.round(count / ((Date.now() - started) / 1000));
}

/** Creates sessions through the service's own create path; returns the rate and their ids. */
async function seed(redis: Redis | Cluster, count: number): Promise<{ rate: number; ids: string[] }> {
  const sessions = seedService(redis);
  const run = `seed-${Date.now()}`;
  const ids: string[] = [];
  const rate = await inParallel(count, async (i) => {
    const { session } = await sessions.create(STORED_PRINCIPAL, `${run}-${i}`, { participant_identity: `seed-${i}`, tags: ["bench"] });
    ids.push(session.id);
  });
  return { rate, ids };
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
  redis: Redis | Cluster;
  /** One connection to each master, for Redis's own figures. */
  nodes: Redis[];
  servicePid: number;
  /** How the service was started, so that another one can be started like it (tracing on). */
  service: { args: string[]; env: Record<string, string>; dir: string };
}

/** Redis, the LiveKit stand-in, bare Express and the built service (production settings), each a process. */
async function startStack(): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), "dhs-bench-"));
  const [livekitPort, serverPort, barePort] = await Promise.all([freePort(), freePort(), freePort()]);
  const keysFile = join(dir, "api-keys.json");
  const keys = accounts.map((account) => ({
    id: account.keyId,
    account_id: account.accountId,
    scopes: ["sessions:read", "sessions:write", "webhooks:read", "webhooks:write"],
    sha256: hashApiKey(account.key).toString("hex"),
  }));
  const capped = {
    id: "key_capped",
    account_id: "acct_capped",
    scopes: ["sessions:write"],
    sha256: hashApiKey(CAPPED_KEY).toString("hex"),
  };
  const quiet = {
    id: "key_quiet",
    account_id: QUIET.accountId,
    scopes: ["sessions:read", "sessions:write"],
    sha256: hashApiKey(QUIET.key).toString("hex"),
  };
  writeFileSync(keysFile, JSON.stringify({ keys: [...keys, capped, quiet], accounts: [{ id: "acct_capped", max_open_sessions: 1 }] }));

  const redisServer = CLUSTER ? await startRedisCluster(3) : await startRedis();
  stopRedis = () => redisServer.stop();
  const tsx = [here("../node_modules/tsx/dist/cli.mjs")];
  await start(process.execPath, [...tsx, here("./livekit-stand-in.ts")], { PORT: String(livekitPort) }, /ready/);
  await start(process.execPath, [...tsx, here("./bare-express.ts")], { PORT: String(barePort) }, /ready/);
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF] : [];
  const serverUrl = `http://127.0.0.1:${serverPort}`;
  const serviceArgs = [...profile, process.env.BENCH_SERVER ?? here("../../apps/server/dist/main.js")];
  const serviceEnv: Record<string, string> = {
    // Production's settings, each given here; not NODE_ENV=production itself, which (rightly) refuses a
    // webhook endpoint on loopback, where the bench's receiver listens.
    NODE_ENV: "bench",
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    // The benchmark's creates stay open: the cap far above them (its check still runs on every create).
    ACCOUNT_MAX_OPEN_SESSIONS: "100000",
    // A healthy digital human joins its room within a second or two and the first check on it never
    // runs. The stand-in runs no agents, so with the default (5 s) every session's check would find none
    // and dispatch it again, every few seconds for the rest of the run: work of a failing fleet, charged
    // to whatever was being measured then. At its longest the first check comes after the run.
    DIGITAL_HUMAN_REDISPATCH_S: "300",
    HOST: "127.0.0.1",
    PORT: String(serverPort),
    METRICS_PORT: "0",
    REDIS_URL: redisServer.url,
    REDIS_MODE: CLUSTER ? "cluster" : "standalone",
    LIVEKIT_URL: `ws://127.0.0.1:${livekitPort}`,
    LIVEKIT_API_KEY: LIVEKIT.key,
    LIVEKIT_API_SECRET: LIVEKIT.secret,
    API_KEYS_FILE: keysFile,
    RATE_LIMIT_ENABLED: "true",
    RATE_LIMIT_PER_SECOND: "1000000",
    RATE_LIMIT_BURST: "1000000",
    LOG_LEVEL: "info",
  };
  const service = await startService(serviceArgs, serviceEnv, join(dir, "service.log"), serverUrl);
  const { redis, nodes } = await connectBench(redisServer.url);
  return {
    serverUrl,
    bareUrl: `http://127.0.0.1:${barePort}`,
    redis,
    nodes,
    servicePid: service.pid as number,
    service: { args: serviceArgs, env: serviceEnv, dir },
  };
}

/** The bench's own connection (seeding, memory) and one to each master. */
async function connectBench(url: string): Promise<{ redis: Redis | Cluster; nodes: Redis[] }> {
  if (!CLUSTER) {
    const redis = new Redis(url);
    return { redis, nodes: [redis] };
  }
  const seeds = url.split(",").map((seed) => ({ host: new URL(seed).hostname, port: Number(new URL(seed).port) }));
  const cluster = new Cluster(seeds);
  await new Promise<void>((resolve, reject) => {
    cluster.once("ready", resolve);
    cluster.once("error", reject);
  });
  const masters = cluster.nodes("master").map((node) => new Redis(node.options.port ?? 6379, node.options.host ?? "127.0.0.1"));
  return { redis: cluster, nodes: masters };
}

/**
 * Sessions for the gets, each read with its account's key: at least one per account, and at least
 * GET_TARGETS, so the reads spread over the shards as real ones do (one session would be one slot).
 */
async function getTargets(stack: Stack): Promise<string[]> {
  const sessionIds: string[] = [];
  for (let i = 0; i < Math.max(GET_TARGETS, accounts.length); i++) {
    const account = accounts[i % accounts.length] as (typeof accounts)[number];
    const made = await fetch(`${stack.serverUrl}/v1/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json", "idempotency-key": `bench-get-target-${i}` },
      body: "{}",
    });
    sessionIds.push(((await made.json()) as { id: string }).id);
  }
  return sessionIds;
}

/** Create and get on bare Express, then on the service with each number of stored sessions: the table's rows. */
async function measureAll(
  stack: Stack,
  sessionIds: readonly string[],
  settle: () => Promise<void>,
): Promise<{ rows: string[][]; bareCreate: Measured }> {
  process.stdout.write(`bench: ${CONNECTIONS} connections, ${DURATION_S} s per measurement after ${WARMUP_S} s warm-up\n`);
  // Bare Express runs under tsx's launcher: its pid is not the server's, so its CPU is not read.
  const bare = await bothOps(stack.bareUrl, sessionIds);
  const rows: string[][] = [];
  let have = 0; // sessions seeded so far; the benchmark's own creates come on top
  for (const stored of STORED) {
    if (stored > have) {
      process.stdout.write(`bench: storing ${stored - have} more sessions... `);
      process.stdout.write(`${(await seed(stack.redis, stored - have)).rate} creates/s in-process\n`);
      have = stored;
    }
    const ours = await bothOps(stack.serverUrl, sessionIds, { pid: stack.servicePid, nodes: stack.nodes, settle });
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
        String(mine.redis?.commandsPerRequest ?? "?"),
        String(mine.redis?.cpuUsPerRequest ?? "?"),
        shares(mine.redis),
        String(base.rps),
        `${base.p50}`,
        `${base.p99}`,
        (mine.rps / base.rps).toFixed(2),
      ]);
    }
  }
  return { rows, bareCreate: bare.create };
}

/** Each master's share of the commands, as "34/33/33%" (one master: "100%"). */
function shares(redis: RedisFigures | undefined): string {
  return redis ? `${redis.shares.map((share) => Math.round(share * 100)).join("/")}%` : "?";
}

interface MemoryFigures {
  /** used_memory per session, while they are open and once they have all ended. */
  bytes: number;
  endedBytes: number;
  keys: string;
  seedRate: number;
  /** MEMORY USAGE by kind of key, per session: open, then ended. */
  byKey: { open: Record<string, number>; ended: Record<string, number> };
  /** Each master's share of the memory the open sessions added, and of what the ended ones keep. */
  shares: number[];
  endedShares: number[];
}

/** What each key of the layout is, for the per-key table (the prefix is the bench's default, `dhs`). */
const KEY_KINDS: [string, RegExp][] = [
  ["session record (its shard)", /:session:/],
  ["Idempotency-Key record (its session's shard)", /:idem:/],
  ["open sessions (per account, bounded by its cap)", /:open$/],
  ["creates in flight (per account)", /:claims$/],
  ["index of ended sessions (per account, shard and day)", /:ended:/],
  ["timer sets (per shard)", /:timers:/],
  ["usage counters (per account and day)", /:usage:/],
  ["endSession's mark (expires after 60 s; removed before the ended column)", /:ending:/],
];

/** MEMORY USAGE of every key, summed by kind and divided by `per`. */
async function bytesByKey(nodes: readonly Redis[], per: number): Promise<Record<string, number>> {
  const sums: Record<string, number> = {};
  for (const node of nodes) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "COUNT", 1000);
      cursor = next;
      const sizes = await Promise.all(keys.map((key) => node.memory("USAGE", key)));
      keys.forEach((key, i) => {
        const kind = KEY_KINDS.find(([, pattern]) => pattern.test(key))?.[0] ?? "other";
        sums[kind] = (sums[kind] ?? 0) + Number(sizes[i] ?? 0);
      });
    } while (cursor !== "0");
  }
  return Object.fromEntries(Object.entries(sums).map(([kind, bytes]) => [kind, Math.round(bytes / per)]));
}

/**
 * Redis memory per session over many creates through the service's create path (sessions, their
 * idempotency records, indexes and timers), then again once every one of them has ended (what retention
 * keeps), with what each kind of key holds.
 */
async function memoryPerSession(stack: Stack): Promise<MemoryFigures> {
  const { redis, nodes } = stack;
  const sum = async (read: (node: Redis) => Promise<number>) => (await Promise.all(nodes.map(read))).reduce((a, b) => a + b, 0);
  await Promise.all(nodes.map((node) => node.flushall()));
  const perNode = () => Promise.all(nodes.map(usedMemory));
  const beforeByNode = await perNode();
  const before = beforeByNode.reduce((a, b) => a + b, 0);
  const { rate: seedRate, ids } = await seed(redis, MEMORY_SESSIONS);
  const addedByNode = (await perNode()).map((bytes, i) => bytes - (beforeByNode[i] ?? 0));
  const afterCreates = before + addedByNode.reduce((a, b) => a + b, 0);
  const keys = ((await sum(async (node) => Number(await node.dbsize()))) / MEMORY_SESSIONS).toFixed(2);
  const open = await bytesByKey(nodes, MEMORY_SESSIONS);
  const sessions = seedService(redis);
  await inParallel(ids.length, (i) => sessions.end(STORED_PRINCIPAL, ids[i] as string));
  // endSession's marks expire after 60 s: what retention keeps is measured without them.
  await Promise.all(
    nodes.map(async (node) => {
      const marks = await node.keys("*:ending:*");
      if (marks.length > 0) await Promise.all(marks.map((key) => node.unlink(key)));
    }),
  );
  const endedByNode = (await perNode()).map((bytes, i) => bytes - (beforeByNode[i] ?? 0));
  const afterEnds = before + endedByNode.reduce((a, b) => a + b, 0);
  return {
    bytes: Math.round((afterCreates - before) / MEMORY_SESSIONS),
    endedBytes: Math.round((afterEnds - before) / MEMORY_SESSIONS),
    keys,
    seedRate,
    byKey: { open, ended: await bytesByKey(nodes, MEMORY_SESSIONS) },
    shares: addedByNode.map((bytes) => bytes / Math.max(1, afterCreates - before)),
    endedShares: endedByNode.map((bytes) => bytes / Math.max(1, afterEnds - before)),
  };
}

/** Creates of an account at its limit of open sessions: every one answered 429 concurrency_limit_exceeded. */
async function measureAtLimit(stack: Stack): Promise<Measured> {
  await measure(stack.serverUrl, "create", [], WARMUP_S, { key: CAPPED_KEY });
  return measure(stack.serverUrl, "create", [], DURATION_S, { key: CAPPED_KEY, pid: stack.servicePid, nodes: stack.nodes });
}

interface WebhookFigures {
  create: Measured;
  bareCreate: Measured;
  delivered: number;
  duplicates: number;
  duringLoadPerS: number;
  backlogAtEnd: number;
  drainPerS: number | null;
  /** While the backlog drained (no other load): the service's CPU and Redis's figures per delivery. */
  perDelivery: { cpuUs: number; redis: RedisFigures } | null;
}

interface Receiver {
  arrivals: number[];
  duplicates(): number;
  close(): void;
}

/** A customer's webhook receiver here (answering 204, counting every delivery), an endpoint of each account's. */
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
  for (const account of accounts) {
    const registered = await fetch(`${stack.serverUrl}/v1/webhook-endpoints`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks` }),
    });
    if (registered.status !== 201)
      throw new Error(`registering the bench's webhook endpoint: ${registered.status} ${await registered.text()}`);
  }
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
  const create = await measure(stack.serverUrl, "create", [], DURATION_S, { pid: stack.servicePid });
  const ended = performance.now();
  const duringLoad = arrivals.length - before;
  const backlogAtEnd = Math.max(0, create.ok - duringLoad);
  const drainFrom = { arrived: arrivals.length, cpuUs: cpuUsOf(stack.servicePid), redis: await redisSnapshot(stack.nodes) };
  await until(() => arrivals.length - before >= create.ok, 120_000);
  const drained = arrivals.length - drainFrom.arrived;
  // A small backlog drains in moments, too short for the service's own background work not to count.
  const perDelivery =
    drained >= MIN_DRAINED
      ? {
          cpuUs: Math.round((cpuUsOf(stack.servicePid) - drainFrom.cpuUs) / drained),
          redis: redisFigures(drainFrom.redis, await redisSnapshot(stack.nodes), drained),
        }
      : null;
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
    perDelivery,
  };
}

const MIN_DRAINED = 1000;

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
  memory: MemoryFigures,
  rss: number,
  hooks: WebhookFigures,
  atLimit: Measured,
  events: EventFigures,
  tracing: TracingFigures,
): string {
  const header = [
    "op",
    "stored sessions",
    "req/s",
    "p50 ms",
    "p99 ms",
    "non-2xx",
    "CPU µs/req",
    "Redis cmds/req",
    "Redis CPU µs/req",
    "cmds per master",
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
    `Settings: ${CONNECTIONS} connections, ${DURATION_S} s per measurement after ${WARMUP_S} s of warm-up; the service with production's settings (NODE_ENV=bench only so that a webhook endpoint on loopback is allowed), the Redis store (${CLUSTER ? "a local Redis Cluster: three masters, each with a replica" : "one redis-server"}), ${ACCOUNTS === 1 ? "one account" : `the load spread round robin over ${ACCOUNTS} accounts`}, info-level request logs to a file, no response validation, the rate limiter on (1 000 000 a second: counting, never refusing), one customer webhook endpoint registered for ${ACCOUNTS === 1 ? "the account" : "each account"} (its receiver in the load generator's process).`,
    `Measured: commit ${commit()}.`,
    "",
    table,
    "",
    "CPU µs/req: the service process alone (utime + stime from /proc) over the measurement, divided by the requests it answered; a create's counts until its session.created event has been delivered to the endpoint. Redis cmds/req and Redis CPU µs/req: every master's INFO commandstats calls and used_cpu_sys + used_cpu_user over the same span, summed, per request (replicas not counted); cmds per master: each master's share of those commands.",
    "",
    `Redis memory per session: ${memory.bytes} bytes (used_memory over ${MEMORY_SESSIONS} creates through the service's create path; ${memory.keys} keys per session: session, idempotency record, plus the account's open sessions and the shards' timer sets). Seeding ran at ${memory.seedRate} creates/s in-process. Once every one of them has ended (endSession), ${memory.endedBytes} bytes a session, which Redis keeps for SESSION_RETENTION_S and then expires by itself. Each master's share of the memory the open sessions added: ${memory.shares.map((share) => `${Math.round(share * 100)}%`).join(" / ")}; of what the ended ones keep: ${memory.endedShares.map((share) => `${Math.round(share * 100)}%`).join(" / ")} (the sessions are one account's).`,
    "",
    "By key (MEMORY USAGE of every key, summed by kind, per session):",
    "",
    "| key | open | ended |",
    "| --- | --- | --- |",
    ...[...new Set([...Object.keys(memory.byKey.open), ...Object.keys(memory.byKey.ended)])].map(
      (kind) => `| ${kind} | ${memory.byKey.open[kind] ?? 0} | ${memory.byKey.ended[kind] ?? 0} |`,
    ),
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
    "| op | req/s | p50 ms | p99 ms | 429s | CPU µs/req | Redis cmds/req | Redis CPU µs/req |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    `| create beyond the limit | ${atLimit.rps} | ${atLimit.p50} | ${atLimit.p99} | ${atLimit.errors} | ${atLimit.cpuUsPerRequest} | ${atLimit.redis?.commandsPerRequest ?? "?"} | ${atLimit.redis?.cpuUsPerRequest ?? "?"} |`,
    "",
    hooks.perDelivery
      ? `Per delivery, measured while the backlog drained with no other load: ${hooks.perDelivery.cpuUs} µs of the service's CPU, ${hooks.perDelivery.redis.commandsPerRequest} Redis commands and ${hooks.perDelivery.redis.cpuUsPerRequest} µs of Redis CPU (commands per master ${shares(hooks.perDelivery.redis)}).`
      : `Per delivery: not measured (fewer than ${MIN_DRAINED} deliveries were left to drain after the load).`,
    "",
    `Deliveries: ${hooks.delivered} session.created events delivered for ${hooks.create.ok} creates autocannon counted (it does not count the creates still in flight when it stops), ${hooks.duplicates} delivered twice; ${hooks.duringLoadPerS}/s arrived during the load, ${hooks.backlogAtEnd} were still queued when it ended${hooks.drainPerS === null ? "" : `, and those drained at ${hooks.drainPerS}/s`}.`,
    "",
    eventsSection(events),
    "",
    wholeLife(rows, events),
    "",
    tracingSection(tracing),
    "",
  ].join("\n");
}

interface TracingFigures {
  rows: { label: string; create: Measured; get: Measured }[];
  exports: { requests: number; bytes: number };
}

/**
 * Create and get on a new service process each (the same settings and Redis as the main one), with
 * tracing off, then on (OTLP http/protobuf to a collector stand-in in this process that answers 200 and
 * counts) sampling every trace, then one in ten.
 */
async function measureTracing(stack: Stack, sessionIds: readonly string[], settle: () => Promise<void>): Promise<TracingFigures> {
  const exports = { requests: 0, bytes: 0 };
  const collector = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      exports.bytes += chunk.length;
    });
    req.on("end", () => {
      exports.requests++;
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  const configs: [string, Record<string, string>][] = [
    ["off", {}],
    ["on, every trace sampled", { OTEL_TRACES_SAMPLER: "parentbased_always_on" }],
    ["on, 10% sampled", { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" }],
  ];
  const rows: TracingFigures["rows"] = [];
  for (const [label, sampling] of configs) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const otel =
      label === "off" ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf", ...sampling };
    const env = { ...stack.service.env, PORT: String(port), ...otel };
    const child = await startService(stack.service.args, env, join(stack.service.dir, `service-tracing-${rows.length}.log`), url);
    process.stdout.write(`bench: tracing ${label}\n`);
    const measured = await bothOps(url, sessionIds, { pid: child.pid as number, nodes: stack.nodes, settle });
    rows.push({ label, ...measured });
    await new Promise((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
  }
  await new Promise((resolve) => collector.close(resolve));
  return { rows, exports };
}

function tracingSection(tracing: TracingFigures): string {
  return [
    "## Tracing (OpenTelemetry)",
    "",
    "Create and get as above, each on a new service process with the same settings: tracing off (no OTEL_ variable), then on with OTLP http/protobuf to a collector stand-in in the load generator's process (it answers 200 at once), sampling every trace (OTEL_TRACES_SAMPLER=parentbased_always_on), then one in ten (parentbased_traceidratio, 0.1). A create's CPU includes its session.created delivery, as above.",
    "",
    "| tracing | create req/s | create p99 ms | create CPU µs/req | get req/s | get p99 ms | get CPU µs/req |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...tracing.rows.map(
      ({ label, create, get }) =>
        `| ${label} | ${create.rps} | ${create.p99} | ${create.cpuUsPerRequest} | ${get.rps} | ${get.p99} | ${get.cpuUsPerRequest} |`,
    ),
    "",
    `The collector stand-in received ${tracing.exports.requests} export requests, ${Math.round(tracing.exports.bytes / 1024)} KiB in all.`,
  ].join("\n");
}

function eventsSection(events: EventFigures): string {
  return [
    "## LiveKit's webhooks: a session's life after its create",
    "",
    `Signed LiveKit webhooks for ${events.sessions} sessions, one kind at a time over 16 connections, in the order of a session's life, after a round that warms their path up; each kind's CPU is the service's over its load and the quiet second after, less what the idle service spends over as long (${events.idleUsPerS} µs/s: its timer and delivery sweeps). First for sessions of an account without webhook endpoints: the event alone (events/s, CPU, Redis). Then for sessions of the account with the endpoint: the event with the customer webhook deliveries it causes (deliveries per event).`,
    "",
    "| event | events/s | CPU µs/event | Redis cmds/event | Redis CPU µs/event | cmds per master | with its deliveries: CPU µs/event | deliveries per event |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...events.rows.map(
      (row) =>
        `| ${row.kind} | ${row.perS} | ${row.cpuUs} | ${row.redis.commandsPerRequest} | ${row.redis.cpuUsPerRequest} | ${shares(row.redis)} | ${row.withDeliveriesUs} | ${row.deliveries} |`,
    ),
  ].join("\n");
}

/**
 * A whole session's service CPU: its create (with its session.created delivery) and the LiveKit events
 * of a session that is joined, served and left (with their deliveries); not the duplicate nor the
 * foreign room, which are LiveKit's and other rooms' costs.
 */
function wholeLife(rows: string[][], events: EventFigures): string {
  const create = Number(rows.find((row) => row[0] === "create")?.[6]);
  const life = events.rows.filter((row) => !/duplicate|not this service/.test(row.kind));
  const eventsUs = life.reduce((sum, row) => sum + row.withDeliveriesUs, 0);
  return `A whole session's life, per session: ${create + eventsUs} µs of the service's CPU: its create ${create} µs and its ${life.length} LiveKit events ${eventsUs} µs, each with the deliveries it causes.`;
}

/** What LiveKit's signed webhooks cost the service, by kind of event: a session's life after its create. */
interface EventFigures {
  rows: {
    kind: string;
    perS: number;
    /** The event alone: sessions of an account without webhook endpoints. */
    cpuUs: number;
    redis: RedisFigures;
    /** The same event of a session whose account has an endpoint, with the deliveries it causes. */
    withDeliveriesUs: number;
    deliveries: number;
  }[];
  sessions: number;
  /** The service's CPU while idle (µs/s), taken off each kind's window. */
  idleUsPerS: number;
}

interface EventRound {
  rows: { kind: string; perS: number; cpuUs: number; redis: RedisFigures; deliveries: number }[];
}

const EVENT_SESSIONS = Number(process.env.BENCH_EVENT_SESSIONS ?? 2000);
/**
 * When each kind's load ran, on the clock V8's CPU profiles use (CLOCK_MONOTONIC, µs): written beside the
 * profile (BENCH_CPU_PROF) so that profile-summary can show one kind's samples alone.
 */
const profileWindows: { kind: string; events: number; fromUs: number; toUs: number }[] = [];
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Event ids: unique over the run, so no round's events are taken for another's duplicates. */
let serial = 0;

/**
 * Signed LiveKit webhooks, as LiveKit sends them (protobuf JSON, a JWT whose sha256 claim is the body's
 * hash), for EVENT_SESSIONS sessions created for them, one kind at a time over 16 connections: each
 * kind's service CPU, Redis commands and CPU per event, for sessions of an account without webhook
 * endpoints (the event alone) and of one with an endpoint (with the deliveries it causes, measured once
 * the receiver has been quiet for a second). The bodies are signed before the clock starts.
 */
async function measureLiveKitEvents(stack: Stack, receiver: Receiver): Promise<EventFigures> {
  // A first round, not measured, warms the event path up (in a full run the creates and gets before
  // warm up only theirs): without it the first kinds measured pay for the JIT.
  await liveKitEvents(stack, receiver, Math.min(EVENT_SESSIONS, 500), QUIET, 0);
  // What the service spends doing nothing (its timer and delivery sweeps) is not the events': each
  // kind's window (its load, then a quiet second at least) is charged that much less.
  await quiet(receiver);
  const idleBefore = cpuUsOf(stack.servicePid);
  const idleStarted = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const idleUsPerS = (cpuUsOf(stack.servicePid) - idleBefore) / ((performance.now() - idleStarted) / 1000);
  const alone = await liveKitEvents(stack, receiver, EVENT_SESSIONS, QUIET, idleUsPerS);
  const delivered = await liveKitEvents(stack, receiver, EVENT_SESSIONS, { key: API_KEY, accountId: ACCOUNT }, idleUsPerS);
  return {
    idleUsPerS: Math.round(idleUsPerS),
    rows: alone.rows.map((row, i) => {
      const other = delivered.rows[i] as EventRound["rows"][number];
      return { ...row, withDeliveriesUs: other.cpuUs, deliveries: other.deliveries };
    }),
    sessions: EVENT_SESSIONS,
  };
}

async function liveKitEvents(
  stack: Stack,
  receiver: Receiver,
  count: number,
  account: { key: string; accountId: string },
  idleUsPerS: number,
): Promise<EventRound> {
  await quiet(receiver);
  const sessions: { id: string; room_name: string }[] = [];
  await inParallel(
    count,
    async (i) => {
      const made = await fetch(`${stack.serverUrl}/v1/sessions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${account.key}`,
          "content-type": "application/json",
          "idempotency-key": `bench-events-${Date.now()}-${i}`,
        },
        body: '{"participant_identity":"bench-user"}',
      });
      if (made.status !== 201) throw new Error(`create for the events answered ${made.status}`);
      sessions.push((await made.json()) as { id: string; room_name: string });
    },
    16,
  );
  await quiet(receiver);
  const event = (
    kind: string,
    session: { id: string; room_name: string },
    participant?: { identity: string; kind: "STANDARD" | "AGENT" },
  ) => ({
    event: kind,
    id: `EV_bench_${++serial}`,
    createdAt: String(Math.floor(Date.now() / 1000)),
    room: {
      sid: `RM_${session.id}`,
      name: session.room_name,
      metadata: JSON.stringify({ session_id: session.id, account_id: account.accountId, deployment: "dhs" }),
    },
    ...(participant
      ? { participant: { sid: `PA_${participant.identity}_${session.id}`, identity: participant.identity, kind: participant.kind } }
      : {}),
  });
  const signed = async (body: string) => {
    const token = new AccessToken(LIVEKIT.key, LIVEKIT.secret, { ttl: 600 });
    token.sha256 = createHash("sha256").update(body).digest("base64");
    return { body, authorization: await token.toJwt() };
  };
  const sign = (bodies: object[]) => Promise.all(bodies.map((body) => signed(JSON.stringify(body))));
  const user = { identity: "bench-user", kind: "STANDARD" as const };
  const agent = { identity: "agent-ava", kind: "AGENT" as const };
  const joined = await sign(sessions.map((s) => event("participant_joined", s, user)));
  const kinds: [string, { body: string; authorization: string }[]][] = [
    ["participant joined (the session becomes active)", joined],
    ["digital human joined", await sign(sessions.map((s) => event("participant_joined", s, agent)))],
    ["a duplicate delivery (participant joined again, same event id)", joined],
    [
      "a room that is not this service's",
      await sign(
        sessions.map((s, i) => ({ ...event("participant_joined", s, user), room: { sid: `RM_other_${i}`, name: `other-room-${i}` } })),
      ),
    ],
    ["participant left (the departure timer starts)", await sign(sessions.map((s) => event("participant_left", s, user)))],
    ["room finished (the session ends)", await sign(sessions.map((s) => event("room_finished", s)))],
  ];
  const rows: EventRound["rows"] = [];
  for (const [kind, bodies] of kinds) {
    const arrivedBefore = receiver.arrivals.length;
    const redisBefore = await redisSnapshot(stack.nodes);
    const cpuBefore = cpuUsOf(stack.servicePid);
    const started = performance.now();
    const fromUs = monotonicUs();
    await inParallel(
      bodies.length,
      async (i) => {
        const { body, authorization } = bodies[i] as { body: string; authorization: string };
        const res = await fetch(`${stack.serverUrl}/livekit/webhook`, {
          method: "POST",
          headers: { authorization, "content-type": "application/webhook+json" },
          body,
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${kind}: LiveKit's webhook answered ${res.status}`);
      },
      16,
    );
    const seconds = (performance.now() - started) / 1000;
    profileWindows.push({ kind: `${account.accountId}: ${kind}`, events: bodies.length, fromUs, toUs: monotonicUs() });
    await quiet(receiver);
    const windowS = (performance.now() - started) / 1000;
    rows.push({
      kind,
      perS: Math.round(bodies.length / seconds),
      cpuUs: Math.round((cpuUsOf(stack.servicePid) - cpuBefore - idleUsPerS * windowS) / bodies.length),
      redis: redisFigures(redisBefore, await redisSnapshot(stack.nodes), bodies.length),
      deliveries: Number(((receiver.arrivals.length - arrivedBefore) / bodies.length).toFixed(2)),
    });
  }
  return { rows };
}

async function main(): Promise<void> {
  const stack = await startStack();
  const receiver = await registerReceiver(stack);
  if (process.env.BENCH_ONLY === "events") {
    // The LiveKit events alone (a profile of their path: BENCH_CPU_PROF), printed, no results file.
    process.stdout.write(`\n${eventsSection(await measureLiveKitEvents(stack, receiver))}\n`);
    receiver.close();
    await Promise.all([stack.redis, ...stack.nodes].map((connection) => connection.quit().catch(() => undefined)));
    return;
  }
  if (process.env.BENCH_ONLY === "tracing") {
    const figures = await measureTracing(stack, await getTargets(stack), () => quiet(receiver));
    process.stdout.write(`\n${tracingSection(figures)}\n`);
    receiver.close();
    await Promise.all([stack.redis, ...stack.nodes].map((connection) => connection.quit().catch(() => undefined)));
    return;
  }
  const sessionIds = await getTargets(stack);
  const { rows, bareCreate } = await measureAll(stack, sessionIds, () => quiet(receiver));
  const tracing = await measureTracing(stack, sessionIds, () => quiet(receiver));
  const rss = rssMb(stack.servicePid);
  // Before measureWebhooks, which closes the receiver: the events' deliveries are part of their cost.
  const events = await measureLiveKitEvents(stack, receiver);
  const hooks = await measureWebhooks(stack, receiver, bareCreate);
  const atLimit = await measureAtLimit(stack);
  const text = report(rows, await memoryPerSession(stack), rss, hooks, atLimit, events, tracing);
  process.stdout.write(`\n${text}\n`);
  writeFileSync(here(`../${process.env.BENCH_RESULTS ?? "results.md"}`), text);
  await Promise.all([stack.redis, ...stack.nodes].map((connection) => connection.quit().catch(() => undefined)));
}

let stopRedis: () => Promise<void> = async () => {};

try {
  await main();
} finally {
  if (process.env.BENCH_CPU_PROF) writeFileSync(join(process.env.BENCH_CPU_PROF, "windows.json"), JSON.stringify(profileWindows, null, 1));
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
