/**
 * The store's Lua scripts, one definition each: a header naming every KEYS[i] and ARGV[i] and what the
 * script returns, and the builders that turn named arguments into them, so callers never line up 9
 * positional values. Each script runs atomically in Redis on the keys of one slot: a shard's (a session,
 * its timers, the Idempotency-Key that created it, the deliveries it causes), an account's (its open
 * sessions and creates in flight, its usage), or an account's day's (its ended sessions' index). How a
 * create and a session's end step across those slots is session-store.ts's to say.
 *
 * Idempotency records are small strings, written by keys.ts (idempotencyRecord, which says what each
 * state holds) and read by beginCreate here alike.
 */
import type { Cluster, Redis } from "ioredis";
import type { OutboundEvent } from "../../domain/customer-webhooks/ports.js";
import { NO_TRACING, type Tracing } from "../../tracing/tracing.js";
import { eventArgv, RECORD_EVENTS, WEBHOOK_SCRIPTS } from "./customer-webhook-scripts.js";
import { type Script, script } from "./script.js";

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

/** The keys and arguments the session scripts pass to RECORD_EVENTS. */
interface EventKeys {
  /** The account's due and pending deliveries in the session's shard, and the shard's accounts due. */
  dueDeliveries: string;
  pendingDeliveries: string;
  accountsDue: string;
  eventKeys: string[];
  accountId: string;
  routes: Readonly<Record<string, string>>;
  events: readonly OutboundEvent[];
}

const eventKeys = (a: EventKeys) => [a.dueDeliveries, a.pendingDeliveries, a.accountsDue, ...a.eventKeys];

const SESSION_SCRIPTS = {
  beginCreate: script<
    { record: string; fingerprint: string; lockTtlMs: number; nowMs: number; lock: string; sessionId: string; keyTtlMs: number },
    [string, (string | number)?, (string | number)?]
  >({
    lua: `
-- Claims an idempotency key for a create, or tells what an earlier request with it left. A create that
-- failed ('a') or whose lock expired (it crashed) left its session id: a retry with the same body
-- continues it; another body starts its own.
-- KEYS[1] the idempotency record
-- ARGV[1] this request's fingerprint, ARGV[2] the lock's TTL (ms), ARGV[3] now (ms), ARGV[4] this
-- request's lock, ARGV[5] the session id for a new create, ARGV[6] how long the key is kept (ms)
-- Returns {'acquired', session id, the lock's expiry (ms)}, {'reused'} (another body), {'in_progress'},
-- or {'replay', session id}.
local session_id = ARGV[5]
local now = tonumber(ARGV[3])
local record = redis.call('GET', KEYS[1])
if record then
  local state, print = string.match(record, '^(%a)|([^|]+)|')
  local rest = string.match(record, '([^|]+)$')
  local over = state == 'a'
  if state == 'p' then over = tonumber(string.match(record, '^p|[^|]+|[^|]+|(%d+)|')) <= now end
  if over then
    if print == ARGV[1] then session_id = rest end
  else
    if print ~= ARGV[1] then return {'reused'} end
    if state == 'p' then return {'in_progress'} end
    return {'replay', rest}
  end
end
local expiry = now + tonumber(ARGV[2])
redis.call('SET', KEYS[1], 'p|' .. ARGV[1] .. '|' .. ARGV[4] .. '|' .. expiry .. '|' .. session_id, 'PX', ARGV[6])
return {'acquired', session_id, expiry}
`,
    keys: (a) => [a.record],
    argv: (a) => [a.fingerprint, a.lockTtlMs, a.nowMs, a.lock, a.sessionId, a.keyTtlMs],
  }),

  reserve: script<
    {
      open: string;
      claims: string;
      routes: string;
      days: string;
      sessionId: string;
      createdMs: number;
      claimExpiryMs: number;
      maxOpen: number;
      day: string;
      dayStartMs: number;
    },
    [number, number, ...string[]]
  >({
    lua: `
-- Holds a place among the account's open sessions for a create, unless the account has as many open
-- (created, active, or being created) as it may; a place the session already holds is kept, its claim
-- renewed, and the day of its creation is among the account's days. Reads the account's webhook routes on
-- the way (the create records its events with them).
-- KEYS[1] the open sessions, KEYS[2] the creates in flight, KEYS[3] the webhook routes, KEYS[4] the days
-- ARGV[1] the session id, ARGV[2] its creation time (ms), ARGV[3] when the claim expires (ms),
-- ARGV[4] the most open sessions, ARGV[5] its creation day (YYYY-MM-DD), ARGV[6] that day's start (ms)
-- Returns {1 (held) or 0 (at the cap), open sessions, route endpoint, route types, ...}.
local routes = redis.call('HGETALL', KEYS[3])
local held = redis.call('ZSCORE', KEYS[1], ARGV[1])
local open = redis.call('ZCARD', KEYS[1])
if not held then
  if open >= tonumber(ARGV[4]) then return {0, open} end
  open = open + 1
end
if not held or redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
redis.call('ZADD', KEYS[4], ARGV[6], ARGV[5])
local reply = {1, open}
for _, value in ipairs(routes) do reply[#reply + 1] = value end
return reply
`,
    keys: (a) => [a.open, a.claims, a.routes, a.days],
    argv: (a) => [a.sessionId, a.createdMs, a.claimExpiryMs, a.maxOpen, a.day, a.dayStartMs],
  }),

  unreserve: script<{ open: string; claims: string; sessionId: string; claimExpiryMs: number }, number>({
    lua: `
-- Gives back the place a create held, if its claim is still the one it made or found expired (another
-- request may have taken over the same session since): a create that failed, or one that died before
-- storing its session.
-- KEYS[1] the open sessions, KEYS[2] the creates in flight
-- ARGV[1] the session id, ARGV[2] the claim's expiry (ms) as made
-- Returns 1 when given back, 0 otherwise.
if tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1])) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`,
    keys: (a) => [a.open, a.claims],
    argv: (a) => [a.sessionId, a.claimExpiryMs],
  }),

  completeCreate: script<
    {
      record: string;
      session: string;
      pending: string;
      done: string;
      keyTtlMs: number;
      json: string;
      nowMs: number;
      lockExpiryMs: number;
    } & EventKeys,
    [number, number]
  >({
    lua: `${RECORD_EVENTS}
-- Stores a new session and marks its idempotency key done, if the key is still this request's and its
-- lock has not expired (a create past it gives up: its place may have been given back), and records the
-- events of its creation for the account's webhook endpoints.
-- KEYS[1] the idempotency record, KEYS[2] the session, KEYS[3..] what record_events reads
-- ARGV[1] this request's pending record, ARGV[2] the done record, ARGV[3] the key's TTL (ms),
-- ARGV[4] the session's JSON, ARGV[5] now (ms), ARGV[6] the lock's expiry (ms), ARGV[7..] what
-- record_events reads
-- Returns { 1, deliveries recorded } when written, { 0, 0 } when the key is no longer this request's.
if redis.call('GET', KEYS[1]) ~= ARGV[1] or tonumber(ARGV[5]) >= tonumber(ARGV[6]) then return { 0, 0 } end
if not redis.call('SET', KEYS[2], ARGV[4], 'NX') then return { 0, 0 } end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return { 1, record_events(3, 7) }
`,
    keys: (a) => [a.record, a.session, ...eventKeys(a)],
    argv: (a) => [a.pending, a.done, a.keyTtlMs, a.json, a.nowMs, a.lockExpiryMs, ...eventArgv(a.accountId, a.routes, a.events)],
  }),

  abandonCreate: script<{ record: string; pending: string; abandoned: string; keepMs: number }, number>({
    lua: `
-- Releases this request's claim on an idempotency key, so the key can be used again; the record keeps
-- the session id it was creating.
-- KEYS[1] the idempotency record
-- ARGV[1] this request's pending record, ARGV[2] the record of the failed create, ARGV[3] how long it is
-- kept (ms)
-- Returns 1 when released, 0 when the key holds something else (another request's, or done).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
`,
    keys: (a) => [a.record],
    argv: (a) => [a.pending, a.abandoned, a.keepMs],
  }),

  admit: script<{ claims: string; usage: string; sessionId: string; increments: string; usageTtlMs: number }, number>({
    lua: `${COUNT_USAGE}
-- A create's session is stored: it is no longer in flight (its place in the open sessions stays), and
-- the account's usage counts it, once.
-- KEYS[1] the creates in flight, KEYS[2] the usage counters of its creation day
-- ARGV[1] the session id, ARGV[2] the usage increments ('field=n' space-separated), ARGV[3] their TTL (ms)
-- Returns 1 when admitted now, 0 when it was already.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
count_usage(KEYS[2], ARGV[2], ARGV[3])
return 1
`,
    keys: (a) => [a.claims, a.usage],
    argv: (a) => [a.sessionId, a.increments, a.usageTtlMs],
  }),

  settle: script<
    {
      open: string;
      claims: string;
      endedUsage: string;
      createdUsage: string;
      sessionId: string;
      endedIncrements: string;
      createdIncrements: string;
      usageTtlMs: number;
    },
    number
  >({
    lua: `${COUNT_USAGE}
-- An ended session gives back its place among the account's open sessions, and the account's usage
-- counts its end, once (and its creation, if its admission was lost to a crash).
-- KEYS[1] the open sessions, KEYS[2] the creates in flight, KEYS[3] the usage counters of its end's day,
-- KEYS[4] those of its creation's day
-- ARGV[1] the session id, ARGV[2] the end's increments, ARGV[3] the creation's, ARGV[4] their TTL (ms)
-- Returns 1 when settled now, 0 when it was already.
if redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then count_usage(KEYS[4], ARGV[3], ARGV[4]) end
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
count_usage(KEYS[3], ARGV[2], ARGV[4])
return 1
`,
    keys: (a) => [a.open, a.claims, a.endedUsage, a.createdUsage],
    argv: (a) => [a.sessionId, a.endedIncrements, a.createdIncrements, a.usageTtlMs],
  }),

  replaceSession: script<
    {
      session: string;
      ended: string;
      timers: string;
      livekitEvent: string;
      version: string;
      json: string;
      id: string;
      createdMs: number;
      expiresAtMs: number | "";
      nowMs: number;
      livekitEventTtlMs: number | "";
      cancel: readonly string[];
      schedule: readonly (string | number)[];
    } & EventKeys,
    [number, number]
  >({
    lua: `${RECORD_EVENTS}
-- Compare-and-set of a session with what changes with it: its timers, the LiveKit event that changed it,
-- the events it causes for the account's webhook endpoints. An ended session expires when its retention
-- ends, and is listed in its account's index of ended sessions of its shard and creation day, which
-- expires with the last session in it.
-- KEYS[1] the session, KEYS[2] the index of ended sessions, KEYS[3] its shard's timers, KEYS[4] the
-- LiveKit event's mark, KEYS[5..] what record_events reads
-- ARGV[1] the JSON it was read as (its version), ARGV[2] the new JSON, ARGV[3] its id, ARGV[4] its
-- creation time (ms, the index score), ARGV[5] when it expires (ms since the epoch; '' while it is
-- open), ARGV[6] now (ms), ARGV[7] how long the LiveKit event is remembered (ms; '' for none),
-- ARGV[8] n, ARGV[9..8+n] timer members to cancel, ARGV[9+n] m, then m (due ms, member) pairs to
-- schedule, then what record_events reads
-- Returns { 1, deliveries recorded } when replaced, { 0, 0 } when another writer got there first.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return { 0, 0 } end
if ARGV[5] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[5])
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
  local ttl = redis.call('PTTL', KEYS[2])
  if ttl < 0 or tonumber(ARGV[6]) + ttl < tonumber(ARGV[5]) then redis.call('PEXPIREAT', KEYS[2], ARGV[5]) end
end
if ARGV[7] ~= '' then redis.call('SET', KEYS[4], '1', 'PX', ARGV[7]) end
local n = tonumber(ARGV[8])
if n > 0 then redis.call('ZREM', KEYS[3], unpack(ARGV, 9, 8 + n)) end
local m = tonumber(ARGV[9 + n])
if m > 0 then redis.call('ZADD', KEYS[3], unpack(ARGV, 10 + n, 9 + n + 2 * m)) end
return { 1, record_events(5, 10 + n + 2 * m) }
`,
    keys: (a) => [a.session, a.ended, a.timers, a.livekitEvent, ...eventKeys(a)],
    argv: (a) => [
      a.version,
      a.json,
      a.id,
      a.createdMs,
      a.expiresAtMs,
      a.nowMs,
      a.livekitEventTtlMs,
      a.cancel.length,
      ...a.cancel,
      a.schedule.length / 2,
      ...a.schedule,
      ...eventArgv(a.accountId, a.routes, a.events),
    ],
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

/**
 * The scripts registered on one ioredis client (EVALSHA, falling back to EVAL), called by name. With
 * tracing on, each call within a trace is a span named by its script (Redis itself only sees EVALSHA and a
 * hash); its keys and arguments are not recorded.
 */
export class RedisScripts {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly tracing: Tracing = NO_TRACING,
  ) {
    for (const [name, { lua }] of Object.entries(SCRIPTS)) redis.defineCommand(commandOf(name), { lua });
  }

  run<N extends ScriptName>(name: N, args: ArgsOf<N>): Promise<ReplyOf<N>> {
    if (!this.tracing.enabled) return this.invoke(name, args);
    return this.tracing.span(`redis ${name}`, { "db.system.name": "redis", "db.operation.name": name }, () => this.invoke(name, args), {
      kind: "client",
      withinTrace: true,
    });
  }

  private invoke<N extends ScriptName>(name: N, args: ArgsOf<N>): Promise<ReplyOf<N>> {
    const definition = SCRIPTS[name] as unknown as Script<ArgsOf<N>, ReplyOf<N>>;
    const keys = definition.keys(args);
    const invoke = (this.redis as unknown as Record<string, Invoke>)[commandOf(name)] as Invoke;
    return invoke.call(this.redis, keys.length, ...keys, ...definition.argv(args)) as Promise<ReplyOf<N>>;
  }
}

const commandOf = (name: string) => `dhs_${name}`;
