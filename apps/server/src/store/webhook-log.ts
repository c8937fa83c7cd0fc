/**
 * The webhook delivery log's format and bounds, which every adapter shares: Redis keeps an endpoint's
 * recent attempts in a stream, memory in a list, PostgreSQL in webhook_deliveries; each entry is named by
 * its Redis stream id (`<ms>-<seq>`) wherever it lives, so a page's cursor means the same in all of them.
 */
import type { AttemptRecord, WebhookEndpointRecord } from "../domain/customer-webhooks/ports.js";

/** The attempts an endpoint's delivery log keeps. */
export const HOOK_LOG_MAX = 1000;

/** A delivery is one event to one endpoint; ids have no `|`. */
export const deliveryMember = (endpointId: string, eventId: string) => `${endpointId}|${eventId}`;

export function parseDeliveryMember(member: string): { endpointId: string; eventId: string } {
  const [endpointId = "", eventId = ""] = member.split("|");
  return { endpointId, eventId };
}

/** A log entry's position: its Redis stream id's milliseconds and sequence. */
export interface EntryPosition {
  ms: string;
  seq: string;
}

export interface LoggedAttempt extends EntryPosition {
  attempt: AttemptRecord;
}

/** The health of an endpoint as deliveries made it. */
export type EndpointHealthState = Pick<WebhookEndpointRecord, "status" | "disabledReason" | "failingSinceMs">;

/** A Redis stream id (`<ms>-<seq>`) as a position. */
export function entryPosition(id: string): EntryPosition {
  const [ms = "0", seq = "0"] = id.split("-");
  return { ms, seq };
}

/** A position as its Redis stream id. */
export const entryId = (position: EntryPosition): string => `${position.ms}-${position.seq}`;

/** Older first (negative when `a` is older than `b`). */
export function compareEntries(a: EntryPosition, b: EntryPosition): number {
  const byMs = BigInt(a.ms) - BigInt(b.ms);
  if (byMs !== 0n) return byMs < 0n ? -1 : 1;
  const bySeq = BigInt(a.seq) - BigInt(b.seq);
  return bySeq === 0n ? 0 : bySeq < 0n ? -1 : 1;
}
