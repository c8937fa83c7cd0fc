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
    /** Creates in flight (their idempotency locks) by when their lock expires (ms): they count as open sessions. */
    claims: (accountId: string) => `${prefix}:{${accountId}}:claims`,
    /** The account's usage counters of one UTC day (a hash; kept USAGE_RETENTION_DAYS). */
    usage: (accountId: string, day: string) => `${prefix}:{${accountId}}:usage:${day}`,
    /** Set while endSession deletes the session's room (a short TTL). */
    ending: (accountId: string, sessionId: string) => `${prefix}:{${accountId}}:ending:${sessionId}`,
    /** Sorted sets of an account's session ids by creation time (ms), one per status. */
    index: (accountId: string, status: string) => `${prefix}:{${accountId}}:index:${status}`,
    /** One sorted set of every session's timers by due time; members are `account|session|timer`. */
    timers: `${prefix}:{timers}:due`,
    /** A webhook event id already processed. */
    webhookEvent: (eventId: string) => `${prefix}:webhook:{${eventId}}`,
    /** A lease on work one replica at a time does (its holder, with a TTL). */
    lease: (name: string) => `${prefix}:lease:{${name}}`,

    // Customer webhooks: an account's endpoints and its delivery queue live in its slot, so the change of
    // a session and the events it causes are written by one script.
    /** An endpoint (a hash: url, types, description, status, disabled_reason, created, secrets, failing_since). */
    hookEndpoint: (accountId: string, endpointId: string) => `${prefix}:{${accountId}}:hook:endpoint:${endpointId}`,
    /** The account's endpoint ids by creation time (ms). */
    hookEndpoints: (accountId: string) => `${prefix}:{${accountId}}:hook:endpoints`,
    /** Enabled endpoints and the event types they take (a hash: id -> space-separated types, or `*`). */
    hookRoutes: (accountId: string) => `${prefix}:{${accountId}}:hook:routes`,
    /** Deliveries (`endpoint|event`) by when they are due (ms; a claimed one by its lease's end). */
    hookDue: (accountId: string) => `${prefix}:{${accountId}}:hook:due`,
    /** The same deliveries by their event's creation time (ms): the queue's size and its oldest event. */
    hookPending: (accountId: string) => `${prefix}:{${accountId}}:hook:pending`,
    /** Attempts made so far per delivery, for deliveries that failed at least once. */
    hookAttempts: (accountId: string) => `${prefix}:{${accountId}}:hook:attempts`,
    /** An event's body and how many deliveries of it are pending (a hash: body, refs). */
    hookEvent: (accountId: string, eventId: string) => `${prefix}:{${accountId}}:hook:event:${eventId}`,
    /** An endpoint's recent attempts (a stream, trimmed to the newest HOOK_LOG_MAX). */
    hookLog: (accountId: string, endpointId: string) => `${prefix}:{${accountId}}:hook:log:${endpointId}`,
    /** Accounts with deliveries due, by the time of their next one (ms). */
    hookAccountsDue: `${prefix}:{hooks}:due`,
    /** Every account that ever had an endpoint: what the reconciliation walks. */
    hookAccounts: `${prefix}:{hooks}:accounts`,
  };
}

export type Keyspace = ReturnType<typeof keyspace>;

/** The attempts an endpoint's delivery log keeps. */
export const HOOK_LOG_MAX = 1000;

/** A delivery is one event to one endpoint; ids have no `|`. */
export const deliveryMember = (endpointId: string, eventId: string) => `${endpointId}|${eventId}`;

export function parseDeliveryMember(member: string): { endpointId: string; eventId: string } {
  const [endpointId = "", eventId = ""] = member.split("|");
  return { endpointId, eventId };
}

/** An endpoint's event types as the routes hash holds them: space-separated, or `*`. */
export const routeOf = (eventTypes: readonly string[]) => eventTypes.join(" ");

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
 * Idempotency records are small strings: `p|<fingerprint>|<lock>|<session id>` while a request creates,
 * `d|<fingerprint>|<session id>` once it is done, `a|<fingerprint>|<session id>` after a create that
 * failed (fingerprints are base64url: no `|`). The session id is fixed when the key is first claimed, so
 * a retry of a failed create continues the same session, with the room LiveKit may have made for it.
 * Written and read here; on Redis the beginCreate script reads them in Lua (redis-scripts.ts) alike.
 */
export const idempotencyRecord = {
  pending: (fingerprint: string, lock: string, sessionId: string) => `p|${fingerprint}|${lock}|${sessionId}`,
  done: (fingerprint: string, sessionId: string) => `d|${fingerprint}|${sessionId}`,
  abandoned: (fingerprint: string, sessionId: string) => `a|${fingerprint}|${sessionId}`,
  parse(record: string): { state: "p" | "d" | "a"; fingerprint: string; sessionId: string } {
    const parts = record.split("|");
    return { state: parts[0] as "p" | "d" | "a", fingerprint: parts[1] ?? "", sessionId: parts.at(-1) ?? "" };
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
