/**
 * The session store on Redis (or Redis Cluster). Each step of an idempotent create is one Lua script, so
 * concurrent requests and replicas cannot interleave inside it: begin (claim or inspect the key),
 * complete (store the session and mark the key done, only while the lock is ours) and abandon (release
 * our lock). Connection failures and timeouts become DependencyUnavailableError (503); Redis replies
 * that reveal a bug stay errors (500).
 */

import { type SessionStatus, sessionStatusValues } from "@dhs/contract";
import { type Cluster, type Redis, ReplyError } from "ioredis";
import type { BeginOutcome } from "../domain/idempotency.js";
import {
  DependencyFaultError,
  DependencyUnavailableError,
  type DueTimer,
  isAfterCursor,
  type ListPosition,
  type ListQuery,
  newestFirst,
  type SessionStore,
  type Versioned,
} from "../domain/ports.js";
import type { SessionRecord } from "../domain/session.js";
import type { LifecycleTimer, TimerKind } from "../domain/session-machine.js";
import {
  decodeSession,
  encodeSession,
  idempotencyRecord,
  type Keyspace,
  keyspace,
  parseTimerMember,
  TIMER_KINDS,
  timerMember,
} from "./keys.js";

const BEGIN = `
local record = redis.call('GET', KEYS[1])
if not record then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return {'acquired'}
end
local state, print, rest = string.match(record, '^(%a)|([^|]+)|(.+)$')
if print ~= ARGV[1] then return {'reused'} end
if state == 'p' then return {'in_progress'} end
return {'replay', rest}
`;

const COMPLETE = `
local record = redis.call('GET', KEYS[1])
if record and record ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[4])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
return 1
`;

const REPLACE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
if KEYS[2] ~= KEYS[3] then
  redis.call('ZREM', KEYS[2], ARGV[3])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
end
return 1
`;

// KEYS: the session, then every per-status index of its account (one slot: the account's hash tag).
const DELETE = `
redis.call('DEL', KEYS[1])
for i = 2, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
return 1
`;

const CLAIM = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
return due
`;

// KEYS[1] timers; ARGV[1] member, ARGV[2] the claim's lease end. Removes the timer unless it was
// scheduled again while it fired (its score is then another time).
const COMPLETE_TIMER = `
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1])) == tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
`;

const ABANDON = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

// Replies that mean "not now" rather than "wrong": the server is loading, failing over or read-only.
const TRANSIENT_REPLY = /^(LOADING|BUSY|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|MOVED|ASK)\b/;

type Scripted = {
  dhsBegin(idem: string, print: string, pending: string, lockTtlMs: number): Promise<[string, string?]>;
  dhsComplete(
    idem: string,
    session: string,
    byStatus: string,
    pending: string,
    done: string,
    keyTtlMs: number,
    json: string,
    score: number,
    id: string,
  ): Promise<number>;
  dhsAbandon(idem: string, pending: string): Promise<number>;
  dhsReplace(session: string, from: string, to: string, version: string, json: string, id: string, score: number): Promise<number>;
  dhsClaim(timers: string, nowMs: number, leaseUntilMs: number, max: number): Promise<string[]>;
  dhsCompleteTimer(timers: string, member: string, claimedUntil: number): Promise<number>;
  dhsDelete(numberOfKeys: number, ...keysThenId: string[]): Promise<number>;
};

export class RedisSessionStore implements SessionStore {
  private readonly redis: (Redis | Cluster) & Scripted;
  private readonly keys: Keyspace;

  constructor(redis: Redis | Cluster, prefix = "dhs") {
    this.keys = keyspace(prefix);
    redis.defineCommand("dhsBegin", { numberOfKeys: 1, lua: BEGIN });
    redis.defineCommand("dhsComplete", { numberOfKeys: 3, lua: COMPLETE });
    redis.defineCommand("dhsAbandon", { numberOfKeys: 1, lua: ABANDON });
    redis.defineCommand("dhsReplace", { numberOfKeys: 3, lua: REPLACE });
    redis.defineCommand("dhsClaim", { numberOfKeys: 1, lua: CLAIM });
    redis.defineCommand("dhsCompleteTimer", { numberOfKeys: 1, lua: COMPLETE_TIMER });
    // The number of keys is given per call.
    redis.defineCommand("dhsDelete", { lua: DELETE });
    this.redis = redis as (Redis | Cluster) & Scripted;
  }

  beginCreate(accountId: string, idempotencyKey: string, print: string, lockTtlMs: number): Promise<BeginOutcome> {
    const lock = crypto.randomUUID();
    return guard(async () => {
      const [kind, sessionId] = await this.redis.dhsBegin(
        this.keys.idempotency(accountId, idempotencyKey),
        print,
        idempotencyRecord.pending(print, lock),
        lockTtlMs,
      );
      switch (kind) {
        case "acquired":
          return { kind, lock };
        case "reused":
        case "in_progress":
          return { kind };
        case "replay":
          return { kind, sessionId: sessionId as string };
        default:
          throw new Error(`unexpected begin reply ${kind}`);
      }
    });
  }

  completeCreate(session: SessionRecord, idempotencyKey: string, print: string, lock: string, keyTtlMs: number): Promise<boolean> {
    return guard(async () => {
      const written = await this.redis.dhsComplete(
        this.keys.idempotency(session.account_id, idempotencyKey),
        this.keys.session(session.account_id, session.id),
        this.keys.index(session.account_id, session.status),
        idempotencyRecord.pending(print, lock),
        idempotencyRecord.done(print, session.id),
        keyTtlMs,
        encodeSession(session),
        Date.parse(session.created_at),
        session.id,
      );
      return written === 1;
    });
  }

  abandonCreate(accountId: string, idempotencyKey: string, print: string, lock: string): Promise<void> {
    return guard(async () => {
      await this.redis.dhsAbandon(this.keys.idempotency(accountId, idempotencyKey), idempotencyRecord.pending(print, lock));
    });
  }

  getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined> {
    return guard(async () => {
      const json = await this.redis.get(this.keys.session(accountId, sessionId));
      return json === null ? undefined : decodeSession(json, accountId, sessionId);
    });
  }

  getVersioned(accountId: string, sessionId: string): Promise<Versioned | undefined> {
    return guard(async () => {
      const json = await this.redis.get(this.keys.session(accountId, sessionId));
      return json === null ? undefined : { record: decodeSession(json, accountId, sessionId), version: json };
    });
  }

  replaceSession(record: SessionRecord, version: string, previousStatus: SessionStatus): Promise<boolean> {
    return guard(async () => {
      const replaced = await this.redis.dhsReplace(
        this.keys.session(record.account_id, record.id),
        this.keys.index(record.account_id, previousStatus),
        this.keys.index(record.account_id, record.status),
        version,
        encodeSession(record),
        record.id,
        Date.parse(record.created_at),
      );
      return replaced === 1;
    });
  }

  listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]> {
    return guard(async () => {
      const want = query.limit + 1;
      // One index per status; without a filter the five are read together (one round trip, as the
      // commands share a connection) and merged, which saves an index entry for every session kept.
      const statuses = query.status ? [query.status] : sessionStatusValues;
      const pages = await Promise.all(statuses.map((status) => this.indexPage(this.keys.index(accountId, status), query.after, want)));
      const ids = pages
        .flat()
        .sort(newestFirst)
        .slice(0, want)
        .map((entry) => entry.id);
      if (ids.length === 0) return [];
      const jsons = await this.redis.mget(ids.map((id) => this.keys.session(accountId, id)));
      return ids.flatMap((id, i) => {
        const json = jsons[i];
        return json ? [decodeSession(json, accountId, id)] : [];
      });
    });
  }

  /** Up to `want` entries of one index after the cursor, newest first. */
  private async indexPage(index: string, after: ListPosition | undefined, want: number): Promise<ListPosition[]> {
    const entries: ListPosition[] = [];
    // From the cursor's time down: entries with that very time may still be on the previous page.
    for (let offset = 0; entries.length < want; offset += want) {
      const batch = await this.redis.zrevrangebyscore(
        index,
        after ? after.createdAtMs : "+inf",
        "-inf",
        "WITHSCORES",
        "LIMIT",
        offset,
        want,
      );
      for (let i = 0; i < batch.length && entries.length < want; i += 2) {
        const entry = { id: batch[i] as string, createdAtMs: Number(batch[i + 1]) };
        if (isAfterCursor(entry, after)) entries.push(entry);
      }
      if (batch.length < want * 2) break;
    }
    return entries;
  }

  deleteSession(accountId: string, sessionId: string): Promise<void> {
    const keys = [this.keys.session(accountId, sessionId), ...sessionStatusValues.map((status) => this.keys.index(accountId, status))];
    return guard(async () => {
      await this.redis.dhsDelete(keys.length, ...keys, sessionId);
    });
  }

  scheduleTimer(accountId: string, sessionId: string, timer: TimerKind, atMs: number): Promise<void> {
    return guard(async () => {
      await this.redis.zadd(this.keys.timers, atMs, timerMember(accountId, sessionId, timer));
    });
  }

  cancelTimer(accountId: string, sessionId: string, timer: LifecycleTimer): Promise<void> {
    return guard(async () => {
      await this.redis.zrem(this.keys.timers, timerMember(accountId, sessionId, timer));
    });
  }

  cancelTimers(accountId: string, sessionId: string): Promise<void> {
    return guard(async () => {
      await this.redis.zrem(this.keys.timers, ...TIMER_KINDS.map((timer) => timerMember(accountId, sessionId, timer)));
    });
  }

  claimDueTimers(nowMs: number, leaseMs: number, max: number): Promise<DueTimer[]> {
    return guard(async () => {
      const members = await this.redis.dhsClaim(this.keys.timers, nowMs, nowMs + leaseMs, max);
      return members.map((member) => ({
        ...(parseTimerMember(member) as Pick<DueTimer, "accountId" | "sessionId" | "timer">),
        member,
        claimedUntil: nowMs + leaseMs,
      }));
    });
  }

  completeTimer(due: DueTimer): Promise<void> {
    return guard(async () => {
      await this.redis.dhsCompleteTimer(this.keys.timers, due.member, due.claimedUntil);
    });
  }

  markEnding(accountId: string, sessionId: string, ttlMs: number): Promise<void> {
    return guard(async () => {
      await this.redis.set(this.keys.ending(accountId, sessionId), "1", "PX", ttlMs);
    });
  }

  isEnding(accountId: string, sessionId: string): Promise<boolean> {
    return guard(async () => (await this.redis.exists(this.keys.ending(accountId, sessionId))) === 1);
  }

  clearEnding(accountId: string, sessionId: string): Promise<void> {
    return guard(async () => {
      await this.redis.del(this.keys.ending(accountId, sessionId));
    });
  }

  markEventSeen(eventId: string, ttlMs: number): Promise<boolean> {
    return guard(async () => (await this.redis.set(this.keys.webhookEvent(eventId), "1", "PX", ttlMs, "NX")) === "OK");
  }

  forgetEvent(eventId: string): Promise<void> {
    return guard(async () => {
      await this.redis.del(this.keys.webhookEvent(eventId));
    });
  }

  ping(): Promise<void> {
    return guard(async () => {
      await this.redis.ping();
    });
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

// What ioredis says when Redis cannot be reached in time: closed or unwritable connections (no offline
// queue), command timeouts, a cluster without its nodes. Only these, and transient replies, are outages.
const UNREACHABLE =
  /^(Connection is closed|Stream isn't writeable|Cluster isn't ready|Command timed out|Node is disconnected|Cluster is disconnect|None of startup nodes|Too many Cluster redirections|Failed to refresh slots cache|No master node|connect ETIMEDOUT|timeout)/;
const UNREACHABLE_NAMES = new Set(["MaxRetriesPerRequestError", "ClusterAllFailedError"]);

/** Whether a failure is Redis being unreachable for now (503), as opposed to a fault to fix (500). */
export function isRedisUnavailable(error: unknown): boolean {
  if (error instanceof ReplyError) return TRANSIENT_REPLY.test((error as Error).message);
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return UNREACHABLE_NAMES.has(error.name) || UNREACHABLE.test(error.message) || (typeof code === "string" && /^E[A-Z]+$/.test(code));
}

/**
 * Runs a store operation: Redis unreachable becomes DependencyUnavailableError (503, retry later);
 * anything else (a command Redis refuses, a record or script reply we cannot read) DependencyFaultError.
 */
async function guard<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isRedisUnavailable(error)) throw new DependencyUnavailableError("store", { cause: error });
    throw new DependencyFaultError("store", `Redis: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
