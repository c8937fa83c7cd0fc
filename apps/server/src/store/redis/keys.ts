import calculateSlot from "cluster-key-slot";

/**
 * The version of the key layout below. A server finds it in `<prefix>:layout` and refuses to start
 * against a Redis that holds another one (layout-version.ts); change it with every change of the layout
 * that an older or newer server would misread.
 */
export const LAYOUT_VERSION = 3;

/**
 * How many shards sessions are spread over: a session, its timers, its ending mark, the idempotency
 * record that created it and the customer webhook deliveries it causes live in its shard's slot, so one
 * script changes them together. Fixed, so every replica sweeps the same timer sets; many, so that Redis
 * Cluster spreads them over its masters in about equal shares (see shardTags). It is also the most
 * masters sessions can spread over; raising it is a change of the layout.
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

/** The shard of an id (a session's, or an account's Idempotency-Key's): FNV-1a, the same on every replica. */
export function shardOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SHARDS;
}

/** The shard of an account's Idempotency-Key: the session it creates is named to live in the same one. */
export const keyShardOf = (accountId: string, idempotencyKey: string) => shardOf(`${accountId}|${idempotencyKey}`);

/** A new session id in the shard: random ids are drawn until one falls in it (32 draws on average). */
export function sessionIdIn(shard: number, draw: () => string = () => crypto.randomUUID()): string {
  for (;;) {
    const id = draw();
    if (shardOf(id) === shard) return id;
  }
}

/** The UTC day (YYYY-MM-DD) of a time in ms: the unit of per-day keys. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Redis key layout, under a prefix (REDIS_KEY_PREFIX, `dhs` by default) so several deployments or test
 * runs can share one Redis without seeing each other.
 *
 * - A session's keys carry its shard's tag, `{7.3}`: its record, its ending mark, its timers, the
 *   Idempotency-Key that created it (its id is drawn in the key's shard) and its account's customer
 *   webhook deliveries in that shard. One account's sessions spread over every master.
 * - What the account's concurrency cap needs, its usage counters and its webhook endpoints carry the
 *   account as their tag, `{acct_1}`: small, and bounded by the cap and the endpoints' limit.
 * - An account's ended sessions are listed in one index per creation day in each shard, beside the
 *   sessions themselves: its history spreads over the masters as its sessions do, and expires day by day.
 *
 * Sessions are read by id alone, so account isolation is an explicit check: the record names its account
 * and a session of another account is not found.
 */

export function keyspace(prefix = "dhs") {
  const shard = (id: string) => SHARD_TAGS[shardOf(id)] as string;
  return {
    /** The key layout's version (LAYOUT_VERSION). */
    layout: `${prefix}:layout`,
    /** Ready recordings' files (their keys in the recordings' store) by when the retention deletes them (ms). */
    recordingExpiries: `${prefix}:recordings:expiries`,
    /** A session (its JSON, which names its account). */
    session: (sessionId: string) => `${prefix}:{${shard(sessionId)}}:session:${sessionId}`,
    /** An account's Idempotency-Key (idempotencyRecord), in the shard of the session it creates. */
    idempotency: (accountId: string, idempotencyKey: string) =>
      `${prefix}:{${SHARD_TAGS[keyShardOf(accountId, idempotencyKey)]}}:idem:${accountId}:${idempotencyKey}`,
    /** The persona the session was created with (its JSON), while the session can be open. */
    persona: (sessionId: string) => `${prefix}:{${shard(sessionId)}}:persona:${sessionId}`,
    /** Set while endSession deletes the session's room (a short TTL); read with the session. */
    ending: (sessionId: string) => `${prefix}:{${shard(sessionId)}}:ending:${sessionId}`,
    /**
     * The account's open sessions (created or active) and the creates it has in flight, by creation time
     * (ms): what the concurrency cap counts and what lists of open sessions read.
     */
    open: (accountId: string) => `${prefix}:{${accountId}}:open`,
    /**
     * The UTC days the account created sessions on (members YYYY-MM-DD, scored by the day's start, ms):
     * the days whose indexes of ended sessions a list reads; trimmed to the retention by lists.
     */
    days: (accountId: string) => `${prefix}:{${accountId}}:days`,
    /** Creates in flight (session ids, in `open` too) by when their claim expires (ms). */
    claims: (accountId: string) => `${prefix}:{${accountId}}:claims`,
    /** The account's usage counters of one UTC day (a hash; kept USAGE_RETENTION_DAYS). */
    usage: (accountId: string, day: string) => `${prefix}:{${accountId}}:usage:${day}`,
    /**
     * With a history database: the account's usage counters on their way there (a hash: move id -> the
     * day and its counters), between being taken from `usage` and being confirmed written.
     */
    usageMoving: (accountId: string) => `${prefix}:{${accountId}}:usage-moving`,
    /**
     * The account's ended sessions in a shard created on a UTC day, by creation time (ms); expires with
     * its last one.
     */
    ended: (accountId: string, shardIndex: number, day: string) => `${prefix}:{${SHARD_TAGS[shardIndex]}}:ended:${accountId}:${day}`,
    /**
     * With a history database: the shard's ended sessions to write there (session ids by when they are
     * due, ms; a claimed one by its lease's end), added to by each change of an ended session.
     */
    history: (shardIndex: number) => `${prefix}:history:{${SHARD_TAGS[shardIndex]}}`,
    /**
     * The shard's sessions claimed from `history` at least once and not written yet, by when they were
     * first due (ms): a claim re-dates its session in `history`, this keeps how long it has waited.
     */
    historySince: (shardIndex: number) => `${prefix}:history-since:{${SHARD_TAGS[shardIndex]}}`,
    /** The shard's sessions the history database refused, set aside (ids by when, ms) until the retention pass queues them again. */
    historyAside: (shardIndex: number) => `${prefix}:history-aside:{${SHARD_TAGS[shardIndex]}}`,
    /** The session timers of one shard by due time; members are `account|session|timer`. */
    timers: (shardIndex: number) => `${prefix}:timers:{${SHARD_TAGS[shardIndex]}}`,
    /**
     * A session's transcript (a hash): each segment's JSON under its id, and the transcript's own state
     * under `!n` (segments), `!final` and `!deleted` (ms), which no segment id can be.
     */
    transcript: (sessionId: string) => `${prefix}:{${shard(sessionId)}}:transcript:${sessionId}`,
    /** The transcript's segment ids by start time (ms): its spoken order, ties by id. */
    transcriptOrder: (sessionId: string) => `${prefix}:{${shard(sessionId)}}:transcript-order:${sessionId}`,
    /**
     * A session's conversation (a hash): its state and version (`state`, `ver`), each item under `i:<id>`,
     * each Idempotency-Key of say and addSessionContext under `k:<key>`, the digital human's reports under
     * `r:<kind>:<id>` (none of which the other fields' names can be).
     */
    conversation: (sessionId: string) => `${prefix}:{${shard(sessionId)}}:conversation:${sessionId}`,
    /** The id of a LiveKit event that reached the session (expires after LIVEKIT_WEBHOOK_DEDUPE_S). */
    livekitEvent: (sessionId: string, eventId: string) => `${prefix}:{${shard(sessionId)}}:livekit-event:${sessionId}:${eventId}`,
    /** A lease on work one replica at a time does (its holder, with a TTL). */
    lease: (name: string) => `${prefix}:lease:{${name}}`,

    // An account's own digital humans (each mode apart: the owner is the account or its test side) are
    // PostgreSQL's; Redis keeps their creates' keys, in the owner's slot. (`:dh` and `:dh:order`, a copy
    // of them before, are read by nothing.)
    /** An Idempotency-Key of createDigitalHuman: `<fingerprint>|<id>`, kept IDEMPOTENCY_KEY_TTL_S. */
    digitalHumanKey: (owner: string, idempotencyKey: string) => `${prefix}:{${owner}}:dh:idem:${idempotencyKey}`,

    // Customer webhooks: an account's endpoints and delivery logs live in its slot; its deliveries in the
    // shard of the session whose change caused them, so the change and its events are one script.
    /** An endpoint (a hash: url, types, description, status, disabled_reason, created, secrets, failing_since). */
    hookEndpoint: (accountId: string, endpointId: string) => `${prefix}:{${accountId}}:hook:endpoint:${endpointId}`,
    /** The account's endpoint ids by creation time (ms). */
    hookEndpoints: (accountId: string) => `${prefix}:{${accountId}}:hook:endpoints`,
    /** Enabled endpoints and the event types they take (a hash: id -> space-separated types, or `*`). */
    hookRoutes: (accountId: string) => `${prefix}:{${accountId}}:hook:routes`,
    /** An account's deliveries in a shard (`endpoint|event`) by when they are due (ms; a claimed one by its lease's end). */
    hookDue: (accountId: string, shardIndex: number) => `${prefix}:{${SHARD_TAGS[shardIndex]}}:hook:${accountId}:due`,
    /** The same deliveries by their event's creation time (ms): the queue's size and its oldest event. */
    hookPending: (accountId: string, shardIndex: number) => `${prefix}:{${SHARD_TAGS[shardIndex]}}:hook:${accountId}:pending`,
    /** Attempts made so far per delivery, for deliveries that failed at least once. */
    hookAttempts: (accountId: string, shardIndex: number) => `${prefix}:{${SHARD_TAGS[shardIndex]}}:hook:${accountId}:attempts`,
    /** An event's body and how many deliveries of it are pending (a hash: body, refs). */
    hookEvent: (accountId: string, shardIndex: number, eventId: string) =>
      `${prefix}:{${SHARD_TAGS[shardIndex]}}:hook:${accountId}:event:${eventId}`,
    /** An endpoint's recent attempts (a stream, trimmed to the newest HOOK_LOG_MAX). */
    hookLog: (accountId: string, endpointId: string) => `${prefix}:{${accountId}}:hook:log:${endpointId}`,
    /** Accounts with deliveries due in a shard, by the time of their next one there (ms). */
    hookAccountsDue: (shardIndex: number) => `${prefix}:hooks-due:{${SHARD_TAGS[shardIndex]}}`,
    /** Every account that ever had an endpoint: what the reconciliation walks (grows with accounts only). */
    hookAccounts: `${prefix}:{hooks}:accounts`,

    // With the PostgreSQL history, the endpoints' record is there and Redis holds a copy of each account's.
    /** Set once the account's endpoints were copied from PostgreSQL: without it, Redis's copy is not whole. */
    hookCopied: (accountId: string) => `${prefix}:{${accountId}}:hook:copied`,
    /** Endpoints whose log or health changed since PostgreSQL has them, each with a count of its changes. */
    hookUnsynced: (accountId: string) => `${prefix}:{${accountId}}:hook:unsynced`,
    /** Accounts with endpoints to copy to PostgreSQL, by when (ms; a claimed one by its lease's end). */
    hookSyncDue: `${prefix}:{hooks}:sync-due`,
    /** Set once every account's endpoints were copied from PostgreSQL (missing after Redis lost its data). */
    hookAllCopied: `${prefix}:{hooks}:copied`,
    /**
     * Endpoints whose write failed after Redis's copy took it (a COMMIT refused) and whose copy could not be
     * put back at once (members `account endpoint`): the history writer's next pass puts them back.
     */
    hookRepairs: `${prefix}:{hooks}:repairs`,
  };
}

export type Keyspace = ReturnType<typeof keyspace>;

/** An endpoint's event types as the routes hash holds them: space-separated, or `*`. */
export const routeOf = (eventTypes: readonly string[]) => eventTypes.join(" ");

export const timerMember = (accountId: string, sessionId: string, timer: string) => `${accountId}|${sessionId}|${timer}`;

export function parseTimerMember(member: string): { accountId: string; sessionId: string; timer: string } {
  const [accountId = "", sessionId = "", timer = ""] = member.split("|");
  return { accountId, sessionId, timer };
}

/**
 * Idempotency records are small strings: `p|<fingerprint>|<lock>|<lock's expiry, ms>|<session id>` while
 * a request creates, `d|<fingerprint>|<session id>` once it is done, `a|<fingerprint>|<session id>` after
 * a create that failed (fingerprints are base64url: no `|`). The session id is fixed when the key is first
 * claimed, so a retry of a failed create, or one that takes over a crashed create's expired lock,
 * continues the same session, with the room LiveKit may have made for it. Written and read here; on Redis
 * the beginCreate script reads them in Lua (sessions/idempotent-creates-scripts.ts) alike.
 */
export const idempotencyRecord = {
  pending: (fingerprint: string, lock: string, expiresAtMs: number, sessionId: string) =>
    `p|${fingerprint}|${lock}|${expiresAtMs}|${sessionId}`,
  done: (fingerprint: string, sessionId: string) => `d|${fingerprint}|${sessionId}`,
  abandoned: (fingerprint: string, sessionId: string) => `a|${fingerprint}|${sessionId}`,
  parse(record: string): { state: "p" | "d" | "a"; fingerprint: string; sessionId: string } {
    const parts = record.split("|");
    return { state: parts[0] as "p" | "d" | "a", fingerprint: parts[1] ?? "", sessionId: parts.at(-1) ?? "" };
  },
};
