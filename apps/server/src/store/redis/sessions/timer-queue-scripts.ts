/**
 * The Lua of the timer queue (TimerQueue): due members claimed with a lease in one sorted set, and a
 * claimed timer completed unless it was scheduled again. claimDue serves the customer webhook dispatcher's
 * accounts due as well.
 */
import { script } from "../script.js";

export const TIMER_QUEUE_SCRIPTS = {
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
};
