import { describe, expect, it } from "vitest";
import type { UsageHistory, UsageMove, UsageMoves } from "../domain/sessions/history-ports.js";
import type { UsageCounters } from "../domain/sessions/ports.js";
import { HistoryUsageCounters } from "./history-usage-counters.js";

const DAY = "2026-11-27";

/**
 * Redis's counters and pending moves (and its clock) and the history's counters and applied moves, in
 * memory, moved in the writer's three steps; `during` runs between the reader's two reads.
 */
function stores() {
  const state = {
    clock: 1000,
    counters: { created: 3 } as Record<string, number>,
    pending: [] as UsageMove[],
    written: {} as Record<string, number>,
    applied: [] as UsageMove[],
  };
  let during: () => void = () => undefined;
  const moves: UsageMoves = {
    beginMoves: async () => [],
    endMoves: async () => undefined,
    snapshot: async () => {
      const snapshot = {
        counters: [Object.fromEntries(Object.entries(state.counters).map(([k, v]) => [k, String(v)]))],
        pending: state.pending.map((m) => ({ ...m })),
        takenAtUs: state.clock++,
      };
      during();
      return snapshot;
    },
  };
  const history = {
    usage: async (_a: string, _d: readonly string[], ids: readonly string[], afterUs: number) => {
      const movedAfter: Record<string, number> = {};
      for (const move of state.applied.filter((m) => m.movedAtUs > afterUs)) {
        for (const [f, n] of Object.entries(move.counts)) movedAfter[f] = (movedAfter[f] ?? 0) + n;
      }
      return {
        counts: [{ ...state.written }],
        applied: new Set(ids.filter((id) => state.applied.some((m) => m.id === id))),
        movedAfter: [movedAfter],
      };
    },
  } as unknown as UsageHistory;
  const steps = {
    begin: () => {
      state.pending.push({ id: "m1", accountId: "a", day: DAY, movedAtUs: state.clock++, counts: { ...state.counters } });
      state.counters = {};
    },
    apply: () => {
      for (const move of state.pending) {
        if (state.applied.some((m) => m.id === move.id)) continue;
        state.applied.push(move);
        for (const [f, n] of Object.entries(move.counts)) state.written[f] = (state.written[f] ?? 0) + n;
      }
    },
    end: () => {
      state.pending = [];
    },
  };
  const counters = new HistoryUsageCounters({} as UsageCounters, moves, history);
  return { counters, steps, setDuring: (f: () => void) => (during = f) };
}

describe("HistoryUsageCounters", () => {
  type Step = "begin" | "apply" | "end";
  const cases: [string, Step[], Step[]][] = [
    ["before the move", [], []],
    ["the move begun before the read", ["begin"], []],
    ["the move applied between the two reads", ["begin"], ["apply"]],
    ["the move begun between the two reads, not yet applied", [], ["begin"]],
    ["the move begun and applied between the two reads", [], ["begin", "apply"]],
    ["the move begun, applied and ended between the two reads", [], ["begin", "apply", "end"]],
    ["the move applied, not yet ended", ["begin", "apply"], []],
    ["the move over", ["begin", "apply", "end"], []],
  ];
  it.each(cases)("counts each increment once: %s", async (_name, before, between) => {
    const { counters, steps, setDuring } = stores();
    for (const step of before) steps[step]();
    setDuring(() => {
      for (const step of between) steps[step]();
    });
    expect(await counters.usage("a", [DAY])).toEqual([{ created: "3" }]);
  });
});
