/**
 * The Lua of an account's own digital humans (DigitalHumanStore), each script on the keys of the owner's
 * slot: its digital humans (a hash of JSON by id), their order (a sorted set by creation time, whose size
 * is what the limit counts) and an Idempotency-Key of a create. Every number they compare is one the
 * server made (a time, a limit), never a value a caller sent.
 */
import { script } from "../script.js";

export const DIGITAL_HUMAN_SCRIPTS = {
  createDigitalHuman: script<
    {
      key: string;
      all: string;
      order: string;
      fingerprint: string;
      id: string;
      json: string;
      createdMs: number;
      keyTtlMs: number;
      limit: number;
    },
    [string, string?]
  >({
    lua: `
-- Stores a new digital human and remembers its Idempotency-Key for this body, unless the key was used
-- already or the owner has as many as it may (then nothing is recorded, and the key stays unused).
-- KEYS[1] the Idempotency-Key's record, KEYS[2] the owner's digital humans, KEYS[3] their order
-- ARGV[1] the body's fingerprint, ARGV[2] the new id, ARGV[3] its JSON, ARGV[4] its creation time (ms),
-- ARGV[5] how long the key is kept (ms), ARGV[6] the limit
-- Returns {'created'}, {'replay', id} (the key made it, for this body), {'reused'} (another body) or {'limit'}.
local recorded = redis.call('GET', KEYS[1])
if recorded then
  local print, id = string.match(recorded, '^([^|]*)|(.*)$')
  if print ~= ARGV[1] then return {'reused'} end
  return {'replay', id}
end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return {'limit'} end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[2], 'PX', ARGV[5])
return {'created'}
`,
    keys: (a) => [a.key, a.all, a.order],
    argv: (a) => [a.fingerprint, a.id, a.json, a.createdMs, a.keyTtlMs, a.limit],
  }),

  replaceDigitalHuman: script<{ all: string; id: string; version: string; json: string }, number>({
    lua: `
-- Replaces a digital human if it is still as it was read (compare-and-set of its JSON).
-- KEYS[1] the owner's digital humans
-- ARGV[1] its id, ARGV[2] the JSON it was read as, ARGV[3] its new JSON
-- Returns 1 when replaced, 0 when it changed since or is gone.
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`,
    keys: (a) => [a.all],
    argv: (a) => [a.id, a.version, a.json],
  }),

  deleteDigitalHuman: script<{ all: string; order: string; id: string }, number>({
    lua: `
-- Deletes a digital human, freeing its place under the owner's limit.
-- KEYS[1] the owner's digital humans, KEYS[2] their order
-- ARGV[1] its id
-- Returns 1 when deleted, 0 when there was none.
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('HDEL', KEYS[1], ARGV[1])
`,
    keys: (a) => [a.all, a.order],
    argv: (a) => [a.id],
  }),

  swapCreateKey: script<{ key: string; expected: string; next: string }, number>({
    lua: `
-- With the PostgreSQL history: moves a create's Idempotency-Key on from what this request claimed (its
-- claim taken over, marked done, given back), unless another request took it meanwhile; its expiry stays.
-- KEYS[1] the key
-- ARGV[1] what it must hold, ARGV[2] what it holds next ('' to forget it)
-- Returns 1 when moved, 0 when it held something else.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
return 1
`,
    keys: (a) => [a.key],
    argv: (a) => [a.expected, a.next],
  }),
};
