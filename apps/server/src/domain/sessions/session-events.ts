/**
 * The customer-facing events of a session's life (contract guide, "Webhooks"): which events a change of
 * a session causes, and their payloads. Pure: the session service records them with the change, in one
 * atomic step of the store.
 */
import { randomUUID } from "node:crypto";
import type { SessionEventData, WebhookEventType, WebhookPayload } from "@dhs/contract";
import { type Mode, modeOfOwner } from "../accounts/api-keys.js";
import type { OutboundEvent } from "../customer-webhooks/ports.js";
import { type SessionRecord, TERMINAL, toSessionSummary } from "./session.js";

// randomUUID draws from a pooled entropy buffer; randomBytes(16) asks OpenSSL on every call, which the
// LiveKit events' profile showed at about 28 µs an event.
function newEventId(): string {
  return `evt_${randomUUID().replaceAll("-", "")}`;
}

/**
 * The events a change from `before` (undefined: a new session) to `after` causes, at `now`; with the
 * trace of the change (`traceparent`, tracing on) that their deliveries are linked to.
 */
export function sessionEvents(
  before: SessionRecord | undefined,
  after: SessionRecord,
  now: Date,
  retainMs: number,
  traceparent?: string,
): OutboundEvent[] {
  const types: WebhookEventType[] = [];
  if (before === undefined) types.push("session.created");
  else {
    if (before.status === "created" && after.status === "active") types.push("session.active");
    // The first time only: a digital human that drops out and comes back is no news to the customer.
    if (before.digital_human_joined_at === null && after.digital_human_joined_at !== null) types.push("session.digital_human_joined");
    if (!TERMINAL.has(before.status) && TERMINAL.has(after.status)) types.push("session.ended");
  }
  if (types.length === 0) return [];
  const data = sessionEventData(after, now);
  const mode = modeOfOwner(after.account_id);
  return types.map((type) => outboundEvent(type, mode, now, data, retainMs, traceparent));
}

export function outboundEvent(
  type: WebhookEventType,
  mode: Mode,
  at: Date,
  data: WebhookPayload["data"],
  retainMs: number,
  traceparent?: string,
): OutboundEvent {
  const payload: WebhookPayload = { type, mode, timestamp: at.toISOString(), data };
  const event: OutboundEvent = { id: newEventId(), type, createdAtMs: at.getTime(), body: JSON.stringify(payload), retainMs };
  if (traceparent !== undefined) event.traceparent = traceparent;
  return event;
}

/** The session as listSessions shows it, and the whole seconds it has been active, rounded up. */
function sessionEventData(record: SessionRecord, now: Date): SessionEventData {
  return { ...toSessionSummary(record), duration_seconds: activeSeconds(record, now) };
}

export function activeSeconds(record: SessionRecord, now: Date): number {
  if (record.started_at === null) return 0;
  const until = record.ended_at === null ? now.getTime() : Date.parse(record.ended_at);
  return Math.max(0, Math.ceil((until - Date.parse(record.started_at)) / 1000));
}
