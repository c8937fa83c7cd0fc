import { describe, expect, it } from "vitest";
import type { FeatureTimerHandlers } from "../domain/sessions/feature-timers.js";
import type { DueTimer } from "../domain/sessions/ports.js";
import { MemoryWebhookStore } from "../store/memory/customer-webhook-store.js";
import { MemorySessionState } from "../store/memory/sessions/state.js";
import { MemoryTimerQueue } from "../store/memory/sessions/timer-queue.js";
import { type FailedTimers, sessionTimers, TimerSweeper } from "./timer-sweeper.js";

const T = 1_800_000_000_000;

function sweeperOver(fire: { machine: DueTimer[]; features: string[] }, failing: ReadonlySet<string>) {
  const queue = new MemoryTimerQueue(new MemorySessionState(() => T, new MemoryWebhookStore(() => T)));
  const feature = (kind: string) => async (_accountId: string, sessionId: string) => {
    if (failing.has(sessionId)) throw new Error(`${kind} of ${sessionId} failed`);
    fire.features.push(`${kind} ${sessionId}`);
  };
  const features: FeatureTimerHandlers = {
    transcript_ready: feature("transcript_ready"),
    conversation: feature("conversation"),
    analysis: feature("analysis"),
    recording: feature("recording"),
  };
  const machine = {
    onTimer: async (due: DueTimer) => {
      if (failing.has(due.sessionId)) throw new Error(`${due.timer} of ${due.sessionId} failed`);
      fire.machine.push(due);
    },
  };
  const reports: FailedTimers[] = [];
  const errors: (string | undefined)[] = [];
  const sweeper = new TimerSweeper(queue, sessionTimers(machine, features), {
    intervalMs: 1000,
    leaseMs: 30_000,
    batch: 2,
    now: () => T,
    onError: (_error, due) => errors.push(due?.sessionId),
    onFailures: (failed) => reports.push(failed),
  });
  return { queue, sweeper, reports, errors };
}

describe("the timer sweeper", () => {
  it("hands each feature's timer to the feature that registered it, and the machine only its own", async () => {
    const fire = { machine: [] as DueTimer[], features: [] as string[] };
    const { queue, sweeper, reports } = sweeperOver(fire, new Set());
    await queue.scheduleTimers("acct_1", "s1", [
      { timer: "analysis", atMs: T - 3 },
      { timer: "join_timeout", atMs: T - 2 },
    ]);
    await queue.scheduleTimers("acct_1", "s2", [
      { timer: "recording", atMs: T - 1 },
      { timer: "transcript_ready", atMs: T + 1 },
    ]);
    expect(await sweeper.sweep()).toBe(3);
    expect(fire.features).toEqual(["analysis s1", "recording s2"]);
    expect(fire.machine.map((due) => `${due.timer} ${due.sessionId}`)).toEqual(["join_timeout s1"]);
    expect(reports).toEqual([]);
    // Done ones are gone; the one not yet due stays.
    expect(await queue.sessionTimers("acct_1", "s1")).toEqual([]);
    expect(await queue.sessionTimers("acct_1", "s2")).toEqual([{ timer: "transcript_ready", atMs: T + 1 }]);
  });

  it("reports the timers of a pass that failed once, with their count by kind and the first one's reason, and keeps them", async () => {
    const failing = new Set(Array.from({ length: 5 }, (_, i) => `down-${i}`));
    const fire = { machine: [] as DueTimer[], features: [] as string[] };
    const { queue, sweeper, reports, errors } = sweeperOver(fire, failing);
    for (const [i, sessionId] of [...failing].entries()) {
      await queue.scheduleTimers("acct_1", sessionId, [{ timer: i % 2 ? "analysis" : "max_duration", atMs: T - 10 + i }]);
    }
    await queue.scheduleTimers("acct_1", "fine", [{ timer: "conversation", atMs: T }]);
    expect(await sweeper.sweep()).toBe(1);
    expect(fire.features).toEqual(["conversation fine"]);
    expect(errors).toEqual([...failing]);
    expect(reports).toEqual([
      { count: 5, byTimer: { max_duration: 3, analysis: 2 }, first: { message: "max_duration of down-0 failed", sessionId: "down-0" } },
    ]);
    // Each is claimed again once its lease runs out, not before.
    expect((await queue.sessionTimers("acct_1", "down-0"))[0]?.atMs).toBe(T + 30_000);
    expect(await sweeper.sweep()).toBe(0);
    expect(reports).toHaveLength(1);
  });

  it("rejects a pass whose claim failed, which the repeating pass reports with no timer", async () => {
    const fire = { machine: [] as DueTimer[], features: [] as string[] };
    const { queue, sweeper } = sweeperOver(fire, new Set());
    queue.claimDueTimers = () => Promise.reject(new Error("the store did not answer"));
    await expect(sweeper.sweep()).rejects.toThrow("the store did not answer");
  });
});
