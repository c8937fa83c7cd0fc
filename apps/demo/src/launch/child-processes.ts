/**
 * The demo's processes: each started with its output in a log file of its own, ready once a line it
 * prints says so, and all stopped together (SIGTERM, then SIGKILL after 5 s). Each runs in
 * a process group of its own, killed whole once it has stopped: the digital human worker's job processes
 * (a session still running when the demo stops) go with it instead of lingering as orphans.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { join } from "node:path";

export interface Started {
  name: string;
  child: ChildProcess;
  log: string;
}

export class ChildProcesses {
  private readonly started: Started[] = [];
  private stopping = false;

  constructor(private readonly logDir: string) {}

  /** Starts a process and resolves once `ready` matches its output; rejects if it exits or takes too long. */
  async start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp, timeoutMs: number): Promise<Started> {
    const log = join(this.logDir, `${name}.log`);
    const file = createWriteStream(log);
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const started = { name, child, log };
    this.started.push(started);
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} was not ready after ${timeoutMs / 1000} s (its log: ${log})`)), timeoutMs);
      const onData = (chunk: Buffer) => {
        file.write(chunk);
        if (output.length < 1_000_000) output += chunk.toString();
        if (ready.test(output)) {
          clearTimeout(timer);
          output = "";
          resolve();
        }
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(new Error(`${name} could not start: ${error.message}`));
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        file.end();
        reject(new Error(`${name} exited (${signal ?? `code ${code}`}) before it was ready; its log: ${log}`));
      });
    });
    return started;
  }

  /** Calls back when any process exits while the others are meant to run. */
  onUnexpectedExit(callback: (started: Started, code: number | null, signal: NodeJS.Signals | null) => void): void {
    for (const started of this.started) {
      started.child.once("exit", (code, signal) => {
        if (!this.stopping) callback(started, code, signal);
      });
    }
  }

  /**
   * All at once, each given 5 s before SIGKILL: stopped one after another, a worker draining its job, the
   * service its connections and LiveKit its rooms could each take their 5 s, and a user waits for the sum.
   */
  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.started.map(({ child }) => stopGroup(child)));
  }
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
  killGroup(child.pid);
}

/** Whatever is left of a process group (its leader gone): nothing, or children its leader did not stop. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is empty.
  }
}
