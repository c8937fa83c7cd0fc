/**
 * The Lua of the history queue (HistoryQueue): claiming what is due, completing what was written, giving
 * back what was not, setting aside what the database refused and reading the backlog. Each runs in one
 * shard's slot, on its queue, the queue's `since` set (how long a claimed session has waited: a claim
 * re-dates it in the queue) and its set-aside sessions.
 */
import { script } from "../script.js";

export const HISTORY_QUEUE_SCRIPTS = {
  claimHistory: script<{ queue: string; since: string; nowMs: number; leaseUntilMs: number; max: number }, string[]>({
    lua: `
-- Claims up to ARGV[3] sessions due by ARGV[1]: each is pushed to ARGV[2], the end of this claim's lease,
-- so no other replica takes it meanwhile; the time it was first due is kept in the since set.
-- KEYS[1] the queue, KEYS[2] its since set
-- ARGV[1] now (ms), ARGV[2] the lease's end (ms), ARGV[3] the most to claim
-- Returns the claimed session ids.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[3])
local ids = {}
for i = 1, #due, 2 do
  redis.call('ZADD', KEYS[2], 'NX', due[i + 1], due[i])
  redis.call('ZADD', KEYS[1], ARGV[2], due[i])
  ids[#ids + 1] = due[i]
end
return ids
`,
    keys: (a) => [a.queue, a.since],
    argv: (a) => [a.nowMs, a.leaseUntilMs, a.max],
  }),

  completeHistory: script<
    {
      queue: string;
      since: string;
      aside: string;
      timers: string;
      written: readonly {
        session: string;
        ended: string;
        transcript: string;
        transcriptOrder: string;
        id: string;
        claim: string;
        roomDeletion: string;
      }[];
      keepMs: number;
    },
    number
  >({
    lua: `
-- Takes written sessions off their shard's queue, unless one changed since its claim (its score is then
-- another time than the claim's lease end, and it is written again); each is also taken out of its
-- account's index of ended sessions (reads now find it in the history) and kept ARGV[1] ms more at most
-- with its transcript, unless its room's deletion is still owed (that obligation reads it: it keeps its
-- retention then).
-- KEYS[1] the queue, KEYS[2] its since set, KEYS[3] its set-aside sessions, KEYS[4] the shard's timers,
-- then per session its key, its index of ended sessions and its transcript's two keys
-- ARGV[1] how long to keep it (ms), then per session its id, its claim's lease end (ms) and its
-- room_deletion timer's member
-- Returns how many were taken off.
local done = 0
for i = 2, #ARGV, 3 do
  local k = 5 + 4 * ((i - 2) / 3)
  local id, session, ended = ARGV[i], KEYS[k], KEYS[k + 1]
  if tonumber(redis.call('ZSCORE', KEYS[1], id)) == tonumber(ARGV[i + 1]) then
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
    redis.call('ZREM', ended, id)
    local ttl = redis.call('PTTL', session)
    local owed = redis.call('ZSCORE', KEYS[4], ARGV[i + 2])
    if not owed and (ttl == -1 or ttl > tonumber(ARGV[1])) then
      redis.call('PEXPIRE', session, ARGV[1])
      for t = k + 2, k + 3 do
        local left = redis.call('PTTL', KEYS[t])
        if left == -1 or left > tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[t], ARGV[1]) end
      end
    end
    done = done + 1
  end
end
return done
`,
    keys: (a) => [a.queue, a.since, a.aside, a.timers, ...a.written.flatMap((w) => [w.session, w.ended, w.transcript, w.transcriptOrder])],
    argv: (a) => [a.keepMs, ...a.written.flatMap((w) => [w.id, w.claim, w.roomDeletion])],
  }),

  releaseHistory: script<{ queue: string; claims: readonly { id: string; claim: string }[]; atMs: number }, number>({
    lua: `
-- Gives claimed sessions back to the queue, due at ARGV[1] (a write that failed: they are retried then,
-- not when the lease ends), unless one changed since its claim (it is due already).
-- KEYS[1] the queue
-- ARGV[1] when they are due again (ms), then per session its id and its claim's lease end (ms)
-- Returns how many were given back.
local n = 0
for i = 2, #ARGV, 2 do
  if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[i])) == tonumber(ARGV[i + 1]) then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i])
    n = n + 1
  end
end
return n
`,
    keys: (a) => [a.queue],
    argv: (a) => [a.atMs, ...a.claims.flatMap((c) => [c.id, c.claim])],
  }),

  setAsideHistory: script<
    { queue: string; since: string; aside: string; claims: readonly { id: string; claim: string }[]; atMs: number },
    number
  >({
    lua: `
-- Sets claimed sessions the history database refused aside: off the queue (their records stay in Redis,
-- until their retention), into the set-aside sessions, unless one changed since its claim (its change is
-- written first: it may be what the database takes).
-- KEYS[1] the queue, KEYS[2] its since set, KEYS[3] the set-aside sessions
-- ARGV[1] now (ms), then per session its id and its claim's lease end (ms)
-- Returns how many were set aside.
local n = 0
for i = 2, #ARGV, 2 do
  if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[i])) == tonumber(ARGV[i + 1]) then
    redis.call('ZREM', KEYS[1], ARGV[i])
    redis.call('ZREM', KEYS[2], ARGV[i])
    redis.call('ZADD', KEYS[3], ARGV[1], ARGV[i])
    n = n + 1
  end
end
return n
`,
    keys: (a) => [a.queue, a.since, a.aside],
    argv: (a) => [a.atMs, ...a.claims.flatMap((c) => [c.id, c.claim])],
  }),

  requeueAside: script<{ queue: string; aside: string; nowMs: number }, number>({
    lua: `
-- Queues the set-aside sessions again, due now (one queued by a change meanwhile keeps its time).
-- KEYS[1] the queue, KEYS[2] the set-aside sessions
-- ARGV[1] now (ms)
-- Returns how many were queued again.
local ids = redis.call('ZRANGE', KEYS[2], 0, -1)
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], 'NX', ARGV[1], id) end
redis.call('DEL', KEYS[2])
return #ids
`,
    keys: (a) => [a.queue, a.aside],
    argv: (a) => [a.nowMs],
  }),

  historyBacklog: script<{ queue: string; since: string; aside: string }, [number, string, number]>({
    lua: `
-- The shard's backlog: how many sessions wait, since when the oldest has (its first due time: the since
-- set's earliest still queued, or the queue's earliest), and how many are set aside. Since-set entries
-- no longer queued (written by a server that did not keep the set) are dropped on the way, 100 a read.
-- KEYS[1] the queue, KEYS[2] its since set, KEYS[3] the set-aside sessions
-- Returns { size, oldest (ms) or '', set aside }.
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local oldest = first[2]
local since = redis.call('ZRANGE', KEYS[2], 0, 99, 'WITHSCORES')
for i = 1, #since, 2 do
  if redis.call('ZSCORE', KEYS[1], since[i]) then
    if not oldest or tonumber(since[i + 1]) < tonumber(oldest) then oldest = since[i + 1] end
    break
  end
  redis.call('ZREM', KEYS[2], since[i])
end
return { redis.call('ZCARD', KEYS[1]), oldest or '', redis.call('ZCARD', KEYS[3]) }
`,
    keys: (a) => [a.queue, a.since, a.aside],
    argv: () => [],
  }),
};
