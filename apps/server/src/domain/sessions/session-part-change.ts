/**
 * One compare-and-set of a part of a session's record that has a life after the session's own (its
 * analysis, its recording), the only way their services change them: read the session, let `decide` say
 * what the part becomes (undefined: nothing to do), the events that go with it and when the
 * part's timer fires next (or that it is cancelled), and replace the session only if nobody changed it
 * since; read again otherwise.
 */
import type { OutboundEvent } from "../customer-webhooks/ports.js";
import type { SessionRecords, TimerQueue } from "./ports.js";
import { type SessionRecord, TERMINAL } from "./session.js";
import { keptUntilMs } from "./session-deps.js";
import type { Durations } from "./session-machine.js";

export interface SessionPartDeps {
  sessions: Pick<SessionRecords, "readForChange" | "replaceSession"> & Pick<TimerQueue, "scheduleTimers">;
  durations: Durations;
}

/** The parts changed this way; each has a timer of its name. */
export type SessionPart = "analysis" | "recording";

export type PartDecision<V> = { value: V; events?: OutboundEvent[]; atMs?: number | undefined; cancel?: boolean } | undefined;

const MAX_TRIES = 8;

export async function changeSessionPart<P extends SessionPart>(
  deps: SessionPartDeps,
  now: () => Date,
  part: P,
  accountId: string,
  sessionId: string,
  decide: (value: NonNullable<SessionRecord[P]>, record: SessionRecord, now: Date) => PartDecision<NonNullable<SessionRecord[P]>>,
): Promise<void> {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const read = await deps.sessions.readForChange(accountId, sessionId);
    const current = read?.record[part];
    if (!read || !current) return;
    const next = decide(current as NonNullable<SessionRecord[P]>, read.record, now());
    if (!next) return;
    // Only the timer moves: no need to write the session.
    if (next.value === current && next.atMs !== undefined && !next.events?.length) {
      await deps.sessions.scheduleTimers(accountId, sessionId, [{ timer: part, atMs: next.atMs }]);
      return;
    }
    const replaced = await deps.sessions.replaceSession({
      record: { ...read.record, [part]: next.value },
      version: read.version,
      previousStatus: read.record.status,
      events: next.events ?? [],
      usage: undefined,
      expiresAtMs: TERMINAL.has(read.record.status) ? keptUntilMs(read.record, deps.durations) : undefined,
      timers: {
        schedule: next.atMs === undefined ? [] : [{ timer: part, atMs: next.atMs }],
        cancel: next.cancel ? [part] : [],
      },
    });
    if (replaced) return;
  }
  throw new Error(`session ${sessionId}: too many concurrent updates of its ${part}`);
}
