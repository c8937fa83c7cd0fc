/**
 * A redis-server of the test's own, on a free loopback port, keeping nothing on disk unless asked
 * (appendonly for outage tests), so tests own their data and can stop and restart it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";
import { waitForOutput } from "./wait-for-output.js";

export interface RedisServer {
  port: number;
  url: string;
  /** Ends it for good and removes its data. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash: the data on disk (appendonly) stays for start(). */
  kill(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /** SIGSTOP: the port stays open and nothing answers, as with a stalled or overloaded server. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

export async function startRedis(options: { appendonly?: boolean; port?: number } = {}): Promise<RedisServer> {
  const bin = process.env.REDIS_SERVER_BIN ?? "redis-server";
  const dir = mkdtempSync(join(tmpdir(), "dhs-redis-"));
  const port = options.port ?? (await freePort());
  let child: ChildProcess | undefined;

  const launch = async () => {
    // appendfsync always: a write that was acknowledged survives the SIGKILL of an outage test.
    const persistence = options.appendonly ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"];
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir, ...persistence];
    child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
    await waitForOutput(child, /Ready to accept connections/, {
      name: `${bin} (install redis-server or set REDIS_SERVER_BIN)`,
      timeoutMs: 20_000,
    });
  };

  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
    kill,
    start: launch,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
  };
}
