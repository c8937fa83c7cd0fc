/**
 * One compare-and-set of a session's analysis, the only way the analysis service changes it: read the
 * session, let `decide` say what its analysis becomes (undefined: nothing to do), the events that go with
 * it and when the `analysis` timer fires next (or that it is cancelled), and replace the session only if
 * nobody changed it since; read again otherwise.
 */
import type { OutboundEvent } from "../customer-webhooks/ports.js";
import type { SessionRecords, TimerQueue } from "../sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../sessions/session.js";
import { keptUntilMs } from "../sessions/session-deps.js";
import type { Durations } from "../sessions/session-machine.js";
import type { StoredAnalysis } from "./stored-analysis.js";

export interface AnalysisChangeDeps {
  sessions: Pick<SessionRecords, "readForChange" | "replaceSession"> & Pick<TimerQueue, "scheduleTimers">;
  durations: Durations;
}

export type AnalysisDecision =
  | { analysis: StoredAnalysis; events?: OutboundEvent[]; atMs?: number | undefined; cancel?: boolean }
  | undefined;

const MAX_TRIES = 8;

export async function changeAnalysis(
  deps: AnalysisChangeDeps,
  now: () => Date,
  accountId: string,
  sessionId: string,
  decide: (analysis: StoredAnalysis, record: SessionRecord, now: Date) => AnalysisDecision,
): Promise<void> {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const read = await deps.sessions.readForChange(accountId, sessionId);
    if (!read?.record.analysis) return;
    const next = decide(read.record.analysis, read.record, now());
    if (!next) return;
    // Only the timer moves: no need to write the session.
    if (next.analysis === read.record.analysis && next.atMs !== undefined) {
      await deps.sessions.scheduleTimers(accountId, sessionId, [{ timer: "analysis", atMs: next.atMs }]);
      return;
    }
    const replaced = await deps.sessions.replaceSession({
      record: { ...read.record, analysis: next.analysis },
      version: read.version,
      previousStatus: read.record.status,
      events: next.events ?? [],
      usage: undefined,
      expiresAtMs: TERMINAL.has(read.record.status) ? keptUntilMs(read.record, deps.durations) : undefined,
      timers: {
        schedule: next.atMs === undefined ? [] : [{ timer: "analysis", atMs: next.atMs }],
        cancel: next.cancel ? ["analysis"] : [],
      },
    });
    if (replaced) return;
  }
  throw new Error(`session ${sessionId}: too many concurrent updates of its analysis`);
}
