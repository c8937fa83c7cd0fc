import { EventEmitter } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { exitOnUncaughtErrors, type FaultPolicy } from "./process-faults.js";

function policy(stop: () => Promise<void>): FaultPolicy & { said: string[] } {
  const said: string[] = [];
  return {
    said,
    log: (error, origin) => said.push(`log ${origin}: ${(error as Error).message}`),
    count: (origin) => said.push(`count ${origin}`),
    stop: () => {
      said.push("stop");
      return stop();
    },
    exit: (code) => said.push(`exit ${code}`),
    graceMs: 1_000,
  };
}

describe("an error nobody handled", () => {
  it("is logged and counted, then the process stops in order and exits 1", async () => {
    const process = new EventEmitter();
    let stopped!: () => void;
    const p = policy(() => new Promise((resolve) => (stopped = resolve)));
    exitOnUncaughtErrors(process as never, p);
    process.emit("uncaughtException", new Error("ENOENT from a stream"), "uncaughtException");
    expect(p.said).toEqual(["log uncaughtException: ENOENT from a stream", "count uncaughtException", "stop"]);
    stopped();
    await new Promise((resolve) => setImmediate(resolve));
    expect(p.said.at(-1)).toBe("exit 1");
  });

  it("while it stops, or a stop that fails or overruns its grace, ends the process at once", async () => {
    vi.useFakeTimers();
    try {
      const hanging = new EventEmitter();
      const stuck = policy(() => new Promise(() => undefined));
      exitOnUncaughtErrors(hanging as never, stuck);
      hanging.emit("uncaughtException", new Error("first"), "uncaughtException");
      hanging.emit("uncaughtException", new Error("second"), "unhandledRejection");
      expect(stuck.said.slice(3)).toEqual(["log unhandledRejection: second", "count unhandledRejection", "exit 1"]);
      const overrun = new EventEmitter();
      const slow = policy(() => new Promise(() => undefined));
      exitOnUncaughtErrors(overrun as never, slow);
      overrun.emit("uncaughtException", new Error("late"), "uncaughtException");
      vi.advanceTimersByTime(999);
      expect(slow.said).not.toContain("exit 1");
      vi.advanceTimersByTime(1);
      expect(slow.said.at(-1)).toBe("exit 1");
    } finally {
      vi.useRealTimers();
    }
    const failing = new EventEmitter();
    const broken = policy(() => Promise.reject(new Error("close failed")));
    exitOnUncaughtErrors(failing as never, broken);
    failing.emit("uncaughtException", new Error("x"), "uncaughtException");
    await new Promise((resolve) => setImmediate(resolve));
    expect(broken.said.at(-1)).toBe("exit 1");
  });
});
