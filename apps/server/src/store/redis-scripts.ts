/**
 * The store's Lua scripts, one definition each: a header naming every KEYS[i] and ARGV[i] and what the
 * script returns, and the builders that turn named arguments into them, so callers never line up 9
 * positional values. Each script runs atomically in Redis; every key it touches is one account's (one
 * hash tag) or the timers set, so they run on Redis Cluster too. The number of keys is passed per call.
 *
 * Idempotency records are `p|<fingerprint>|<lock>` while the first request runs and
 * `d|<fingerprint>|<session id>` once it is done (keys.ts writes them, begin-create reads them here).
 */
import type { Cluster, Redis } from "ioredis";

interface Script<Args, Reply> {
  lua: string;
  keys(args: Args): string[];
  argv(args: Args): (string | number)[];
  /** Phantom: the reply's type, for callers. */
  readonly reply?: Reply;
}

const script = <Args, Reply>(definition: Script<Args, Reply>): Script<Args, Reply> => definition;

export const SCRIPTS = {
  beginCreate: script<{ record: string; fingerprint: string; pending: string; lockTtlMs: number }, [string, string?]>({
    lua: `
-- Claims an idempotency key for a create, or tells what an earlier request with it left.
-- KEYS[1] the idempotency record
-- ARGV[1] this request's fingerprint, ARGV[2] the pending record to write, ARGV[3] its TTL (ms)
-- Returns {'acquired'}, {'reused'} (another body), {'in_progress'}, or {'replay', session id}.
local record = redis.call('GET', KEYS[1])
if not record then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return {'acquired'}
end
local state, print, rest = string.match(record, '^(%a)|([^|]+)|(.+)$')
if print ~= ARGV[1] then return {'reused'} end
if state == 'p' then return {'in_progress'} end
return {'replay', rest}
`,
    keys: (a) => [a.record],
    argv: (a) => [a.fingerprint, a.pending, a.lockTtlMs],
  }),

  completeCreate: script<
    {
      record: string;
      session: string;
      index: string;
      pending: string;
      done: string;
      keyTtlMs: number;
      json: string;
      score: number;
      id: string;
    },
    number
  >({
    lua: `
-- Stores a new session and marks its idempotency key done, if the key is still this request's.
-- KEYS[1] the idempotency record, KEYS[2] the session, KEYS[3] the index of its status
-- ARGV[1] this request's pending record, ARGV[2] the done record, ARGV[3] the key's TTL (ms),
-- ARGV[4] the session's JSON, ARGV[5] its creation time (ms, the index score), ARGV[6] its id
-- Returns 1 when written, 0 when another request holds the key (nothing is written then).
local record = redis.call('GET', KEYS[1])
if record and record ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[4])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
return 1
`,
    keys: (a) => [a.record, a.session, a.index],
    argv: (a) => [a.pending, a.done, a.keyTtlMs, a.json, a.score, a.id],
  }),

  abandonCreate: script<{ record: string; pending: string }, number>({
    lua: `
-- Releases this request's claim on an idempotency key, so the key can be used again.
-- KEYS[1] the idempotency record
-- ARGV[1] this request's pending record
-- Returns 1 when released, 0 when the key holds something else (another request's, or done).
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`,
    keys: (a) => [a.record],
    argv: (a) => [a.pending],
  }),

  replaceSession: script<
    { session: string; fromIndex: string; toIndex: string; version: string; json: string; id: string; score: number },
    number
  >({
    lua: `
-- Compare-and-set of a session, moving it between the per-status indexes when its status changed.
-- KEYS[1] the session, KEYS[2] the index of its old status, KEYS[3] the index of its new status
-- ARGV[1] the JSON it was read as (its version), ARGV[2] the new JSON, ARGV[3] its id,
-- ARGV[4] its creation time (ms, the index score)
-- Returns 1 when replaced, 0 when another writer got there first.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
if KEYS[2] ~= KEYS[3] then
  redis.call('ZREM', KEYS[2], ARGV[3])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
end
return 1
`,
    keys: (a) => [a.session, a.fromIndex, a.toIndex],
    argv: (a) => [a.version, a.json, a.id, a.score],
  }),

  deleteSession: script<{ session: string; indexes: string[]; id: string }, number>({
    lua: `
-- Deletes a session and its entry in every per-status index of its account.
-- KEYS[1] the session, KEYS[2..n] the account's per-status indexes
-- ARGV[1] the session's id
-- Returns 1.
redis.call('DEL', KEYS[1])
for i = 2, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
return 1
`,
    keys: (a) => [a.session, ...a.indexes],
    argv: (a) => [a.id],
  }),

  claimTimers: script<{ timers: string; nowMs: number; leaseUntilMs: number; max: number }, string[]>({
    lua: `
-- Claims up to ARGV[3] timers due by ARGV[1]: each is pushed to ARGV[2], the end of this claim's lease,
-- so no other replica takes it meanwhile, and a claim whose holder died is due again after it.
-- KEYS[1] the timers (a sorted set of 'account|session|timer' by due time, ms)
-- ARGV[1] now (ms), ARGV[2] the lease's end (ms), ARGV[3] the most to claim
-- Returns the claimed members.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
return due
`,
    keys: (a) => [a.timers],
    argv: (a) => [a.nowMs, a.leaseUntilMs, a.max],
  }),

  completeTimer: script<{ timers: string; member: string; claimedUntil: number }, number>({
    lua: `
-- Marks a claimed timer done: removes it, unless it was scheduled again while it fired (its score is
-- then another time than the claim's lease end).
-- KEYS[1] the timers
-- ARGV[1] the member, ARGV[2] the claim's lease end (ms)
-- Returns 1 when removed, 0 when it was scheduled again (or is gone).
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1])) == tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
`,
    keys: (a) => [a.timers],
    argv: (a) => [a.member, a.claimedUntil],
  }),
};

export type ScriptName = keyof typeof SCRIPTS;
type ArgsOf<N extends ScriptName> = (typeof SCRIPTS)[N] extends Script<infer Args, unknown> ? Args : never;
type ReplyOf<N extends ScriptName> = (typeof SCRIPTS)[N] extends Script<unknown, infer Reply> ? Reply : never;

type Invoke = (numberOfKeys: number, ...keysThenArgs: (string | number)[]) => Promise<unknown>;

/** The scripts registered on one ioredis client (EVALSHA, falling back to EVAL), called by name. */
export class RedisScripts {
  constructor(private readonly redis: Redis | Cluster) {
    for (const [name, { lua }] of Object.entries(SCRIPTS)) redis.defineCommand(commandOf(name), { lua });
  }

  run<N extends ScriptName>(name: N, args: ArgsOf<N>): Promise<ReplyOf<N>> {
    const definition = SCRIPTS[name] as unknown as Script<ArgsOf<N>, ReplyOf<N>>;
    const keys = definition.keys(args);
    const invoke = (this.redis as unknown as Record<string, Invoke>)[commandOf(name)] as Invoke;
    return invoke.call(this.redis, keys.length, ...keys, ...definition.argv(args)) as Promise<ReplyOf<N>>;
  }
}

const commandOf = (name: string) => `dhs_${name}`;
