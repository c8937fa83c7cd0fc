/**
 * Usage counters read across the live store and the history database (docs/storage.md): Redis counts
 * as sessions change; the history writer moves an account's counters of a day to the history in steps
 * (usage-moves: counters -> a pending move, in one step; the history applies it once; the move is
 * forgotten). A read takes the live counters and pending moves in one step at a time T of Redis's clock,
 * then the history's counters, which of those moves it applied, and what was moved after T (which it read
 * as counters): each increment is counted once, wherever it is on its way.
 */
import type { UsageHistory, UsageMoves } from "../domain/sessions/history-ports.js";
import type { UsageCounters } from "../domain/sessions/ports.js";

export class HistoryUsageCounters implements UsageCounters {
  constructor(
    private readonly live: UsageCounters,
    private readonly moves: UsageMoves,
    private readonly history: UsageHistory,
  ) {}

  async usage(accountId: string, days: readonly string[]): Promise<Record<string, string>[]> {
    const { counters, pending, takenAtUs } = await this.moves.snapshot(accountId, days);
    const written = await this.history.usage(
      accountId,
      days,
      pending.map((move) => move.id),
      takenAtUs,
    );
    return days.map((day, i) => {
      const total = new Map<string, number>();
      const add = (counts: Record<string, number | string> | undefined) => {
        for (const [field, n] of Object.entries(counts ?? {})) total.set(field, (total.get(field) ?? 0) + Number(n));
      };
      add(counters[i]);
      add(written.counts[i]);
      // Moved after the snapshot: read as live counters already.
      for (const [field, n] of Object.entries(written.movedAfter[i] ?? {})) total.set(field, (total.get(field) ?? 0) - n);
      for (const move of pending) if (move.day === day && !written.applied.has(move.id)) add(move.counts);
      return Object.fromEntries([...total].filter(([, n]) => n !== 0).map(([field, n]) => [field, String(n)]));
    });
  }

  countUsage: UsageCounters["countUsage"] = (...a) => this.live.countUsage(...a);
}
