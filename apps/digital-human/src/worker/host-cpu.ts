/**
 * How busy the CPUs this worker runs on are, 0..1, sampled in the background so a job request is
 * answered without waiting. In a container with a CPU quota (cgroup v2 `cpu.max`) it is the container's
 * usage against its quota; otherwise the whole host's, from the kernel's idle counters: a digital human
 * starts and runs on whatever CPU is left, whoever else uses it.
 */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";

const WINDOW = 3;

/** Cumulative CPU time used and available, in the same unit: their deltas give the busy share. */
type Reading = { used: number; capacity: number };

function cgroupQuota(): number | undefined {
  try {
    const [quota, period] = readFileSync("/sys/fs/cgroup/cpu.max", "utf8").trim().split(/\s+/);
    if (quota === undefined || quota === "max") return undefined;
    return Number(quota) / Number(period ?? 100_000);
  } catch {
    return undefined;
  }
}

function readCgroup(cores: number): Reading {
  const usage = /usage_usec (\d+)/.exec(readFileSync("/sys/fs/cgroup/cpu.stat", "utf8"))?.[1];
  return { used: Number(usage) / 1000, capacity: performance.now() * cores };
}

function readHost(): Reading {
  let used = 0;
  let total = 0;
  for (const { times } of cpus()) {
    const all = times.user + times.nice + times.sys + times.irq + times.idle;
    total += all;
    used += all - times.idle;
  }
  return { used, capacity: total };
}

export class HostCpu {
  private readonly read: () => Reading;
  private last: Reading;
  private busy = 0;
  /** The last samples, newest last: `load` is their mean, so one busy second is not a busy machine. */
  private readonly recent: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(read?: () => Reading) {
    const quota = cgroupQuota();
    this.read = read ?? (quota !== undefined ? () => readCgroup(quota) : readHost);
    this.last = this.read();
  }

  /** Samples every `intervalMs`, each sample the busy share since the one before. */
  start(intervalMs = 1000): this {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  sample(): number {
    const now = this.read();
    const capacity = now.capacity - this.last.capacity;
    if (capacity > 0) this.busy = Math.min(1, Math.max(0, (now.used - this.last.used) / capacity));
    this.last = now;
    this.recent.push(this.busy);
    if (this.recent.length > WINDOW) this.recent.shift();
    return this.busy;
  }

  /** The busy share of the CPUs over the last samples (three seconds at one a second), 0..1. */
  get load(): number {
    return this.recent.length === 0 ? 0 : this.recent.reduce((a, b) => a + b, 0) / this.recent.length;
  }
}
