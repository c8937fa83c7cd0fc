/**
 * Driving a session (contract guide, "Driving a session"): the backend's say, addSessionContext,
 * interruptSession and getUtterance, the test helper's turn, and the `conversation` timer; the digital
 * human's pull and reports are `job` (job-conversation.ts). Every change is read, decided by the pure
 * rules (conversation-machine.ts, conversation-delivery.ts, conversation-reports.ts) and written with its
 * items, events and timer in one compare-and-set, then the job is nudged (conversation-changes.ts).
 */
import type { ContextNote, ContextRequest, Interruption, SayRequest, Utterance } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import { type SessionRecord, TERMINAL } from "../sessions/session.js";
import { findOwnSession } from "../sessions/session-reader.js";
import { lapsedLeases, type StoredToolCall, settleLostCalls, toolCallField } from "../tools/tool-call.js";
import {
  awaitsDelivery,
  type ConversationState,
  contextView,
  EMPTY_CONVERSATION,
  fields,
  newContextId,
  newUtteranceId,
  RENUDGE_MS,
  type StoredContext,
  type StoredItem,
  type StoredSay,
  utteranceView,
} from "./conversation.js";
import { ConversationChanges, type ConversationServiceDeps, sessionEnded } from "./conversation-changes.js";
import { type Change, expire, interrupt, queueItem } from "./conversation-machine.js";
import { checkedText, queueRefusal, replayOf } from "./conversation-requests.js";
import { JobConversation } from "./job-conversation.js";

export type { ConversationServiceDeps };

export class ConversationService {
  /** The digital human's side: its pull and its reports. */
  readonly job: JobConversation;
  private readonly changes: ConversationChanges;
  private readonly now: () => Date;

  constructor(private readonly deps: ConversationServiceDeps) {
    this.changes = new ConversationChanges(deps);
    this.now = this.changes.now;
    this.job = new JobConversation(deps, this.changes);
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
    const stopped = await this.changes.change(session, [], (read) => {
      const change = interrupt(session.id, read.state ?? EMPTY_CONVERSATION, nowMs);
      return { result: change.stopped, change: { ...change, state: this.changes.nudged(change.state, nowMs) }, nudge: true };
    });
    return { session_id: session.id, interrupted_at: new Date(nowMs).toISOString(), utterance_ids: stopped };
  }

  /** The test helper's `participant_turn`: the event a recognised turn would send, without media. */
  async testTurn(principal: Principal, sessionId: string, text: string): Promise<void> {
    const session = await this.openSession(principal, sessionId);
    const at = this.now();
    const turn = { type: "participant_turn" as const, id: `test-${newUtteranceId().slice(4)}`, text: checkedText(text) };
    const started = new Date(at.getTime() - 1000).toISOString();
    const report = { ...turn, say: false, started_at: started, ended_at: at.toISOString() };
    await this.job.report(session.id, { participant_identity: "test-helper", reports: [report] });
  }

  /** The `conversation` timer: expiries, says whose job is gone, a nudge again, the end of the session. */
  async onTimer(accountId: string, sessionId: string): Promise<void> {
    const session = await this.deps.sessions.getSession(accountId, sessionId);
    if (!session) return;
    const nowMs = this.now().getTime();
    const ended = TERMINAL.has(session.status);
    let nudge: ConversationState | undefined;
    // The tool calls whose runner is taken for dead are read with the state (a later one waits for the next timer).
    const { state: before } = await this.deps.store.readConversation(session.account_id, session.id, []);
    const lapsed = lapsedLeases(before, nowMs);
    let lost: StoredToolCall[] = [];
    await this.changes.change(
      session,
      lapsed.map(toolCallField),
      (read) => {
        if (!read.state) return { result: undefined };
        const expired = expire(session.id, read.state, nowMs, ended);
        const calls = settleLostCalls(session.id, expired.state, (id) => read.fields[lapsed.indexOf(id)] ?? null, nowMs);
        lost = calls.settled;
        const change = { ...expired, state: calls.state, events: [...expired.events, ...calls.events] };
        nudge = !ended && awaitsDelivery(change.state) && nowMs >= change.state.nudgedAtMs + RENUDGE_MS ? change.state : undefined;
        const state = nudge ? this.changes.nudged(change.state, nowMs) : change.state;
        // Written even when nothing changed: the write sets the timer to the next due time, and a timer left
        // as claimed would be dropped when it completes.
        return { result: undefined, change: { ...change, state }, marks: calls.marks };
      },
      { whileOpen: false },
    );
    if (nudge?.agent) this.changes.nudge(session, nudge.agent, nudge.seq);
    for (const call of lost) this.deps.onToolCallSettled?.(call);
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
    const outcome = await this.changes.change<{ replayOf: string } | { queued: Change }>(session, [keyField], (read) => {
      const replay = replayOf(request, read.fields[0] ?? null);
      if (replay.kind === "reused")
        throw new AppError("idempotency_key_reused", "This Idempotency-Key was already used with a different request body.");
      if (replay.kind === "replay") return { result: { replayOf: replay.itemId } };
      if (TERMINAL.has(session.status)) throw sessionEnded(session);
      const queued = queueItem(session.id, read.state ?? EMPTY_CONVERSATION, request, nowMs, this.deps.limits);
      if (queued.kind !== "queued") throw queueRefusal(queued);
      const marks = { [keyField]: `${print}|${request.id}` };
      return { result: { queued }, change: { ...queued, state: this.changes.nudged(queued.state, nowMs) }, marks, nudge: true };
    });
    if ("replayOf" in outcome) {
      const [json] = await this.deps.store.readConversationFields(session.id, [fields.item(outcome.replayOf)]);
      if (!json) throw new Error(`session ${session.id}: the Idempotency-Key names item ${outcome.replayOf}, which is gone`);
      return { item: JSON.parse(json) as StoredItem, replayed: true, session };
    }
    return { item: outcome.queued.items[0] as StoredItem, replayed: false, session };
  }

  private async openSession(principal: Principal, sessionId: string): Promise<SessionRecord> {
    const session = await findOwnSession(this.deps.sessions, principal, sessionId);
    if (TERMINAL.has(session.status)) throw sessionEnded(session);
    return session;
  }
}
