import calculateSlot from "cluster-key-slot";
import { roomNameFor, type SessionRecord } from "../../domain/sessions/session.js";

/**
 * The version of the key layout below. A server finds it in `<prefix>:layout` and refuses to start
 * against a Redis that holds another one (layout-version.ts); change it with every change of the layout
 * that an older or newer server would misread.
 */
export const LAYOUT_VERSION = 2;

/**
 * How many sorted sets the session timers, and the accounts with webhook deliveries due, are spread over.
 * Fixed, so every replica sweeps the same sets; many, so that Redis Cluster spreads them over its
 * masters in about equal shares (see shardTags).
 */
export const SHARDS = 32;

/**
 * A hash tag for each shard, chosen so that shard k hashes to a slot in the k-th of SHARDS equal ranges
 * of Redis Cluster's 16 384 slots: masters own slots in ranges, so each master gets the shards of its
 * share of the slot space, not the luck of 32 random slots.
 */
export function shardTags(count: number): string[] {
  const tags: string[] = [];
  for (let k = 0; k < count; k++) {
    const low = Math.floor((k * 16_384) / count);
    const high = Math.floor(((k + 1) * 16_384) / count);
    for (let j = 0; ; j++) {
      const tag = `${k}.${j}`;
      const slot = calculateSlot(tag);
      if (slot >= low && slot < high) {
        tags.push(tag);
        break;
      }
    }
  }
  return tags;
}

const SHARD_TAGS = shardTags(SHARDS);

/** The shard of an id (a session's or an account's): FNV-1a, so every replica computes the same one. */
export function shardOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SHARDS;
}

/** The UTC day (YYYY-MM-DD) of a time in ms: the unit of per-day keys. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Redis key layout, under a prefix (REDIS_KEY_PREFIX, `dhs` by default) so several deployments or test
 * runs can share one Redis without seeing each other. An account's keys carry the account as their hash
 * tag, `{acct_1}`, so a session, the idempotency record that created it and its index entries live in one
 * Redis Cluster slot and one Lua script can write them together. Account isolation follows from the
 * layout: a session is only ever looked up under the caller's own account. What is not one account's
 * (the session timers, the accounts with webhook deliveries due) is spread over SHARDS sets, each under a
 * tag of its own; nothing global grows with sessions.
 */

export function keyspace(prefix = "dhs") {
  return {
    /** The key layout's version (LAYOUT_VERSION). */
    layout: `${prefix}:layout`,
    session: (accountId: string, sessionId: string) => `${prefix}:{${accountId}}:session:${sessionId}`,
    idempotency: (accountId: string, idempotencyKey: string) => `${prefix}:{${accountId}}:idem:${idempotencyKey}`,
    /** Creates in flight (their idempotency locks) by when their lock expires (ms): they count as open sessions. */
    claims: (accountId: string) => `${prefix}:{${accountId}}:claims`,
    /** The account's usage counters of one UTC day (a hash; kept USAGE_RETENTION_DAYS). */
    usage: (accountId: string, day: string) => `${prefix}:{${accountId}}:usage:${day}`,
    /** Set while endSession deletes the session's room (a short TTL). */
    ending: (accountId: string, sessionId: string) => `${prefix}:{${accountId}}:ending:${sessionId}`,
    /**
     * Sorted sets of an account's session ids by creation time (ms): one per open status (created, active;
     * as many entries as the account has sessions open, so bounded by its cap), and one per ended status
     * and UTC day of creation, which expires whole once the last session in it has.
     */
    index: (accountId: string, status: string) => `${prefix}:{${accountId}}:index:${status}`,
    endedIndex: (accountId: string, status: string, day: string) => `${prefix}:{${accountId}}:index:${status}:${day}`,
    /** The session timers of one shard by due time; members are `account|session|timer`. */
    timers: (shard: number) => `${prefix}:timers:{${SHARD_TAGS[shard]}}`,
    /** A LiveKit event id already processed (expires after LIVEKIT_WEBHOOK_DEDUPE_S). */
    livekitEvent: (eventId: string) => `${prefix}:livekit-event:{${eventId}}`,
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
    /** Accounts with deliveries due, by the time of their next one (ms), in the account's shard. */
    hookAccountsDue: (shard: number) => `${prefix}:hooks-due:{${SHARD_TAGS[shard]}}`,
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
 * Written and read here; on Redis the beginCreate script reads them in Lua (session-scripts.ts) alike.
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

/**
 * The stored session's own format version, its `v` field: a record written in another format is refused
 * (a fault, 500) rather than misread. Raise it with any change of what a stored session holds.
 */
export const SESSION_FORMAT = 1;

export function encodeSession(record: SessionRecord): string {
  const { account_id: _account, room_name: _room, id: _id, ...fields } = record;
  for (const field of NULLABLE) if (fields[field] === null) delete fields[field];
  return JSON.stringify({ v: SESSION_FORMAT, ...fields });
}

export function decodeSession(json: string, accountId: string, sessionId: string): SessionRecord {
  const { v, ...stored } = JSON.parse(json) as Partial<SessionRecord> & { v?: unknown };
  if (v !== SESSION_FORMAT) throw new Error(`stored session ${sessionId} has format ${String(v)}, this server reads ${SESSION_FORMAT}`);
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
