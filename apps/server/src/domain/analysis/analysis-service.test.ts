import type { WebhookPayload } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import { DURATIONS, sessionRecord } from "../../../test/support/session-fixtures.js";
import { AppError } from "../app-error.js";
import type { OutboundEvent } from "../customer-webhooks/ports.js";
import { DependencyUnavailableError } from "../dependency-errors.js";
import type { KeptMemory } from "../memories/ports.js";
import type { ScheduledTimer, SessionChange, SessionVersion } from "../sessions/ports.js";
import type { SessionRecord } from "../sessions/session.js";
import type { StoredSegment } from "../transcripts/transcript.js";
import { AnalysisService, type AnalysisServiceDeps } from "./analysis-service.js";
import { type AnalysisModel, LlmCallError } from "./ports.js";
import { pendingAnalysis, type StoredAnalysis } from "./stored-analysis.js";

const T0 = Date.parse("2026-11-28T10:00:00.000Z");
const LEASE_MS = 60_000;
const ANSWER = JSON.stringify({ summary: "Ada asked for a quote." });
const SEGMENTS: StoredSegment[] = [
  { id: "s1", speaker: "participant", text: "I'm Ada, a quote please.", startedAtMs: T0, endedAtMs: T0 + 900 },
];

/** One session in a store shared by the replicas: compare-and-set by version, its events and timers kept. */
class World {
  clock = T0;
  version = 0;
  record: SessionRecord = {
    ...sessionRecord({ status: "completed", end_reason: "user_ended", ended_at: new Date(T0).toISOString() }),
    transcript_ready_at: new Date(T0).toISOString(),
    analysis: pendingAnalysis({ summary: true, data_schema: null, success_criteria: [] }, null, "Lena") as StoredAnalysis,
  };
  readonly events: OutboundEvent[] = [];
  readonly timers: ScheduledTimer[] = [];

  replica(model: AnalysisModel, maxAttempts = 5, memories?: AnalysisServiceDeps["memories"]): AnalysisService {
    return new AnalysisService({
      ...(memories ? { memories } : {}),
      sessions: {
        getSession: async () => this.record,
        readForChange: async () => ({
          record: this.record,
          version: this.version as unknown as SessionVersion,
          ending: false,
          eventApplied: false,
        }),
        replaceSession: async (change: SessionChange) => {
          if ((change.version as unknown as number) !== this.version) return false;
          this.version++;
          this.record = change.record;
          this.events.push(...change.events);
          this.timers.push(...change.timers.schedule);
          return true;
        },
        scheduleTimers: async (_a, _s, timers) => {
          this.timers.push(...timers);
        },
      },
      transcripts: {
        readSegments: async () => ({ state: { segmentCount: 1, final: true, deletedAtMs: null }, segments: SEGMENTS }),
        readState: async () => ({ segmentCount: 1, final: true, deletedAtMs: null }),
      },
      llm: { model, defaultModel: "analysis-model", timeoutMs: 20_000 },
      durations: DURATIONS,
      eventRetainMs: 86_400_000,
      leaseMs: LEASE_MS,
      maxAttempts,
      retryMs: 10_000,
      maxRunning: 4,
      now: () => new Date(this.clock),
    });
  }

  get shown() {
    return this.events.map((e) => (JSON.parse(e.body) as WebhookPayload).data);
  }
}

/** An LLM whose answers the test gives, one call at a time. */
function heldLlm(): { model: AnalysisModel; calls: number; answer(text: string): void } {
  const pending: ((text: string) => void)[] = [];
  const held = {
    calls: 0,
    model: {
      completeJson: () => {
        held.calls++;
        return new Promise<string>((resolve) => pending.push(resolve));
      },
    },
    answer: (text: string) => pending.shift()?.(text),
  };
  return held;
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("AnalysisService", () => {
  it("leaves an analysis whose replica died mid-attempt to another once the lease ended: one result, one event, whatever the first answers later", async () => {
    const world = new World();
    const first = heldLlm();
    const a = world.replica(first.model);
    await a.onTimer("acct", world.record.id);
    expect(world.record.analysis).toMatchObject({ attempts: 1, lease: { until_ms: T0 + LEASE_MS } });
    expect(world.timers.at(-1)).toEqual({ timer: "analysis", atMs: T0 + LEASE_MS });

    // Another replica's sweeper fires the timer while the lease holds: it waits for the lease's end.
    const second = heldLlm();
    const b = world.replica(second.model);
    await b.onTimer("acct", world.record.id);
    expect(second.calls).toBe(0);

    // Replica a is gone (its LLM call never returns to anyone); at the lease's end b takes over.
    world.clock += LEASE_MS + 1;
    await b.onTimer("acct", world.record.id);
    await flush();
    expect(world.record.analysis?.attempts).toBe(2);
    second.answer(JSON.stringify({ summary: "From b." }));
    await b.idle();
    expect(world.record.analysis).toMatchObject({ status: "complete", summary: "From b." });
    expect(world.record.analysis?.lease).toBeUndefined();

    // a's answer arrives after all: it holds no lease, so it changes nothing.
    first.answer(JSON.stringify({ summary: "From a." }));
    await a.idle();
    expect(world.record.analysis?.summary).toBe("From b.");
    expect(world.shown).toEqual([expect.objectContaining({ status: "complete", summary: "From b." })]);
  });

  it("tries again after growing waits while the LLM fails, then fails llm_unavailable with the last reason, with one event", async () => {
    const world = new World();
    let calls = 0;
    const model: AnalysisModel = {
      completeJson: async () => {
        calls++;
        throw new LlmCallError("failed", true, `503 overloaded (${calls})`, 503);
      },
    };
    const replica = world.replica(model, 3);
    for (let i = 0; i < 3; i++) {
      await replica.onTimer("acct", world.record.id);
      await replica.idle();
      if (i < 2) {
        const next = world.timers.at(-1) as ScheduledTimer;
        expect(next.atMs - world.clock).toBe(10_000 * 3 ** i);
        world.clock = next.atMs;
      }
    }
    expect(calls).toBe(3);
    expect(world.record.analysis).toMatchObject({ status: "failed", error: { code: "llm_unavailable" } });
    expect(world.record.analysis?.error?.message).toMatch(/3 tries.*503 overloaded \(3\)/);
    expect(world.shown).toHaveLength(1);
  });

  it("fails an analysis whose every attempt's replica died, rather than try it forever", async () => {
    const world = new World();
    for (let i = 0; i < 3; i++) {
      await world.replica(heldLlm().model, 2).onTimer("acct", world.record.id);
      world.clock += LEASE_MS + 1;
    }
    await flush();
    expect(world.record.analysis).toMatchObject({ status: "failed", attempts: 3, error: { code: "llm_unavailable" } });
    expect(world.record.analysis?.error?.message).toMatch(/interrupted/);
    expect(world.shown).toHaveLength(1);
  });

  it("settles nothing once erased, and the test helper's way settles whoever holds it", async () => {
    const world = new World();
    const llm = heldLlm();
    const replica = world.replica(llm.model);
    await replica.onTimer("acct", world.record.id);
    const shown = await replica.settle("acct", world.record.id, { status: "complete", summary: "Set.", data: null, success_criteria: [] });
    expect(shown).toMatchObject({ status: "complete", summary: "Set." });
    llm.answer(ANSWER);
    await replica.idle();
    expect(world.record.analysis?.summary).toBe("Set.");
    await replica.erase("acct", world.record.id);
    expect(world.record.analysis).toMatchObject({ status: "deleted" });
    expect(world.record.analysis?.summary).toBeUndefined();
    expect(
      await replica.settle("acct", world.record.id, { status: "failed", error: { code: "llm_refused", message: "-" } }),
    ).toBeUndefined();
    expect(world.shown).toHaveLength(1);
  });
  it("gives its lease and its try back when its replica stops, so another takes the analysis over at once", async () => {
    const world = new World();
    const stopping: AnalysisModel = {
      completeJson: (call) =>
        new Promise((_resolve, reject) => {
          if (call.signal?.aborted) reject(call.signal.reason);
          call.signal?.addEventListener("abort", () => reject(call.signal?.reason), { once: true });
        }),
    };
    const a = world.replica(stopping);
    await a.onTimer("acct", world.record.id);
    expect(world.record.analysis).toMatchObject({ attempts: 1, lease: expect.any(Object) });
    await a.stop();
    expect(world.record.analysis).toMatchObject({ status: "pending", attempts: 0 });
    expect(world.record.analysis?.lease).toBeUndefined();
    expect(world.timers.at(-1)).toEqual({ timer: "analysis", atMs: world.clock });
    const b = world.replica({ completeJson: async () => ANSWER });
    await b.onTimer("acct", world.record.id);
    await b.idle();
    expect(world.record.analysis).toMatchObject({ status: "complete", attempts: 1 });
    expect(world.shown).toHaveLength(1);
  });

  it.each([
    ["while the memory store is down", () => new DependencyUnavailableError("database")],
    ["while too many analyses keep facts about the participant at once", () => new AppError("concurrent_changes", "contended")],
  ])("keeps the participant's facts before it settles, and tries again %s", async (_when, fault) => {
    const world = new World();
    world.record = { ...world.record, analysis: { ...(world.record.analysis as StoredAnalysis), memory: true } };
    const kept: string[][] = [];
    let down = true;
    const base: KeptMemory = { facts: ["Name is Ada"], updatedAtMs: T0, expiresAtMs: T0 + 1, revision: 3, generation: "g" };
    const memories: AnalysisServiceDeps["memories"] = {
      base: async () => base,
      keep: async (_key, given, facts) => {
        if (down) throw fault();
        expect(given).toBe(base);
        // The analysis is still pending while its facts are kept: a replica dying now leaves both to the next try.
        expect(world.record.analysis?.status).toBe("pending");
        kept.push([...facts]);
      },
    };
    const asked: string[] = [];
    const model: AnalysisModel = {
      completeJson: async (call) => {
        asked.push(call.messages.map((m) => m.content).join("\n"));
        return JSON.stringify({ summary: "Ada asked for a quote.", memory_facts: ["Name is Ada", "Wants a quote"] });
      },
    };
    const replica = world.replica(model, 5, memories);
    await replica.onTimer("acct", world.record.id);
    await replica.idle();
    expect(world.record.analysis).toMatchObject({ status: "pending", attempts: 1 });
    expect(asked[0]).toContain("Name is Ada");
    down = false;
    world.clock = (world.timers.at(-1) as ScheduledTimer).atMs;
    await replica.onTimer("acct", world.record.id);
    await replica.idle();
    expect(kept).toEqual([["Name is Ada", "Wants a quote"]]);
    expect(world.record.analysis).toMatchObject({ status: "complete", summary: "Ada asked for a quote." });
    // The facts live in the memory store, never in the session's record or its event.
    expect(JSON.stringify(world.record)).not.toContain("Wants a quote");
    expect(JSON.stringify(world.shown)).not.toContain("Wants a quote");
  });
});
