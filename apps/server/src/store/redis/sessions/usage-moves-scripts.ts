/**
 * The Lua of usage moving to the history database (UsageMoves), in the account's slot beside its usage
 * counters: a day's counters become one pending move at once, so a reader sees them either as counters or
 * as that move, never both or neither.
 */
import { script } from "../script.js";

export const USAGE_MOVE_SCRIPTS = {
  beginUsageMoves: script<{ moving: string; counters: readonly string[]; days: readonly string[]; moveId: string }, string[]>({
    lua: `
-- Each day's counters of the account, if any, become a pending move (its id ARGV[1]..':'..day, its value
-- the day, when it was made by this Redis's clock (µs) and the counters as 'field=n' pairs), and the
-- counters are gone; returns every pending move of the account (those a crashed writer left too), as id,
-- value pairs.
-- KEYS[1] the account's pending moves, KEYS[2..] the counters of each day
-- ARGV[1] the move's id, ARGV[2..] each day (YYYY-MM-DD), in the order of KEYS[2..]
local time = redis.call('TIME')
local now = time[1] .. string.sub('000000' .. time[2], -6)
for i = 2, #KEYS do
  local counters = redis.call('HGETALL', KEYS[i])
  if #counters > 0 then
    local fields = {}
    for j = 1, #counters, 2 do fields[#fields + 1] = counters[j] .. '=' .. counters[j + 1] end
    redis.call('HSET', KEYS[1], ARGV[1] .. ':' .. ARGV[i], ARGV[i] .. ' ' .. now .. ' ' .. table.concat(fields, ' '))
    redis.call('DEL', KEYS[i])
  end
end
return redis.call('HGETALL', KEYS[1])
`,
    keys: (a) => [a.moving, ...a.counters],
    argv: (a) => [a.moveId, ...a.days],
  }),

  usageSnapshot: script<{ moving: string; counters: readonly string[] }, string[][]>({
    lua: `
-- The account's counters of each day and its pending moves, in one step, and when it was taken by this
-- Redis's clock (µs): a move made after it took counters this step read as counters.
-- KEYS[1] the account's pending moves, KEYS[2..] the counters of each day
-- Returns { the time }, the pending moves (id, value pairs), then each day's counters (field, count pairs).
local time = redis.call('TIME')
local reply = { { time[1] .. string.sub('000000' .. time[2], -6) }, redis.call('HGETALL', KEYS[1]) }
for i = 2, #KEYS do reply[#reply + 1] = redis.call('HGETALL', KEYS[i]) end
return reply
`,
    keys: (a) => [a.moving, ...a.counters],
    argv: () => [],
  }),
};
