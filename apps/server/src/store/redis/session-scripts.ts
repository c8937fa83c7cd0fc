/**
 * The store's Lua scripts, one definition each: a header naming every KEYS[i] and ARGV[i] and what the
 * script returns, and the builders that turn named arguments into them, so callers never line up 9
 * positional values. Each script runs atomically in Redis; every key it touches is one account's (one
 * hash tag) or one shard's, so they run on Redis Cluster too. The number of keys is passed per call.
 *
 * Idempotency records are small strings, written by keys.ts (idempotencyRecord, which says what each
 * state holds) and read by beginCreate here alike.
 */
import type { Cluster, Redis } from "ioredis";
import type { OutboundEvent } from "../../domain/customer-webhooks/ports.js";
import { eventArgv, RECORD_EVENTS, WEBHOOK_SCRIPTS } from "./customer-webhook-scripts.js";
import { type Script, script } from "./script.js";

/** The usage counters a change adds to: the day's hash, `field=n` pairs, and how long the hash is kept. */
interface UsageKeys {
  usage: string;
  increments: string;
  usageTtlMs: number;
}

/**
 * Adds `field=n` increments (space-separated) to a day's usage counters and keeps them their retention.
 * Nothing when there are none.
 */
const COUNT_USAGE = `
local function count_usage(key, increments, ttl)
  if increments == '' then return end
  for field, n in string.gmatch(increments, '(%S+)=(%d+)') do redis.call('HINCRBY', key, field, n) end
  redis.call('PEXPIRE', key, ttl)
end
`;

/** The keys the session scripts pass to RECORD_EVENTS: routes, due, pending, then one per event. */
interface EventKeys {
  routes: string;
  dueDeliveries: string;
  pendingDeliveries: string;
  eventKeys: string[];
  events: readonly OutboundEvent[];
}

const SESSION_SCRIPTS = {
  beginCreate: script<
    {
      record: string;
      created: string;
      active: string;
      claims: string;
      fingerprint: string;
      lockTtlMs: number;
      maxOpen: number;
      nowMs: number;
      lock: string;
      sessionId: string;
    },
    [string, (string | number)?]
  >({
    lua: `
-- Claims an idempotency key for a create, or tells what an earlier request with it left; refuses a new
-- create when the account has as many sessions open (created, active, or being created) as it may. A
-- create that failed left its session id ('a' record): a retry with the same body continues it.
-- KEYS[1] the idempotency record, KEYS[2] the index of created sessions, KEYS[3] of active ones,
-- KEYS[4] the creates in flight (locks by expiry, ms)
-- ARGV[1] this request's fingerprint, ARGV[2] the lock's TTL (ms), ARGV[3] the most open sessions,
-- ARGV[4] now (ms), ARGV[5] this request's lock, ARGV[6] the session id for a new create
-- Returns {'acquired', session id}, {'reused'} (another body), {'in_progress'}, {'replay', session id},
-- or {'limit', open}.
local session_id = ARGV[6]
local record = redis.call('GET', KEYS[1])
if record then
  local state, print = string.match(record, '^(%a)|([^|]+)|')
  local rest = string.match(record, '([^|]+)$')
  if state == 'a' then
    if print == ARGV[1] then session_id = rest end
  else
    if print ~= ARGV[1] then return {'reused'} end
    if state == 'p' then return {'in_progress'} end
    return {'replay', rest}
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[4])
local open = redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3]) + redis.call('ZCARD', KEYS[4])
if open >= tonumber(ARGV[3]) then return {'limit', open} end
redis.call('SET', KEYS[1], 'p|' .. ARGV[1] .. '|' .. ARGV[5] .. '|' .. session_id, 'PX', ARGV[2])
redis.call('ZADD', KEYS[4], tonumber(ARGV[4]) + tonumber(ARGV[2]), ARGV[5])
return {'acquired', session_id}
`,
    keys: (a) => [a.record, a.created, a.active, a.claims],
    argv: (a) => [a.fingerprint, a.lockTtlMs, a.maxOpen, a.nowMs, a.lock, a.sessionId],
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
      claims: string;
      lock: string;
    } & UsageKeys &
      EventKeys,
    [number, number]
  >({
    lua: `${RECORD_EVENTS}${COUNT_USAGE}
-- Stores a new session and marks its idempotency key done, if the key is still this request's, counts
-- it in the account's usage and records the events of its creation for the account's webhook endpoints.
-- Its create is no longer in flight either way.
-- KEYS[1] the idempotency record, KEYS[2] the session, KEYS[3] the index of its status,
-- KEYS[4] the creates in flight, KEYS[5] the usage counters of the day, KEYS[6..] what record_events reads
-- ARGV[1] this request's pending record, ARGV[2] the done record, ARGV[3] the key's TTL (ms),
-- ARGV[4] the session's JSON, ARGV[5] its creation time (ms, the index score), ARGV[6] its id,
-- ARGV[7] this request's lock, ARGV[8] the usage increments ('field=n' space-separated, or ''),
-- ARGV[9] the usage counters' TTL (ms), ARGV[10..] what record_events reads
-- Returns { 1, deliveries recorded } when written, { 0, 0 } when another request holds the key (nothing
-- is written then).
redis.call('ZREM', KEYS[4], ARGV[7])
local record = redis.call('GET', KEYS[1])
if record and record ~= ARGV[1] then return { 0, 0 } end
redis.call('SET', KEYS[2], ARGV[4])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
count_usage(KEYS[5], ARGV[8], ARGV[9])
return { 1, record_events(6, 10) }
`,
    keys: (a) => [a.record, a.session, a.index, a.claims, a.usage, a.routes, a.dueDeliveries, a.pendingDeliveries, ...a.eventKeys],
    argv: (a) => [a.pending, a.done, a.keyTtlMs, a.json, a.score, a.id, a.lock, a.increments, a.usageTtlMs, ...eventArgv(a.events)],
  }),

  abandonCreate: script<{ record: string; claims: string; pending: string; lock: string; abandoned: string; keepMs: number }, number>({
    lua: `
-- Releases this request's claim on an idempotency key, so the key can be used again, and its place
-- among the account's open sessions; the record keeps the session id it was creating.
-- KEYS[1] the idempotency record, KEYS[2] the creates in flight
-- ARGV[1] this request's pending record, ARGV[2] its lock, ARGV[3] the record of the failed create,
-- ARGV[4] how long it is kept (ms)
-- Returns 1 when released, 0 when the key holds something else (another request's, or done).
redis.call('ZREM', KEYS[2], ARGV[2])
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
  return 1
end
return 0
`,
    keys: (a) => [a.record, a.claims],
    argv: (a) => [a.pending, a.lock, a.abandoned, a.keepMs],
  }),

  replaceSession: script<
    {
      session: string;
      fromIndex: string;
      toIndex: string;
      version: string;
      json: string;
      id: string;
      score: number;
      expiresAtMs: number | "";
      nowMs: number;
    } & UsageKeys &
      EventKeys,
    [number, number]
  >({
    lua: `${RECORD_EVENTS}${COUNT_USAGE}
-- Compare-and-set of a session, moving it between the indexes of its account when its status changed,
-- counting the change in the account's usage and recording the events it causes for the account's
-- webhook endpoints. An ended session expires when its retention ends, and so does the index it is
-- listed in once the last session in it has.
-- KEYS[1] the session, KEYS[2] the index of its old status, KEYS[3] the index of its new status,
-- KEYS[4] the usage counters of the day, KEYS[5..] what record_events reads
-- ARGV[1] the JSON it was read as (its version), ARGV[2] the new JSON, ARGV[3] its id,
-- ARGV[4] its creation time (ms, the index score), ARGV[5] the usage increments ('field=n'
-- space-separated, or ''), ARGV[6] the usage counters' TTL (ms), ARGV[7] when it expires (ms since the
-- epoch; '' while it is open), ARGV[8] now (ms), ARGV[9..] what record_events reads
-- Returns { 1, deliveries recorded } when replaced, { 0, 0 } when another writer got there first.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return { 0, 0 } end
if ARGV[7] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[7])
end
if KEYS[2] ~= KEYS[3] then
  redis.call('ZREM', KEYS[2], ARGV[3])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
end
if ARGV[7] ~= '' then
  local ttl = redis.call('PTTL', KEYS[3])
  if ttl < 0 or tonumber(ARGV[8]) + ttl < tonumber(ARGV[7]) then redis.call('PEXPIREAT', KEYS[3], ARGV[7]) end
end
count_usage(KEYS[4], ARGV[5], ARGV[6])
return { 1, record_events(5, 9) }
`,
    keys: (a) => [a.session, a.fromIndex, a.toIndex, a.usage, a.routes, a.dueDeliveries, a.pendingDeliveries, ...a.eventKeys],
    argv: (a) => [a.version, a.json, a.id, a.score, a.increments, a.usageTtlMs, a.expiresAtMs, a.nowMs, ...eventArgv(a.events)],
  }),

  claimDue: script<{ set: string; nowMs: number; leaseUntilMs: number; max: number }, string[]>({
    lua: `
-- Claims up to ARGV[3] members due by ARGV[1]: each is pushed to ARGV[2], the end of this claim's lease,
-- so no other replica takes it meanwhile, and a claim whose holder died is due again after it. Serves
-- the session timers and the accounts with webhook deliveries due.
-- KEYS[1] a sorted set of members by due time (ms): 'account|session|timer', or account ids
-- ARGV[1] now (ms), ARGV[2] the lease's end (ms), ARGV[3] the most to claim
-- Returns the claimed members.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
return due
`,
    keys: (a) => [a.set],
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

  acquireLease: script<{ lease: string; holder: string; ttlMs: number }, number>({
    lua: `
-- Takes a lease for ARGV[2] ms unless another holder has it; its holder renews it.
-- KEYS[1] the lease
-- ARGV[1] the holder, ARGV[2] the TTL (ms)
-- Returns 1 when this holder has it now, 0 when another does.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`,
    keys: (a) => [a.lease],
    argv: (a) => [a.holder, a.ttlMs],
  }),
};

export const SCRIPTS = { ...SESSION_SCRIPTS, ...WEBHOOK_SCRIPTS };

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
