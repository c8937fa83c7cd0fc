/**
 * The Lua of an account's places among its open sessions (what its concurrency cap counts, exactly), in
 * the account's slot: a create holds one (reserve) and is admitted once its session is stored, or gives it
 * back (unreserve); an ended session gives its back (settle). Admission and settlement count the usage
 * on the way. How these steps follow the ones in a session's shard is open-sessions.ts's to say.
 */
import { script } from "../script.js";

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

export const OPEN_SESSION_SCRIPTS = {
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
};
