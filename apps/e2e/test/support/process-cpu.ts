/** CPU time of a process and all its descendants, from /proc (Linux), in milliseconds. */
import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 10; // USER_HZ is 100 on Linux

interface Stat {
  pid: number;
  ppid: number;
  cpuMs: number;
}

function stats(): Stat[] {
  const out: Stat[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const raw = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name may hold spaces; the fields after its closing parenthesis do not.
      const fields = raw.slice(raw.lastIndexOf(")") + 2).split(" ");
      out.push({ pid: Number(entry), ppid: Number(fields[1]), cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** CPU milliseconds used so far by each process of the tree rooted at pid (by pid). */
export function treeCpu(root: number): Map<number, number> {
  const all = stats();
  const tree = new Map<number, number>();
  const visit = (pid: number) => {
    const self = all.find((s) => s.pid === pid);
    if (!self) return;
    tree.set(pid, self.cpuMs);
    for (const child of all.filter((s) => s.ppid === pid)) visit(child.pid);
  };
  visit(root);
  return tree;
}

/** CPU milliseconds the tree used between two readings (processes that ended meanwhile are not counted). */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
  return sum;
}

/** The processes of a tree that used most CPU between two readings, with the start of their command lines. */
export function busiest(before: Map<number, number>, after: Map<number, number>, top = 8): string[] {
  return [...after]
    .map(([pid, ms]) => ({ pid, ms: ms - (before.get(pid) ?? 0) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top)
    .map(({ pid, ms }) => {
      let command = "";
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").slice(-80);
      } catch {
        command = "(exited)";
      }
      return `${pid} ${ms} ms ${command}`;
    });
}
