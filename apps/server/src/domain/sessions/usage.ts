/**
 * Usage counters (contract guide, "Accounts", Usage): per account and UTC day, what a change of a session
 * adds. Pure: the store applies the increments in the same atomic step as the change, so the counters
 * can never disagree with the sessions.
 */
import type { Usage, UsageCounts } from "@dhs/contract";
import { type SessionRecord, TERMINAL } from "./session.js";
import { activeSeconds } from "./session-events.js";

/**
 * Counter fields: `created`, `created_by:<digital human id>`, `ended:<status>`, `reason:<end reason>`,
 * `active_seconds`, the transcripts' `transcript_segments` and `transcript_characters`, and the recordings'
 * `recorded_seconds`.
 */
export interface UsageIncrement {
  day: string;
  fields: [field: string, by: number][];
}

export const USAGE_RETENTION_DAYS = 400;
export const MAX_USAGE_DAYS = 92;

export const utcDay = (iso: string): string => iso.slice(0, 10);

/** What a change from `before` (undefined: a new session) to `after` adds to the counters, if anything. */
export function usageOf(before: SessionRecord | undefined, after: SessionRecord): UsageIncrement | undefined {
  if (before === undefined) {
    return {
      day: utcDay(after.created_at),
      fields: [
        ["created", 1],
        [`created_by:${after.digital_human_id}`, 1],
      ],
    };
  }
  if (TERMINAL.has(before.status) || !TERMINAL.has(after.status) || after.ended_at === null) return undefined;
  const fields: [string, number][] = [[`ended:${after.status}`, 1]];
  if (after.end_reason !== null) fields.push([`reason:${after.end_reason}`, 1]);
  const seconds = activeSeconds(after, new Date(after.ended_at));
  if (seconds > 0) fields.push(["active_seconds", seconds]);
  return { day: utcDay(after.ended_at), fields };
}

/** Every UTC day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += 86_400_000) {
    days.push(new Date(at).toISOString().slice(0, 10));
  }
  return days;
}

function emptyCounts(): UsageCounts {
  return {
    sessions_created: 0,
    sessions_created_by_digital_human: {},
    sessions_ended: { completed: 0, cancelled: 0, failed: 0 },
    end_reasons: {},
    active_seconds: 0,
    transcript_segments: 0,
    transcript_characters: 0,
    recorded_seconds: 0,
  };
}

/** The stored counters of one day (field -> count) as the contract shows them. */
export function countsOf(stored: Record<string, string>): UsageCounts {
  const counts = emptyCounts();
  for (const [field, raw] of Object.entries(stored)) {
    const n = Number(raw);
    if (field === "created") counts.sessions_created = n;
    else if (field === "active_seconds") counts.active_seconds = n;
    else if (field === "transcript_segments") counts.transcript_segments = n;
    else if (field === "transcript_characters") counts.transcript_characters = n;
    else if (field === "recorded_seconds") counts.recorded_seconds = n;
    else if (field.startsWith("created_by:")) counts.sessions_created_by_digital_human[field.slice(11)] = n;
    else if (field.startsWith("ended:")) {
      const status = field.slice(6) as keyof UsageCounts["sessions_ended"];
      if (status in counts.sessions_ended) counts.sessions_ended[status] = n;
    } else if (field.startsWith("reason:")) counts.end_reasons[field.slice(7)] = n;
  }
  return counts;
}

export function add(total: UsageCounts, day: UsageCounts): void {
  total.sessions_created += day.sessions_created;
  total.active_seconds += day.active_seconds;
  total.transcript_segments += day.transcript_segments;
  total.transcript_characters += day.transcript_characters;
  total.recorded_seconds += day.recorded_seconds;
  for (const status of ["completed", "cancelled", "failed"] as const) total.sessions_ended[status] += day.sessions_ended[status];
  for (const [reason, n] of Object.entries(day.end_reasons)) total.end_reasons[reason] = (total.end_reasons[reason] ?? 0) + n;
  const byDigitalHuman = total.sessions_created_by_digital_human;
  for (const [id, n] of Object.entries(day.sessions_created_by_digital_human)) byDigitalHuman[id] = (byDigitalHuman[id] ?? 0) + n;
}

export function usageReport(from: string, to: string, stored: Record<string, string>[]): Usage {
  const totals = emptyCounts();
  const days = daysBetween(from, to).map((date, i) => {
    const usage = countsOf(stored[i] ?? {});
    add(totals, usage);
    return { date, usage };
  });
  return { from, to, days, totals };
}
