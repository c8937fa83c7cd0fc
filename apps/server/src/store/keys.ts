import { roomNameFor, type SessionRecord } from "../domain/session.js";
import type { LifecycleTimer } from "../domain/session-machine.js";

/**
 * Redis key layout, under a prefix (REDIS_KEY_PREFIX, `dhs` by default) so several deployments or test
 * runs can share one Redis without seeing each other. Every key of an account carries the account as its hash tag, `{acct_1}`, so a
 * session and the idempotency record that created it live in one Redis Cluster slot and one Lua script
 * can write both. Account isolation follows from the layout: a session is only ever looked up under the
 * caller's own account.
 */

export function keyspace(prefix = "dhs") {
  return {
    session: (accountId: string, sessionId: string) => `${prefix}:{${accountId}}:session:${sessionId}`,
    idempotency: (accountId: string, idempotencyKey: string) => `${prefix}:{${accountId}}:idem:${idempotencyKey}`,
    /** Set while endSession deletes the session's room (a short TTL). */
    ending: (accountId: string, sessionId: string) => `${prefix}:{${accountId}}:ending:${sessionId}`,
    /** Sorted sets of an account's session ids by creation time (ms), one per status. */
    index: (accountId: string, status: string) => `${prefix}:{${accountId}}:index:${status}`,
    /** One sorted set of every session's timers by due time; members are `account|session|timer`. */
    timers: `${prefix}:{timers}:due`,
    /** A webhook event id already processed. */
    webhookEvent: (eventId: string) => `${prefix}:webhook:{${eventId}}`,
  };
}

export type Keyspace = ReturnType<typeof keyspace>;

/** The memory store's layout: one process, one keyspace. */
export const keys = keyspace();

/** The timers cancelTimers removes when a session ends; its `purge` timer is scheduled after that, and stays. */
export const TIMER_KINDS = [
  "join_timeout",
  "digital_human_timeout",
  "max_duration",
  "departure_timeout",
  "digital_human_lost",
  "dispatch_check",
] as const satisfies readonly LifecycleTimer[];

export const timerMember = (accountId: string, sessionId: string, timer: string) => `${accountId}|${sessionId}|${timer}`;

export function parseTimerMember(member: string): { accountId: string; sessionId: string; timer: string } {
  const [accountId = "", sessionId = "", timer = ""] = member.split("|");
  return { accountId, sessionId, timer };
}

/**
 * Idempotency records are small strings: `p|<fingerprint>|<lock>` while the first request runs,
 * `d|<fingerprint>|<session id>` once it is done (fingerprints are base64url: no `|`). Written and read
 * here; on Redis the beginCreate script reads them in Lua (redis-scripts.ts) with the same pattern.
 */
export const idempotencyRecord = {
  pending: (fingerprint: string, lock: string) => `p|${fingerprint}|${lock}`,
  done: (fingerprint: string, sessionId: string) => `d|${fingerprint}|${sessionId}`,
  parse(record: string): { done: boolean; fingerprint: string; lockOrSessionId: string } {
    const [state, fingerprint = "", lockOrSessionId = ""] = record.split("|");
    return { done: state === "d", fingerprint, lockOrSessionId };
  },
};

/**
 * A stored session leaves out what its key already says (the account in the hash tag, the id) or what
 * follows from it (the room name), and its fields that are still null. About 170 bytes a session, for
 * every session kept: the value fits a 256-byte allocation instead of 384.
 */
const NULLABLE = [
  "end_reason",
  "digital_human_joined_at",
  "digital_human_left_at",
  "participant_sid",
  "participant_left_at",
  "started_at",
  "ended_at",
] as const;

export function encodeSession(record: SessionRecord): string {
  const { account_id: _account, room_name: _room, id: _id, ...stored } = record;
  for (const field of NULLABLE) if (stored[field] === null) delete stored[field];
  return JSON.stringify(stored);
}

export function decodeSession(json: string, accountId: string, sessionId: string): SessionRecord {
  const stored = JSON.parse(json) as Partial<SessionRecord>;
  const record = {
    end_reason: null,
    digital_human_joined_at: null,
    digital_human_left_at: null,
    participant_sid: null,
    participant_left_at: null,
    started_at: null,
    ended_at: null,
    ...stored,
  };
  return { ...record, id: sessionId, account_id: accountId, room_name: roomNameFor(sessionId) } as SessionRecord;
}
