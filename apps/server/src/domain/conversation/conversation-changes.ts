/**
 * How every change of a session's conversation is made: read, decided by a pure rule, written with its
 * items, marks, events and timer in one compare-and-set (again from the read if another writer got there
 * first), then the job nudged if its queue changed. Shared by the backend's side (conversation-service.ts)
 * and the digital human's (job-conversation.ts).
 */
import { modeOfOwner } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import { untilWritten } from "../contention.js";
import type { SessionRecords } from "../sessions/ports.js";
import type { SessionRecord } from "../sessions/session.js";
import { keptUntilMs } from "../sessions/session-deps.js";
import { outboundEvent } from "../sessions/session-events.js";
import type { Durations } from "../sessions/session-machine.js";
import type { StoredToolCall } from "../tools/tool-call.js";
import { type ConversationLimits, type ConversationState, fields, nextDueMs } from "./conversation.js";
import type { Change } from "./conversation-machine.js";
import type { ConversationNudger, ConversationRead, ConversationStore } from "./ports.js";

export interface ConversationServiceDeps {
  sessions: Pick<SessionRecords, "getSession" | "findSession">;
  store: ConversationStore;
  nudger: ConversationNudger | undefined;
  limits: ConversationLimits;
  durations: Durations;
  /** How long a webhook event is kept while its deliveries are pending. */
  eventRetainMs: number;
  now?: () => Date;
  onEventsQueued?: (sessionId: string) => void;
  /** A tool call the timer settled because its runner died (for metrics, as ToolCallService's own). */
  onToolCallSettled?: (call: StoredToolCall) => void;
  /** A nudge LiveKit refused or did not answer (the timer's nudge or the job's poll makes up for it). */
  onNudgeFailed?: (error: unknown) => void;
}

/** What a decision writes: the change, and fields beside it; no change writes nothing. */
export type Decision<T> = { result: T; change?: Change; marks?: Record<string, string>; nudge?: boolean };

export class ConversationChanges {
  readonly now: () => Date;

  constructor(private readonly deps: ConversationServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * Reads, decides, writes, until the write is the first since the read (untilWritten: a lost write waits
   * a random while and is tried again); then nudges the job if the decision changed its queue (`nudge`).
   * What a decision throws is the answer. Unless `whileOpen` is false (the timer's settling of an ended
   * session), a terminal session's conversation takes no change, as the store holds the session at the
   * write (`409 session_ended`): a session that ended after it was read is caught there.
   */
  async change<T>(
    session: SessionRecord,
    lookups: readonly string[],
    decide: (read: ConversationRead) => Decision<T>,
    { whileOpen = true }: { whileOpen?: boolean } = {},
  ): Promise<T> {
    return untilWritten(`Session ${session.id}'s conversation`, async () => {
      const read = await this.deps.store.readConversation(session.account_id, session.id, lookups);
      const decision = decide(read);
      if (!decision.change) return { won: true, value: decision.result };
      const { state, items, events } = decision.change;
      const now = this.now();
      const mode = modeOfOwner(session.account_id);
      const written = await this.deps.store.writeConversation({
        accountId: session.account_id,
        sessionId: session.id,
        version: read.version,
        state,
        fields: { ...Object.fromEntries(items.map((item) => [fields.item(item.id), JSON.stringify(item)])), ...decision.marks },
        events: events.map((event) => outboundEvent(event.type, mode, now, event.data, this.deps.eventRetainMs)),
        expiresAtMs: keptUntilMs(session, this.deps.durations),
        timerAtMs: nextDueMs(state),
        whileOpen,
      });
      // The session ended since it was read: nothing of its conversation is handed, started or queued.
      if (written === "ended") throw sessionEnded(session);
      if (!written) return { won: false };
      if (events.length > 0) this.deps.onEventsQueued?.(session.id);
      if (decision.nudge && state.agent !== null) this.nudge(session, state.agent, state.seq);
      return { won: true, value: decision.result };
    });
  }

  /** The state as it is when its job is nudged now (the timer nudges again a while after). */
  nudged(state: ConversationState, nowMs: number): ConversationState {
    return state.agent === null ? state : { ...state, nudgedAtMs: nowMs };
  }

  nudge(session: SessionRecord, identity: string, seq: number): void {
    this.deps.nudger?.nudge(session.room_name, identity, seq).catch((error: unknown) => this.deps.onNudgeFailed?.(error));
  }
}

export function sessionEnded(session: SessionRecord): AppError {
  return new AppError("session_ended", `Session ${session.id} is ${session.status}; nobody is left to hear it.`);
}
