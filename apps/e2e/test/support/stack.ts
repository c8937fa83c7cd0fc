/**
 * The whole system on loopback, each part as its own process: Redis, a real LiveKit server (dev keys,
 * room auto-create off, webhooks to our service), the service on Redis and PostgreSQL, the digital human worker and the
 * demo. Ports are free ones; the output of every process but Redis goes to the stack's own folder,
 * artifacts/e2e-logs/<test file>/ (the file's second stack <test file>-2/, ...), where the tests read it
 * (`Stack.logs`) and whoever debugs a failure finds it after the run: one shared folder let a later file's
 * stack, or a second stack in the same file, overwrite the logs of the one that failed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { liveKitConfigYaml } from "@dhs/demo/livekit-config";
import { HEIGHT, MOUTH_REGION, WIDTH } from "@dhs/digital-human/canvas-face";
import { createDatabase, freePort, startRedis, until, waitForOutput } from "@dhs/testkit";
import { expect, inject } from "vitest";
import type { Region } from "./media-probe.js";

const root = (path: string) => fileURLToPath(new URL(`../../../../${path}`, import.meta.url));
export const ARTIFACTS = root("artifacts/");
export const LOGS = join(ARTIFACTS, "e2e-logs/");

export const LIVEKIT_KEY = "devkey";
export const LIVEKIT_SECRET = "secret";
export const DEV_API_KEY = "dhs_dev_insecure_local_key";
/** The embedded development keys' test key (test mode: its own sessions, the test helpers). */
export const DEV_TEST_API_KEY = "dhs_test_dev_insecure_local_key";
export const AVA = { id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f", name: "Ava", agent_name: "ava" };
/** The drawn face's frame and its mouth region (apps/digital-human's canvas-face.ts). */
export const FACE: { size: { width: number; height: number }; mouth: Region } = {
  size: { width: WIDTH, height: HEIGHT },
  mouth: MOUTH_REGION,
};
/** A digital human whose agent no worker serves: its sessions must fail. */
export const GHOST = { id: "9d3c2b1a-0f9e-4d8c-b7a6-5f4e3d2c1b0a", name: "Ghost", agent_name: "ghost-no-worker" };
/** A digital human whose worker is started only when a test says so (startLateWorker). */
export const LATE = { id: "4b2e9c7d-1a3f-4e6b-8d5c-0f1a2b3c4d5e", name: "Late", agent_name: "late-worker" };

// The join timeout leaves a late worker time to boot and register before a session nobody joined ends.
// The digital human's leaves the worker room to refuse a job while the machine is busy (a test's browser
// decoding video beside it) and to take it when the service dispatches it again: 5 s once failed real
// sessions on a loaded CI machine, because the timeout only the ghost test wants came first.
export const TIMEOUTS = { joinS: 20, digitalHumanS: 15, maxDurationS: 300, redispatchS: 2 };

interface Started {
  child: ChildProcess;
  output: () => string;
}

async function start(
  logs: string,
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<Started> {
  const log = createWriteStream(join(logs, `${name}.log`));
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => log.write(chunk));
  child.stderr?.on("data", (chunk: Buffer) => log.write(chunk));
  child.once("exit", () => log.end());
  return { child, output: await waitForOutput(child, ready, { name, timeoutMs }) };
}

export interface Stack {
  apiUrl: string;
  demoUrl: string;
  livekitUrl: string;
  livekitApiUrl: string;
  /** The digital human worker's process id (its jobs run in processes it starts). */
  workerPid: number;
  /** The digital human worker's GET /metrics (worker-metrics.ts); empty without a worker. */
  workerMetricsUrl: string;
  /** This stack's log folder (with a trailing slash): `api.log`, `digital-human.log`, `livekit.log`, `demo.log`. */
  logs: string;
  /**
   * Resolves once the worker runs no job: a job still leaving a session that ended keeps the worker busy,
   * and a busy worker on a loaded machine refuses the next job (its admission's CPU rule).
   */
  untilWorkerIdle(timeoutMs?: number): Promise<void>;
  /** Starts a worker for LATE's agent name; resolves once it is registered with LiveKit. */
  startLateWorker(): Promise<void>;
  stop(): Promise<void>;
}

/** LiveKit's configuration, as `pnpm demo` writes it, with a UDP range of its own so runs never collide. */
function writeLiveKitConfig(file: string, ports: { livekit: number; rtcTcp: number }, apiUrl: string): void {
  const udpStart = 40_000 + Math.floor(Math.random() * 400) * 50;
  writeFileSync(
    file,
    liveKitConfigYaml({
      port: ports.livekit,
      rtcTcpPort: ports.rtcTcp,
      udp: { start: udpStart, end: udpStart + 49 },
      keys: { [LIVEKIT_KEY]: LIVEKIT_SECRET },
      webhookApiKey: LIVEKIT_KEY,
      webhookUrl: `${apiUrl}/livekit/webhook`,
    }),
  );
}

/** A digital human worker serving the catalog's agent names, once `ready` shows in its output. */
async function startWorker(
  logs: string,
  name: string,
  catalogFile: string,
  livekitEnv: Record<string, string>,
  apiUrl: string,
  ready: RegExp,
  extraEnv: Record<string, string> = {},
): Promise<Started & { metricsUrl: string }> {
  const [agentHttpPort, metricsPort] = [await freePort(), await freePort()];
  const started = await start(
    logs,
    name,
    process.execPath,
    [root("apps/digital-human/dist/worker.js")],
    {
      ...livekitEnv,
      DHS_API_URL: apiUrl,
      DIGITAL_HUMANS_FILE: catalogFile,
      AGENT_HTTP_PORT: String(agentHttpPort),
      AGENT_METRICS_PORT: String(metricsPort),
      LOG_LEVEL: "debug",
      ...extraEnv,
    },
    ready,
    120_000,
  );
  return { ...started, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}

async function stopAll(processes: Started[]): Promise<void> {
  for (const p of [...processes].reverse()) {
    if (p.child.exitCode !== null) continue;
    const exited = new Promise((resolve) => p.child.once("exit", resolve));
    p.child.kill("SIGTERM");
    const timer = setTimeout(() => p.child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * Starts the stack. `parts: "api"` leaves out the digital human worker and the demo, for tests of the API
 * alone (sessions are created, no agent joins them; workerPid is then 0). `workerEnv` is added to the
 * digital human worker's environment (its LLM: OPENAI_BASE_URL and the like), `serviceEnv` to the
 * service's (a DATABASE_URL); `catalog`'s voices and hearing languages are both their catalogs'.
 */
export async function startStack(
  livekitServer: string,
  timeouts: typeof TIMEOUTS = TIMEOUTS,
  parts: "all" | "api" = "all",
  workerEnv: Record<string, string> = {},
  serviceEnv: Record<string, string> = {},
  catalog: { voices?: object[]; hearing_languages?: string[] } = {},
): Promise<Stack> {
  const logs = logsOfANewStack();
  const dir = mkdtempSync(join(tmpdir(), "dhs-e2e-"));
  const [livekitPort, rtcTcpPort, apiPort, demoPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const livekitUrl = `ws://127.0.0.1:${livekitPort}`;
  const livekitEnv = { LIVEKIT_URL: livekitUrl, LIVEKIT_API_KEY: LIVEKIT_KEY, LIVEKIT_API_SECRET: LIVEKIT_SECRET };
  const catalogOf = (name: string, entries: object[]) => {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ digital_humans: entries, ...catalog }));
    return file;
  };
  const processes: Started[] = [];
  let workerMetricsUrl = "";
  const redis = await startRedis();
  // Production's stores: Redis and a PostgreSQL database of the stack's own, unless the test gives one.
  const database = serviceEnv.DATABASE_URL ? undefined : await createDatabase({ template: inject("databaseTemplate"), prefix: "dhs_e2e" });

  try {
    const livekitConfig = join(dir, "livekit.yaml");
    writeLiveKitConfig(livekitConfig, { livekit: livekitPort, rtcTcp: rtcTcpPort }, apiUrl);
    processes.push(await start(logs, "livekit", livekitServer, ["--config", livekitConfig], {}, /starting LiveKit server/));
    processes.push(
      await start(
        logs,
        "api",
        process.execPath,
        [root("apps/server/dist/main.js")],
        {
          ...livekitEnv,
          HOST: "127.0.0.1",
          PORT: String(apiPort),
          METRICS_PORT: "0",
          REDIS_URL: redis.url,
          ...(database ? { DATABASE_URL: database.url } : {}),
          DIGITAL_HUMANS_FILE: catalogOf("digital-humans", [AVA, GHOST, LATE]),
          SESSION_JOIN_TIMEOUT_S: String(timeouts.joinS),
          DIGITAL_HUMAN_JOIN_TIMEOUT_S: String(timeouts.digitalHumanS),
          SESSION_MAX_DURATION_S: String(timeouts.maxDurationS),
          DIGITAL_HUMAN_REDISPATCH_S: String(timeouts.redispatchS),
          SWEEP_INTERVAL_MS: "200",
          VALIDATE_RESPONSES: "true",
          // The test's webhook receiver listens on loopback.
          WEBHOOK_ALLOW_PRIVATE_URLS: "true",
          ACCOUNT_MAX_OPEN_SESSIONS: "1000",
          ...serviceEnv,
        },
        /"msg":"listening"/,
      ),
    );
    if (parts === "all") {
      // Ready once registered with LiveKit and a job process is warm, so the first dispatch is taken.
      const warm = /registered worker[\s\S]*job runner initialized|job runner initialized[\s\S]*registered worker/;
      const worker = await startWorker(
        logs,
        "digital-human",
        catalogOf("worker-digital-humans", [AVA]),
        livekitEnv,
        apiUrl,
        warm,
        workerEnv,
      );
      processes.push(worker);
      workerMetricsUrl = worker.metricsUrl;
      processes.push(
        await start(
          logs,
          "demo",
          process.execPath,
          [root("apps/demo/dist/server.js")],
          { DHS_URL: apiUrl, DHS_API_KEY: DEV_API_KEY, PORT: String(demoPort), HOST: "127.0.0.1" },
          /demo listening/,
        ),
      );
    }
  } catch (error) {
    for (const p of processes.reverse()) p.child.kill("SIGKILL");
    await redis.stop();
    await database?.drop();
    throw error;
  }

  return {
    apiUrl,
    workerPid: processes.find((p) => p.child.spawnargs.some((arg) => arg.endsWith("worker.js")))?.child.pid ?? 0,
    workerMetricsUrl,
    untilWorkerIdle: (timeoutMs = 30_000) =>
      until(async () => (/^dhs_worker_jobs 0$/m.test(await (await fetch(workerMetricsUrl)).text()) ? true : undefined), {
        what: "the digital human worker to run no job",
        timeoutMs,
      }).then(() => undefined),
    startLateWorker: async () => {
      processes.push(
        await startWorker(logs, "digital-human-late", catalogOf("late-digital-humans", [LATE]), livekitEnv, apiUrl, /registered worker/),
      );
    },
    demoUrl: `http://127.0.0.1:${demoPort}`,
    livekitUrl,
    livekitApiUrl: `http://127.0.0.1:${livekitPort}`,
    logs,
    stop: async () => {
      await stopAll(processes);
      await redis.stop();
      await database?.drop();
    },
  };
}

/** Stacks started by this test file so far (each file imports this module afresh). */
let stacksOfThisFile = 0;

/** A new, empty folder for a stack's logs, named after its test file (and its rank in it, from the second). */
function logsOfANewStack(): string {
  stacksOfThisFile += 1;
  const file = basename(expect.getState().testPath ?? "unknown").replace(/\.e2e\.test\.ts$/, "");
  const logs = join(LOGS, stacksOfThisFile === 1 ? file : `${file}-${stacksOfThisFile}`, "/");
  rmSync(logs, { recursive: true, force: true });
  mkdirSync(logs, { recursive: true });
  return logs;
}
