/**
 * The built server (dist/main.js) as its own process, the way an operator runs it: tests that kill it,
 * run two of it, or drain it on SIGTERM start it here. Its output is kept for assertions.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { logSink } from "./log-sink.js";

const MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  /** The "listening" log line (url, store, ...); rejects if the process exits first. */
  listening: Promise<{ url: string; [field: string]: unknown }>;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  output(): { stdout: string; stderr: string };
}

const running = new Set<ChildProcess>();

/** Starts dist/main.js on a free loopback port with only PATH and env in its environment. */
export function startServerProcess(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, [MAIN], {
    // Load tests leave thousands of sessions open; a test of the cap sets its own.
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", METRICS_PORT: "0", ACCOUNT_MAX_OPEN_SESSIONS: "100000", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let stdout = "";
  let stderr = "";
  const sink = logSink("process");
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
    sink.write(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
    sink.write(chunk);
  });
  // "close", not "exit": it comes once the pipes are drained, so output() then holds every line.
  const exited = once(child, "close") as Promise<[number | null, NodeJS.Signals | null]>;
  void exited.then(() => {
    running.delete(child);
    sink.end();
  });
  const listening = new Promise<{ url: string }>((resolve, reject) => {
    child.stdout?.on("data", () => {
      const line = stdout.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line) resolve(JSON.parse(line) as { url: string });
    });
    void exited.then(() => reject(new Error(`exited before listening: ${stderr || stdout}`)));
  });
  // A test that expects the process to fail never awaits `listening`; keep its rejection handled.
  listening.catch(() => undefined);
  return { child, exited, listening, output: () => ({ stdout, stderr }) };
}

/** SIGKILLs every server process a test left running (for afterEach/afterAll). */
export function killServerProcesses(): void {
  for (const child of running) if (child.exitCode === null) child.kill("SIGKILL");
  running.clear();
}
