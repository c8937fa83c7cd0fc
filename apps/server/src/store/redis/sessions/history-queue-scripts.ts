/**
 * The Lua of the history queue's completion (HistoryQueue.complete): claims are taken with the timer
 * queue's claimDue, on the shard's queue of sessions to write.
 */
import { script } from "../script.js";

export const HISTORY_QUEUE_SCRIPTS = {
  completeHistory: script<
    {
      queue: string;
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
-- KEYS[1] the queue, KEYS[2] the shard's timers, then per session its key, its index of ended sessions
-- and its transcript's two keys
-- ARGV[1] how long to keep it (ms), then per session its id, its claim's lease end (ms) and its
-- room_deletion timer's member
-- Returns how many were taken off.
local done = 0
for i = 2, #ARGV, 3 do
  local k = 3 + 4 * ((i - 2) / 3)
  local id, session, ended = ARGV[i], KEYS[k], KEYS[k + 1]
  if tonumber(redis.call('ZSCORE', KEYS[1], id)) == tonumber(ARGV[i + 1]) then
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', ended, id)
    local ttl = redis.call('PTTL', session)
    local owed = redis.call('ZSCORE', KEYS[2], ARGV[i + 2])
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
    keys: (a) => [a.queue, a.timers, ...a.written.flatMap((w) => [w.session, w.ended, w.transcript, w.transcriptOrder])],
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
};
