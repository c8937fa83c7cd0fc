/**
 * The bound the reading process sets on its own memory (RLIMIT_DATA, soft and hard) once it has started
 * and holds its job, before it reads a byte of the PDF: what it holds by then, V8's reservations included,
 * plus the budget a PDF may take. Set at start (the shell's `ulimit -d`, as before), the bound had to cover
 * what Node reserves before running anything, and Node 24 reserves about 560 MiB of address space (its
 * CodeRange; Node 20 held 48 MiB), so a fixed figure either stopped every process before it began ("Failed
 * to reserve virtual memory for CodeRange") or meant a different budget on every Node. `--jitless` would
 * have kept the reservation away (50 MiB) but made the 256 MiB bomb take 16 s instead of 3.8 s.
 *
 * util-linux's `prlimit` sets it (Node has no setrlimit); Debian and its images have it. Fails closed:
 * where the bound cannot be set and read back (no /proc, no prlimit), the reading is refused.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const MIB = 1024 * 1024;

/** True when this process's data segment is now bounded at what it holds plus `budgetMb`. */
export function boundOwnMemory(budgetMb: number): boolean {
  const holdingKb = ownStatusKb("VmData");
  if (holdingKb === undefined) return false;
  const bytes = holdingKb * 1024 + budgetMb * MIB;
  try {
    execFileSync("prlimit", ["--pid", String(process.pid), `--data=${bytes}:${bytes}`], { stdio: "ignore", timeout: 5_000 });
  } catch {
    return false;
  }
  // Read back rather than trusted: a prlimit that answered 0 without setting it must not leave it open.
  return procField("/proc/self/limits", /^Max data size\s+(\d+)\s+(\d+)\s+bytes/m) === bytes;
}

/** A figure of this process's /proc/self/status, in kB; undefined where there is none (or no /proc). */
export function ownStatusKb(field: "VmData" | "VmHWM"): number | undefined {
  return procField("/proc/self/status", new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
}

function procField(path: string, pattern: RegExp): number | undefined {
  try {
    const value = Number(pattern.exec(readFileSync(path, "utf8"))?.[1]);
    return Number.isFinite(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}
