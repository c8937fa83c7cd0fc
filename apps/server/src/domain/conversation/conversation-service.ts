/**
 * Driving a session (contract guide, "Driving a session"): the backend's say, addSessionContext,
 * interruptSession and getUtterance, the digital human's pull and reports, and the `conversation` timer.
 * Every change is read, decided by the pure rules (conversation-machine.ts, conversation-reports.ts) and
 * written with its items, events and timer in one compare-and-set; then the job is nudged.
 */
import type {
  ContextNote,
  ContextRequest,
  ConversationItem,
  ConversationPullRequest,
  ConversationQueue,
  ConversationReported,
  ConversationReports,
  Interruption,
  SayRequest,
  Utterance,
} from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { modeOfOwner } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import type { SessionRecords } from "../sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../sessions/session.js";
import { keptUntilMs } from "../sessions/session-deps.js";
import { outboundEvent } from "../sessions/session-events.js";
import type { Durations } from "../sessions/session-machine.js";
import { findOwnSession } from "../sessions/session-reader.js";
import {
  awaitsDelivery,
  type ConversationLimits,
  type ConversationState,
  contextView,
  EMPTY_CONVERSATION,
  fields,
  newContextId,
  newUtteranceId,
  nextDueMs,
  RENUDGE_MS,
  type StoredContext,
  type StoredItem,
  type StoredSay,
  utteranceView,
} from "./conversation.js";
import { type Change, expire, interrupt, pull, queueItem, redeliveredNote } from "./conversation-machine.js";
import { applyReports, checkReports, reportFields } from "./conversation-reports.js";
import { checkedText, queueRefusal, replayOf } from "./conversation-requests.js";
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
  /** A nudge LiveKit refused or did not answer (the job's poll or the timer's nudge makes up for it). */
  onNudgeFailed?: (error: unknown) => void;
}

/** What a decision writes: the change, and fields beside it; undefined writes nothing. */
type Decision<T> = { result: T; change?: Change; marks?: Record<string, string>; nudge?: boolean };

export class ConversationService {
  private readonly now: () => Date;

  constructor(private readonly deps: ConversationServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** POST /v1/sessions/{id}/say */
  async say(principal: Principal, sessionId: string, key: string, body: SayRequest): Promise<{ utterance: Utterance; replayed: boolean }> {
    const text = checkedText(body.text);
    const request = { kind: "say" as const, id: newUtteranceId(), text, interrupt: body.interrupt ?? false };
    const { item, replayed, session } = await this.queue(principal, sessionId, key, request);
    return { utterance: utteranceView(session.id, item as StoredSay, TERMINAL.has(session.status)), replayed };
  }

  /** POST /v1/sessions/{id}/context */
  async addContext(
    principal: Principal,
    sessionId: string,
    key: string,
    body: ContextRequest,
  ): Promise<{ note: ContextNote; replayed: boolean }> {
    const text = checkedText(body.text);
    const request = { kind: "context" as const, id: newContextId(), text, respond: body.respond ?? false };
    const { item, replayed, session } = await this.queue(principal, sessionId, key, request);
    return { note: contextView(session.id, item as StoredContext, TERMINAL.has(session.status)), replayed };
  }

  /** GET /v1/sessions/{id}/say/{utterance_id} */
  async getUtterance(principal: Principal, sessionId: string, utteranceId: string): Promise<Utterance> {
    const session = await findOwnSession(this.deps.sessions, principal, sessionId);
    const [json] = await this.deps.store.readConversationFields(session.id, [fields.item(utteranceId)]);
    const item = json ? (JSON.parse(json) as StoredItem) : undefined;
    if (item?.kind !== "say") throw new AppError("not_found", `No utterance ${utteranceId} in session ${sessionId}.`);
    return utteranceView(session.id, item, TERMINAL.has(session.status));
  }

  /** POST /v1/sessions/{id}/interrupt */
  async interrupt(principal: Principal, sessionId: string): Promise<Interruption> {
    const session = await this.openSession(principal, sessionId);
    const nowMs = this.now().getTime();
    const stopped = await this.change(session, [], (read) => {
      const change = interrupt(session.id, read.state ?? EMPTY_CONVERSATION, nowMs);
      return { result: change.stopped, change: { ...change, state: this.nudged(change.state, nowMs) }, nudge: true };
    });
    return { session_id: session.id, interrupted_at: new Date(nowMs).toISOString(), utterance_ids: stopped };
  }

  /** POST /v1/sessions/{id}/conversation/pull, from the session's digital human (its token checked). */
  async pull(sessionId: string, body: ConversationPullRequest): Promise<ConversationQueue> {
    const session = await this.tokenSession(sessionId);
    const nowMs = this.now().getTime();
    const outcome = await this.change(session, [], (read) => {
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
    const nowMs = this.now().getTime();
    const lookups = reportFields(body.reports);
    const accepted = await this.change(session, lookups, (read) => {
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

  /** The test helper's `participant_turn`: the event a recognised turn would send, without media. */
  async testTurn(principal: Principal, sessionId: string, text: string): Promise<void> {
    const session = await this.openSession(principal, sessionId);
    const at = this.now();
    const turn = { type: "participant_turn" as const, id: `test-${newUtteranceId().slice(4)}`, text: checkedText(text) };
    const started = new Date(at.getTime() - 1000).toISOString();
    const report = { ...turn, say: false, started_at: started, ended_at: at.toISOString() };
    await this.report(session.id, { participant_identity: "test-helper", reports: [report] });
  }

  /** The `conversation` timer: expiries, says whose job is gone, a nudge again, the end of the session. */
  async onTimer(accountId: string, sessionId: string): Promise<void> {
    const session = await this.deps.sessions.getSession(accountId, sessionId);
    if (!session) return;
    const nowMs = this.now().getTime();
    const ended = TERMINAL.has(session.status);
    let nudge: ConversationState | undefined;
    await this.change(session, [], (read) => {
      if (!read.state) return { result: undefined };
      const change = expire(session.id, read.state, nowMs, ended);
      nudge = !ended && awaitsDelivery(change.state) && nowMs >= change.state.nudgedAtMs + RENUDGE_MS ? change.state : undefined;
      const state = nudge ? this.nudged(change.state, nowMs) : change.state;
      // Written even when nothing changed: the write sets the timer to the next due time, and a timer left
      // as claimed would be dropped when it completes.
      return { result: undefined, change: { ...change, state } };
    });
    if (nudge?.agent) this.nudge(session, nudge.agent, nudge.seq);
  }

  private async queue(
    principal: Principal,
    sessionId: string,
    key: string,
    request:
      | { kind: "say"; id: string; text: string; interrupt: boolean }
      | { kind: "context"; id: string; text: string; respond: boolean },
  ): Promise<{ item: StoredItem; replayed: boolean; session: SessionRecord }> {
    const session = await findOwnSession(this.deps.sessions, principal, sessionId);
    const keyField = fields.key(key);
    const { fingerprint: print } = replayOf(request, null);
    const nowMs = this.now().getTime();
    const outcome = await this.change<{ replayOf: string } | { queued: Change }>(session, [keyField], (read) => {
      const replay = replayOf(request, read.fields[0] ?? null);
      if (replay.kind === "reused")
        throw new AppError("idempotency_key_reused", "This Idempotency-Key was already used with a different request body.");
      if (replay.kind === "replay") return { result: { replayOf: replay.itemId } };
      if (TERMINAL.has(session.status)) throw ended(session);
      const queued = queueItem(session.id, read.state ?? EMPTY_CONVERSATION, request, nowMs, this.deps.limits);
      if (queued.kind !== "queued") throw queueRefusal(queued);
      const marks = { [keyField]: `${print}|${request.id}` };
      return { result: { queued }, change: { ...queued, state: this.nudged(queued.state, nowMs) }, marks, nudge: true };
    });
    if ("replayOf" in outcome) {
      const [json] = await this.deps.store.readConversationFields(session.id, [fields.item(outcome.replayOf)]);
      if (!json) throw new Error(`session ${session.id}: the Idempotency-Key names item ${outcome.replayOf}, which is gone`);
      return { item: JSON.parse(json) as StoredItem, replayed: true, session };
    }
    return { item: outcome.queued.items[0] as StoredItem, replayed: false, session };
  }

  /**
   * Reads, decides, writes, until the write is the first since the read; then nudges the job if the
   * decision changed its queue (`nudge`). What a decision throws is the answer.
   */
  private async change<T>(session: SessionRecord, lookups: readonly string[], decide: (read: ConversationRead) => Decision<T>): Promise<T> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const read = await this.deps.store.readConversation(session.account_id, session.id, lookups);
      const decision = decide(read);
      if (!decision.change) return decision.result;
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
      });
      if (!written) continue;
      if (events.length > 0) this.deps.onEventsQueued?.(session.id);
      if (decision.nudge && state.agent !== null) this.nudge(session, state.agent, state.seq);
      return decision.result;
    }
    throw new Error(`session ${session.id}: too many concurrent changes of its conversation`);
  }

  private nudged(state: ConversationState, nowMs: number): ConversationState {
    return state.agent === null ? state : { ...state, nudgedAtMs: nowMs };
  }

  private nudge(session: SessionRecord, identity: string, seq: number): void {
    this.deps.nudger?.nudge(session.room_name, identity, seq).catch((error: unknown) => this.deps.onNudgeFailed?.(error));
  }

  private async openSession(principal: Principal, sessionId: string): Promise<SessionRecord> {
    const session = await findOwnSession(this.deps.sessions, principal, sessionId);
    if (TERMINAL.has(session.status)) throw ended(session);
    return session;
  }

  private async tokenSession(sessionId: string): Promise<SessionRecord> {
    const session = await this.deps.sessions.findSession(sessionId);
    if (!session) throw new AppError("not_found", `No session ${sessionId}.`);
    return session;
  }
}

function ended(session: SessionRecord): AppError {
  return new AppError("session_ended", `Session ${session.id} is ${session.status}; nobody is left to hear it.`);
}
