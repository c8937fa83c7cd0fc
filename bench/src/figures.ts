/**
 * What the bench reads beside the load generator's own figures: a process's CPU and RSS from /proc, and
 * Redis's own commands and CPU from every master (INFO commandstats and cpu), per request.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";

export interface RedisFigures {
  commandsPerRequest: number;
  cpuUsPerRequest: number;
  shares: number[];
}

/** Calls of every command so far and CPU used so far (µs), per master. */
export type RedisSnapshot = { calls: number; cpuUs: number }[];

export async function redisSnapshot(nodes: readonly Redis[]): Promise<RedisSnapshot> {
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
export function redisFigures(before: RedisSnapshot, after: RedisSnapshot, requests: number): RedisFigures {
  return perRequest(redisSpent(before, after), requests);
}

/** What each master did between two snapshots, less the snapshots' own INFO calls: windows add up. */
export function redisSpent(before: RedisSnapshot, after: RedisSnapshot): RedisSnapshot {
  // Each snapshot is two INFO commands per node, counted in the later one.
  return after.map((node, i) => ({
    calls: Math.max(0, node.calls - (before[i]?.calls ?? 0) - 2),
    cpuUs: node.cpuUs - (before[i]?.cpuUs ?? 0),
  }));
}

/** Two spans' work, master by master. */
export function addSpent(a: RedisSnapshot, b: RedisSnapshot): RedisSnapshot {
  return b.map((node, i) => ({ calls: node.calls + (a[i]?.calls ?? 0), cpuUs: node.cpuUs + (a[i]?.cpuUs ?? 0) }));
}

/** What Redis spent (redisSpent), per request. */
export function perRequest(spent: RedisSnapshot, requests: number): RedisFigures {
  const total = spent.reduce((sum, node) => sum + node.calls, 0);
  const cpuUs = spent.reduce((sum, node) => sum + node.cpuUs, 0);
  const per = Math.max(requests, 1);
  return {
    commandsPerRequest: Number((total / per).toFixed(1)),
    cpuUsPerRequest: Math.round(cpuUs / per),
    shares: spent.map((node) => (total > 0 ? node.calls / total : 0)),
  };
}

/** Each master's share of the commands, as "34/33/33%" (one master: "100%"). */
export function shares(redis: RedisFigures | undefined): string {
  return redis ? `${redis.shares.map((share) => Math.round(share * 100)).join("/")}%` : "?";
}

const CLOCK_TICKS_PER_S = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** CPU time a process has used so far (user + system), in microseconds, from /proc (Linux clock ticks). */
export function cpuUsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / CLOCK_TICKS_PER_S;
}

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024);
}
