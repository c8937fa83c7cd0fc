/**
 * The session store on Redis (or Redis Cluster). Each step of an idempotent create is one Lua script, so
 * concurrent requests and replicas cannot interleave inside it: begin (claim or inspect the key),
 * complete (store the session and mark the key done, only while the lock is ours) and abandon (release
 * our lock). Connection failures and timeouts become DependencyUnavailableError (503); Redis replies
 * that reveal a bug stay errors (500).
 */
import { type Cluster, type Redis, ReplyError } from "ioredis";
import type { BeginOutcome } from "../domain/idempotency.js";
import { DependencyUnavailableError, type SessionStore } from "../domain/ports.js";
import type { SessionRecord } from "../domain/session.js";
import { idempotencyRecord, keys } from "./keys.js";

const BEGIN = `
local record = redis.call('GET', KEYS[1])
if not record then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return {'acquired'}
end
local state, print, rest = string.match(record, '^(%a)|(%x+)|(.+)$')
if print ~= ARGV[1] then return {'reused'} end
if state == 'p' then return {'in_progress'} end
return {'replay', rest}
`;

const COMPLETE = `
local record = redis.call('GET', KEYS[1])
if record and record ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[4])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;

const ABANDON = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

// Replies that mean "not now" rather than "wrong": the server is loading, failing over or read-only.
const TRANSIENT_REPLY = /^(LOADING|BUSY|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|MOVED|ASK)\b/;

type Scripted = {
  dhsBegin(idem: string, print: string, pending: string, lockTtlMs: number): Promise<[string, string?]>;
  dhsComplete(idem: string, session: string, pending: string, done: string, keyTtlMs: number, json: string): Promise<number>;
  dhsAbandon(idem: string, pending: string): Promise<number>;
};

export class RedisSessionStore implements SessionStore {
  private readonly redis: (Redis | Cluster) & Scripted;

  constructor(redis: Redis | Cluster) {
    redis.defineCommand("dhsBegin", { numberOfKeys: 1, lua: BEGIN });
    redis.defineCommand("dhsComplete", { numberOfKeys: 2, lua: COMPLETE });
    redis.defineCommand("dhsAbandon", { numberOfKeys: 1, lua: ABANDON });
    this.redis = redis as (Redis | Cluster) & Scripted;
  }

  beginCreate(accountId: string, idempotencyKey: string, print: string, lockTtlMs: number): Promise<BeginOutcome> {
    const lock = crypto.randomUUID();
    return guard(async () => {
      const [kind, sessionId] = await this.redis.dhsBegin(
        keys.idempotency(accountId, idempotencyKey),
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
        keys.idempotency(session.account_id, idempotencyKey),
        keys.session(session.account_id, session.id),
        idempotencyRecord.pending(print, lock),
        idempotencyRecord.done(print, session.id),
        keyTtlMs,
        JSON.stringify(session),
      );
      return written === 1;
    });
  }

  abandonCreate(accountId: string, idempotencyKey: string, print: string, lock: string): Promise<void> {
    return guard(async () => {
      await this.redis.dhsAbandon(keys.idempotency(accountId, idempotencyKey), idempotencyRecord.pending(print, lock));
    });
  }

  getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined> {
    return guard(async () => {
      const json = await this.redis.get(keys.session(accountId, sessionId));
      return json === null ? undefined : (JSON.parse(json) as SessionRecord);
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

async function guard<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ReplyError && !TRANSIENT_REPLY.test((error as Error).message)) throw error;
    throw new DependencyUnavailableError("store", { cause: error });
  }
}
