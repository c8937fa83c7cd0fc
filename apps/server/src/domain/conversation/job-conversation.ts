/**
 * The digital human's side of its session's conversation (tag *Digital human workers*): it pulls what
 * the backend queued and reports what happened, authenticated by its token for the session's room (the
 * HTTP layer checks it), never by an API key.
 */
import type {
  ConversationItem,
  ConversationPullRequest,
  ConversationQueue,
  ConversationReported,
  ConversationReports,
} from "@dhs/contract";
import { AppError } from "../app-error.js";
import type { SessionRecords } from "../sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../sessions/session.js";
import { EMPTY_CONVERSATION, fields, type StoredContext } from "./conversation.js";
import { type ConversationChanges, sessionEnded } from "./conversation-changes.js";
import { pull, redeliveredNote } from "./conversation-delivery.js";
import { applyReports, checkReports, reportFields } from "./conversation-reports.js";
import type { ConversationStore } from "./ports.js";

export class JobConversation {
  constructor(
    private readonly deps: { sessions: Pick<SessionRecords, "findSession">; store: ConversationStore },
    private readonly changes: ConversationChanges,
  ) {}

  /** POST /v1/sessions/{id}/conversation/pull, from the session's digital human (its token checked). */
  async pull(sessionId: string, body: ConversationPullRequest): Promise<ConversationQueue> {
    const session = await this.tokenSession(sessionId);
    const nowMs = this.changes.now().getTime();
    const outcome = await this.changes.change(session, [], (read) => {
      const pulled = pull(session.id, read.state ?? EMPTY_CONVERSATION, body.after, body.participant_identity, nowMs);
      const result = { pulled, interruptSeq: pulled.state.interruptSeq, turnEvents: read.takesTurnEvents };
      return pulled.changed ? { result, change: pulled } : { result };
    });
    const { deliver, redeliver } = outcome.pulled;
    const notes =
      redeliver.length === 0
        ? []
        : await this.deps.store.readConversationFields(
            session.id,
            redeliver.map((note) => fields.item(note.id)),
          );
    const again = notes.flatMap((json) => (json ? [redeliveredNote(JSON.parse(json) as StoredContext)] : []));
    const items: ConversationItem[] = [...again, ...deliver].sort((a, b) => a.seq - b.seq);
    return { items, interrupt_seq: outcome.interruptSeq, turn_events: outcome.turnEvents };
  }

  /** POST /v1/sessions/{id}/conversation/reports, from the session's digital human. */
  async report(sessionId: string, body: ConversationReports): Promise<ConversationReported> {
    checkReports(body.reports);
    const session = await this.tokenSession(sessionId);
    const nowMs = this.changes.now().getTime();
    const lookups = reportFields(body.reports);
    const accepted = await this.changes.change(session, lookups, (read) => {
      const values = new Map(lookups.map((name, i) => [name, read.fields[i] ?? null]));
      const applied = applyReports(
        session.id,
        read.state ?? EMPTY_CONVERSATION,
        body.reports,
        body.participant_identity,
        { field: (name) => values.get(name) ?? null },
        nowMs,
      );
      const writes = applied.items.length > 0 || Object.keys(applied.marks).length > 0;
      return writes ? { result: applied.accepted, change: applied, marks: applied.marks } : { result: applied.accepted };
    });
    return { results: accepted.map((ok) => ({ accepted: ok })) };
  }

  /**
   * The session the token is for, while it is open: nothing of a terminal session's conversation is handed
   * or started, and what its job reports after the end is refused (`409 session_ended`; the end settled
   * what was said). One Redis forgot is read from the history, and its conversation is not made again.
   */
  private async tokenSession(sessionId: string): Promise<SessionRecord> {
    const session = await this.deps.sessions.findSession(sessionId);
    if (!session) throw new AppError("not_found", `No session ${sessionId}.`);
    if (TERMINAL.has(session.status)) throw sessionEnded(session);
    return session;
  }
}
