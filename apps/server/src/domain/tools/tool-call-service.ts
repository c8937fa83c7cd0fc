/**
 * A session's tool calls (contract guide, "Tools"): the digital human's runToolCall, the test helper's
 * callTestTool, and listSessionToolCalls. A call is claimed by its id in the session's conversation
 * (one compare-and-set with the session open), run, and settled with its `session.tool_called` event in
 * another; a claim that finds the id answers what is recorded, waiting while it runs, so no call reaches
 * the customer twice (tool-call.ts says why a dead runner's call ends `failed`).
 */
import { randomBytes } from "node:crypto";
import type { TestToolCall, Tool, ToolCall, ToolCallList, ToolCallRun, WebhookTool } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import { EMPTY_CONVERSATION } from "../conversation/conversation.js";
import { type ConversationChanges, sessionEnded } from "../conversation/conversation-changes.js";
import type { ConversationStore } from "../conversation/ports.js";
import type { WebhookStore } from "../customer-webhooks/ports.js";
import type { SessionRecords } from "../sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../sessions/session.js";
import { findOwnSession } from "../sessions/session-reader.js";
import type { ToolCallHistory, ToolCallSender } from "./ports.js";
import {
  calledEvent,
  fingerprintOf,
  invalid,
  LEASE_MARGIN_MS,
  MAX_RESULT_BYTES,
  MAX_TOOL_CALLS,
  outcomeOf,
  reused,
  type StoredToolCall,
  settle,
  settledAt,
  type ToolOutcome,
  toolCallField,
  toolCallView,
} from "./tool-call.js";
import { listToolCalls } from "./tool-call-list.js";
import { postToolCall, timeoutOf } from "./tool-call-webhook.js";

export interface ToolCallServiceDeps {
  sessions: Pick<SessionRecords, "getSession" | "findSession" | "sessionPersona">;
  store: ConversationStore;
  changes: ConversationChanges;
  endpoints: Pick<WebhookStore, "getEndpoint">;
  sender: ToolCallSender;
  /** The history's calls of ended sessions Redis no longer holds (with the PostgreSQL history). */
  history?: ToolCallHistory | undefined;
  /** Ends the session after its end_session call (SessionService.endByDigitalHuman). */
  endSession: (session: SessionRecord) => Promise<void>;
  /** Each call that ended, for metrics. */
  onSettled?: (call: StoredToolCall) => void;
  /** How often a repeat looks whether the call it found running has ended (ms). */
  pollMs?: number;
}

type Claim = { kind: "claimed"; call: StoredToolCall } | { kind: "found"; call: StoredToolCall };

export class ToolCallService {
  constructor(private readonly deps: ToolCallServiceDeps) {}

  /** POST /v1/sessions/{id}/conversation/tool-calls, from the session's digital human (its token checked). */
  async run(sessionId: string, body: ToolCallRun): Promise<ToolCall> {
    const session = await this.deps.sessions.findSession(sessionId);
    if (!session) throw new AppError("not_found", `No session ${sessionId}.`);
    // A repeat is answered what is recorded, whatever became of the session and its persona since.
    const [json] = await this.deps.store.readConversationFields(session.id, [toolCallField(body.tool_call_id)]);
    if (json) {
      const recorded = JSON.parse(json) as StoredToolCall;
      if (recorded.fingerprint !== fingerprintOf(body.name, body.arguments)) throw reused(recorded.id);
      return toolCallView(await this.ended(session, await this.awaitSettled(session, recorded)));
    }
    if (TERMINAL.has(session.status)) throw sessionEnded(session);
    const tool = await this.toolOf(session, body.name);
    if (tool.type === "webhook" && body.outcome !== undefined) throw invalid("outcome", "is not allowed: the service runs webhook tools");
    if (tool.type !== "webhook" && body.outcome === undefined) throw invalid("outcome", `is required: the job runs ${tool.type} tools`);
    const result = body.outcome?.result;
    if (result !== undefined && Buffer.byteLength(JSON.stringify(result)) > MAX_RESULT_BYTES) {
      throw invalid("outcome.result", `is more than ${MAX_RESULT_BYTES} bytes as JSON`);
    }
    return toolCallView(await this.call(session, tool, body.tool_call_id, body.arguments, body.outcome));
  }

  /** POST /v1/test-helpers/sessions/{id}/tool-calls: a test session's webhook tool, called as its digital human would. */
  async callTest(principal: Principal, sessionId: string, body: TestToolCall): Promise<ToolCall> {
    const session = await findOwnSession(this.deps.sessions, principal, sessionId);
    if (TERMINAL.has(session.status)) throw sessionEnded(session);
    const tool = await this.toolOf(session, body.name);
    if (tool.type !== "webhook") throw invalid("name", `is a ${tool.type} tool; the test helper calls webhook tools`);
    return toolCallView(await this.call(session, tool, `call_test_${randomBytes(12).toString("hex")}`, body.arguments ?? {}, undefined));
  }

  /** GET /v1/sessions/{id}/tool-calls */
  list(principal: Principal, sessionId: string): Promise<ToolCallList> {
    return listToolCalls(this.deps, principal, sessionId);
  }

  private async call(
    session: SessionRecord,
    tool: Tool,
    id: string,
    args: Record<string, unknown>,
    outcome: ToolCallRun["outcome"],
  ): Promise<StoredToolCall> {
    const nowMs = this.deps.changes.now().getTime();
    const fresh: StoredToolCall = {
      id,
      name: tool.name,
      type: tool.type,
      arguments: args,
      fingerprint: fingerprintOf(tool.name, args),
      status: "running",
      result: null,
      error: null,
      startedAtMs: nowMs,
      durationMs: null,
      leaseUntilMs: tool.type === "webhook" ? nowMs + timeoutOf(tool) + LEASE_MARGIN_MS : null,
    };
    const recorded = outcome === undefined ? fresh : settle(fresh, outcomeOf(outcome));
    const claim = await this.claim(session, recorded);
    if (claim.kind === "found") return this.ended(session, await this.awaitSettled(session, claim.call));
    if (recorded.status !== "running") {
      this.deps.onSettled?.(recorded);
      return this.ended(session, recorded);
    }
    // Only a webhook call is recorded running: the job brings the others' outcomes with them.
    return this.record(session, recorded, await postToolCall(this.deps, session, tool as WebhookTool, recorded));
  }

  /** Records the call under its id, unless the id is recorded already: a repeat, answered what is recorded. */
  private claim(session: SessionRecord, call: StoredToolCall): Promise<Claim> {
    return this.deps.changes.change<Claim>(session, [toolCallField(call.id)], (read) => {
      const found = read.fields[0];
      if (found) {
        const stored = JSON.parse(found) as StoredToolCall;
        if (stored.fingerprint !== call.fingerprint) throw reused(call.id);
        return { result: { kind: "found", call: stored } };
      }
      if (TERMINAL.has(session.status)) throw sessionEnded(session);
      const state = read.state ?? EMPTY_CONVERSATION;
      const ids = state.toolCalls ?? [];
      if (ids.length >= MAX_TOOL_CALLS) throw new AppError("tool_calls_limit_reached", { limit: MAX_TOOL_CALLS });
      const events = call.status === "running" ? [] : [calledEvent(session.id, call)];
      const leases = state.toolLeases ?? [];
      const toolLeases = call.leaseUntilMs === null ? leases : [...leases, { id: call.id, untilMs: call.leaseUntilMs }];
      return {
        result: { kind: "claimed", call },
        change: { state: { ...state, toolCalls: [...ids, call.id], toolLeases }, items: [], events },
        marks: { [toolCallField(call.id)]: JSON.stringify(call) },
      };
    });
  }

  /**
   * Settles a running call with its outcome, unless it was settled already, or its lease is over: a call
   * past its lease is failed (it may have been shown so), and that stands whatever answer comes after.
   */
  private async record(session: SessionRecord, running: StoredToolCall, outcome: ToolOutcome): Promise<StoredToolCall> {
    let wrote = false;
    const settled = await this.deps.changes.change(
      session,
      [toolCallField(running.id)],
      (read) => {
        wrote = false;
        const stored = read.fields[0] ? (JSON.parse(read.fields[0]) as StoredToolCall) : running;
        if (stored.status !== "running") return { result: stored };
        const lapsed = settledAt(stored, this.deps.changes.now().getTime());
        const done = lapsed.status === "running" ? settle(stored, outcome) : lapsed;
        const state = read.state ?? EMPTY_CONVERSATION;
        const toolLeases = (state.toolLeases ?? []).filter((lease) => lease.id !== done.id);
        wrote = true;
        return {
          result: done,
          change: { state: { ...state, toolLeases }, items: [], events: [calledEvent(session.id, done)] },
          marks: { [toolCallField(done.id)]: JSON.stringify(done) },
        };
      },
      // The customer may have acted: the outcome is recorded even if the session ended meanwhile.
      { whileOpen: false },
    );
    // Counted once, by the request that recorded it.
    if (wrote) this.deps.onSettled?.(settled);
    return settled;
  }

  /** A repeat of a running call waits for its outcome; one whose runner is gone past its lease is settled failed. */
  private async awaitSettled(session: SessionRecord, call: StoredToolCall): Promise<StoredToolCall> {
    let current = call;
    while (current.status === "running") {
      const nowMs = this.deps.changes.now().getTime();
      if (current.leaseUntilMs === null || nowMs >= current.leaseUntilMs) {
        const lost = settledAt(current, Math.max(nowMs, current.leaseUntilMs ?? nowMs));
        return this.record(session, current, { status: "failed", error: lost.error ?? "", durationMs: lost.durationMs ?? 0 });
      }
      await new Promise((resolve) => setTimeout(resolve, this.deps.pollMs ?? 100));
      const [json] = await this.deps.store.readConversationFields(session.id, [toolCallField(call.id)]);
      if (json) current = JSON.parse(json) as StoredToolCall;
    }
    return current;
  }

  /**
   * An end_session call that succeeded ends the session; a repeat ends it too (the end is a no-op on an
   * ended session), so a request that recorded the call and died before the end is completed by its retry.
   */
  private async ended(session: SessionRecord, call: StoredToolCall): Promise<StoredToolCall> {
    if (call.type === "end_session" && call.status === "succeeded") await this.deps.endSession(session);
    return call;
  }

  /** The tool of the session's digital human, as the session was created with it. */
  private async toolOf(session: SessionRecord, name: string): Promise<Tool> {
    const persona = await this.deps.sessions.sessionPersona(session.id);
    if (!persona) {
      // A session's persona goes with its end: one that ended since it was read refuses new calls as ended.
      const now = await this.deps.sessions.findSession(session.id);
      if (!now || TERMINAL.has(now.status)) throw sessionEnded(now ?? session);
    }
    const tool = persona?.tools?.find((t) => t.name === name);
    if (!tool) throw invalid("name", "is not a tool of the session's digital human");
    return tool;
  }
}
