/**
 * The Lua of participant memories (MemoryStore), each script on the keys of one owner and digital human's
 * slot: a participant's memory (a hash whose facts are opaque JSON) and the digital human's index of them
 * by expiry. A memory expires by its key's own expiry, and one whose expiry has passed by the server's
 * clock (given as ARGV) counts as absent already: replicas and Redis need not agree to the millisecond.
 */
import { script } from "./script.js";

// KEYS[1] counts as absent when its expiry (ms) is not after the time given.
const EXPIRED = (now: string) => `
if redis.call('EXISTS', KEYS[1]) == 1 and tonumber(redis.call('HGET', KEYS[1], 'expires_ms')) <= tonumber(${now}) then
  redis.call('DEL', KEYS[1])
end`;

// The index lives as long as its longest-kept member.
const INDEX_EXPIRY = `
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[2], last[2]) end`;

export const PARTICIPANT_MEMORY_SCRIPTS = {
  recallMemory: script<{ memory: string; index: string; identity: string; expiresAtMs: number; nowMs: number }, string[]>({
    lua: `
-- Reads a memory and keeps it until ARGV[2] if that is later (a new session of the participant).
-- KEYS[1] the memory, KEYS[2] the digital human's index
-- ARGV[1] the participant, ARGV[2] the new expiry (ms), ARGV[3] now (ms)
-- Returns the memory's hash as HGETALL does ({} when none is kept).
${EXPIRED("ARGV[3]")}
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
if tonumber(ARGV[2]) > tonumber(redis.call('HGET', KEYS[1], 'expires_ms')) then
  redis.call('HSET', KEYS[1], 'expires_ms', ARGV[2])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
  ${INDEX_EXPIRY}
end
return redis.call('HGETALL', KEYS[1])
`,
    keys: (a) => [a.memory, a.index],
    argv: (a) => [a.identity, a.expiresAtMs, a.nowMs],
  }),

  writeMemory: script<
    {
      memory: string;
      index: string;
      identity: string;
      revision: number;
      facts: string;
      updatedAtMs: number;
      expiresAtMs: number;
      nowMs: number;
      generation: string;
      readGeneration: string;
    },
    number
  >({
    lua: `
-- Writes a memory if it is still the one read (ARGV[2] and ARGV[8]; revision 0: none kept), and drops
-- expired members of the index.
-- KEYS[1] the memory, KEYS[2] the digital human's index
-- ARGV[1] the participant, ARGV[2] the revision read, ARGV[3] the facts (JSON), ARGV[4] now as its update
-- time (ms), ARGV[5] its expiry (ms), ARGV[6] the time expired members are dropped before (ms), ARGV[7] the
-- generation of a first write, ARGV[8] the generation read
-- Returns 1 when written, 0 when another write came first.
${EXPIRED("ARGV[4]")}
local revision = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if revision ~= tonumber(ARGV[2]) then return 0 end
if revision > 0 and redis.call('HGET', KEYS[1], 'gen') ~= ARGV[8] then return 0 end
if revision == 0 then redis.call('HSET', KEYS[1], 'gen', ARGV[7]) end
redis.call('HSET', KEYS[1], 'facts', ARGV[3], 'updated_ms', ARGV[4], 'expires_ms', ARGV[5], 'rev', revision + 1)
redis.call('PEXPIREAT', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[6])
${INDEX_EXPIRY}
return 1
`,
    keys: (a) => [a.memory, a.index],
    argv: (a) => [a.identity, a.revision, a.facts, a.updatedAtMs, a.expiresAtMs, a.nowMs, a.generation, a.readGeneration],
  }),

  deleteMemory: script<{ memory: string; index: string; identity: string; nowMs: number }, number>({
    lua: `
-- Deletes a memory. KEYS[1] the memory, KEYS[2] the digital human's index; ARGV[1] the participant, ARGV[2] now (ms)
-- Returns 1 when one was kept, 0 otherwise.
${EXPIRED("ARGV[2]")}
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
`,
    keys: (a) => [a.memory, a.index],
    argv: (a) => [a.identity, a.nowMs],
  }),
};
