/**
 * The stack a bench run measures, each part a process of its own: Redis (or a local Redis Cluster) and a
 * PostgreSQL database of the run's own on the machine's server (production's stores: the service takes
 * neither alone), the LiveKit RoomService stand-in, bare Express, and the built service with
 * production's settings, its logs written straight into a file. `stopStack` ends them (SIGTERM first, so a profiled service writes its
 * profile).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiKeyRecord, ChatCompletionsServer, createDatabase, freePort, startRedis, startRedisCluster, waitForOutput } from "@dhs/testkit";
import { Cluster, Redis } from "ioredis";
import { accounts, CAPPED_KEY, CLUSTER, here, LIVEKIT, QUIET, TOOLS } from "./settings.js";

export interface Stack {
  serverUrl: string;
  bareUrl: string;
  /** The LiveKit stand-in's address (its call counts: GET /bench/calls). */
  livekitUrl: string;
  redis: Redis | Cluster;
  /** The run's PostgreSQL database, the service's. */
  databaseUrl: string;
  /** One connection to each master, for Redis's own figures. */
  nodes: Redis[];
  servicePid: number;
  /** How the service was started, so that another one can be started like it (tracing on). */
  service: { args: string[]; env: Record<string, string>; dir: string };
  /** The LLM the sessions' analyses ask (OPENAI_BASE_URL), in this process: measure-analysis.ts scripts its answer. */
  llm: ChatCompletionsServer;
}

const children: ChildProcess[] = [];
let stopRedis: () => Promise<void> = async () => {};
let dropDatabase: () => Promise<void> = async () => {};
let stopLlm: () => Promise<void> = async () => {};

async function start(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  await waitForOutput(child, ready, { name: command });
  return child;
}

/** The Node.js that runs the service: the bench's own, or BENCH_SERVICE_NODE's, to compare Node versions under one load. */
const SERVICE_NODE = process.env.BENCH_SERVICE_NODE ?? process.execPath;

/**
 * The service writes its logs straight into a file, as into a log collector's pipe: none of it passes
 * through the load generator's event loop. It is ready when /healthz answers.
 */
export async function startService(args: string[], env: Record<string, string>, logFile: string, url: string): Promise<ChildProcess> {
  const log = openSync(logFile, "a");
  const child = spawn(SERVICE_NODE, args, { env: { ...process.env, ...env }, stdio: ["ignore", log, log] });
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

/**
 * A key of an account of its own for the knowledge (measure-knowledge.ts, on a service with PostgreSQL):
 * its documents, a digital human of them and a session of it.
 */
export const KNOWLEDGE = { key: "dhs_bench_knowledge_key", accountId: "acct_bench_knowledge" };

/** The API keys file: every bench account's key with every scope, the capped account's, the quiet one's, the tools' and the knowledge's. */
function writeKeys(file: string): void {
  const scopes = ["sessions:read", "sessions:write", "webhooks:read", "webhooks:write"] as const;
  const keys = accounts.map((account) => apiKeyRecord(account.keyId, account.accountId, account.key, [...scopes]));
  const capped = apiKeyRecord("key_capped", "acct_capped", CAPPED_KEY, ["sessions:write"]);
  const quiet = apiKeyRecord("key_quiet", QUIET.accountId, QUIET.key, ["sessions:read", "sessions:write"]);
  const tools = apiKeyRecord("key_tools", TOOLS.accountId, TOOLS.key, [...scopes, "digital_humans:read", "digital_humans:write"]);
  const knowledge = apiKeyRecord("key_knowledge", KNOWLEDGE.accountId, KNOWLEDGE.key, [
    "knowledge:read",
    "knowledge:write",
    "digital_humans:write",
    "sessions:write",
  ]);
  writeFileSync(
    file,
    JSON.stringify({ keys: [...keys, capped, quiet, tools, knowledge], accounts: [{ id: "acct_capped", max_open_sessions: 1 }] }),
  );
}

/** Redis, the LiveKit stand-in, bare Express and the built service (production settings), each a process. */
export async function startStack(): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), "dhs-bench-"));
  const [livekitPort, serverPort, barePort] = await Promise.all([freePort(), freePort(), freePort()]);
  const keysFile = join(dir, "api-keys.json");
  writeKeys(keysFile);

  const redisServer = CLUSTER ? await startRedisCluster(3) : await startRedis();
  const llm = await new ChatCompletionsServer().start();
  stopLlm = () => llm.stop();
  stopRedis = () => redisServer.stop();
  const database = await createDatabase({ prefix: "dhs_bench" });
  dropDatabase = () => database.drop();
  // The schema as an operator makes it.
  execFileSync("pnpm", ["--filter", "@dhs/server", "migrate"], {
    cwd: here("../.."),
    env: { ...process.env, DATABASE_URL: database.url },
    stdio: ["ignore", "ignore", "inherit"],
  });
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
    DATABASE_URL: database.url,
    LIVEKIT_URL: `ws://127.0.0.1:${livekitPort}`,
    LIVEKIT_API_KEY: LIVEKIT.key,
    LIVEKIT_API_SECRET: LIVEKIT.secret,
    API_KEYS_FILE: keysFile,
    RATE_LIMIT_ENABLED: "true",
    RATE_LIMIT_PER_SECOND: "1000000",
    RATE_LIMIT_BURST: "1000000",
    LOG_LEVEL: "info",
    OPENAI_BASE_URL: llm.baseUrl,
  };
  const service = await startService(serviceArgs, serviceEnv, join(dir, "service.log"), serverUrl);
  const { redis, nodes } = await connectBench(redisServer.url);
  return {
    serverUrl,
    bareUrl: `http://127.0.0.1:${barePort}`,
    livekitUrl: `http://127.0.0.1:${livekitPort}`,
    redis,
    databaseUrl: database.url,
    nodes,
    servicePid: service.pid as number,
    service: { args: serviceArgs, env: serviceEnv, dir },
    llm,
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

/** The bench's connections closed (the stack's processes still run). */
export async function disconnect(stack: Stack): Promise<void> {
  await Promise.all([stack.redis, ...stack.nodes].map((connection) => connection.quit().catch(() => undefined)));
}

/** Every process the run started, ended; SIGTERM lets the service exit cleanly, which is when --cpu-prof writes its profile. */
export async function stopStack(): Promise<void> {
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
  await dropDatabase();
  await stopLlm();
}
