/** Usage counters in memory (UsageCounters): each account's counters per UTC day, as long as the process lives. */
import type { UsageCounters } from "../../../domain/sessions/ports.js";
import type { UsageIncrement } from "../../../domain/sessions/usage.js";
import type { MemorySessionState } from "./state.js";

export class MemoryUsageCounters implements UsageCounters {
  constructor(private readonly state: MemorySessionState) {}

  async countUsage(accountId: string, increment: UsageIncrement): Promise<void> {
    this.state.count(this.state.account(accountId), increment);
  }

  async usage(accountId: string, days: readonly string[]): Promise<Record<string, string>[]> {
    const { usage } = this.state.account(accountId);
    return days.map((day) => Object.fromEntries([...(usage.get(day) ?? [])].map(([field, n]) => [field, String(n)])));
  }
}
