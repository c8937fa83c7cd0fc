/**
 * The Lua of Redis's copy of the webhook endpoints (with the PostgreSQL history, their record is there):
 * copying an account's endpoints in, putting one back as the record has it, and forgetting an endpoint's
 * changes once PostgreSQL has them. Each in the account's slot.
 */
import { script } from "./script.js";

/** An endpoint as copyEndpoints takes it. */
export interface EndpointCopy {
  id: string;
  /** Creation time (ms), as a string. */
  created: string;
  /** Its routes entry (space-separated event types, or `*`). */
  types: string;
  enabled: boolean;
  /** Its hash's fields and values. */
  fields: string[];
}

export const WEBHOOK_COPY_SCRIPTS = {
  copyEndpoints: script<{ copied: string; ids: string; routes: string; endpoints: string[]; copies: EndpointCopy[] }, number>({
    lua: `
-- Copies an account's endpoints from PostgreSQL, unless its copy is whole already: each one Redis does
-- not hold (one it holds may have newer health), with its routes entry; then marks the copy whole.
-- KEYS[1] the account's copy mark, KEYS[2] its endpoint ids, KEYS[3] its routes, KEYS[4..] each endpoint's hash
-- ARGV[1] the endpoints (JSON: id, created, types, enabled, fields), in KEYS' order
-- Returns 1 when copied, 0 when the copy was whole.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i, e in ipairs(cjson.decode(ARGV[1])) do
  if redis.call('EXISTS', KEYS[3 + i]) == 0 then
    redis.call('HSET', KEYS[3 + i], unpack(e.fields))
    redis.call('ZADD', KEYS[2], e.created, e.id)
    if e.enabled then redis.call('HSET', KEYS[3], e.id, e.types) end
  end
end
redis.call('SET', KEYS[1], '1')
return 1
`,
    keys: (a) => [a.copied, a.ids, a.routes, ...a.endpoints],
    // An empty Lua table encodes as {}: none is sent as an empty array.
    argv: (a) => [a.copies.length === 0 ? "[]" : JSON.stringify(a.copies)],
  }),

  restoreEndpoint: script<
    { ids: string; routes: string; endpoint: string; log: string; id: string; copy: EndpointCopy | undefined },
    number
  >({
    lua: `
-- Puts one endpoint of the copy back as PostgreSQL has it, whatever Redis's copy says (a write whose
-- COMMIT failed after the copy took it): replaced from the record, keeping how far its log was copied,
-- or, when the record has none, gone from the copy with its log.
-- KEYS[1] the account's endpoint ids, KEYS[2] its routes, KEYS[3] the endpoint's hash, KEYS[4] its log
-- ARGV[1] its id, ARGV[2] the endpoint (JSON: id, created, types, enabled, fields) or '' when none
-- Returns 1 when it was put back, 0 when it is gone.
if ARGV[2] == '' then
  redis.call('DEL', KEYS[3], KEYS[4])
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 0
end
local e = cjson.decode(ARGV[2])
local synced = redis.call('HGET', KEYS[3], 'log_synced')
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], unpack(e.fields))
if synced then redis.call('HSET', KEYS[3], 'log_synced', synced) end
redis.call('ZADD', KEYS[1], e.created, ARGV[1])
if e.enabled then redis.call('HSET', KEYS[2], ARGV[1], e.types) else redis.call('HDEL', KEYS[2], ARGV[1]) end
return 1
`,
    keys: (a) => [a.ids, a.routes, a.endpoint, a.log],
    argv: (a) => [a.id, a.copy ? JSON.stringify(a.copy) : ""],
  }),

  markCopied: script<{ unsynced: string; endpoint: string; id: string; changes: number; lastEntry: string }, number>({
    lua: `
-- After PostgreSQL took an endpoint's health and its log up to an entry: remembers that entry, and
-- forgets the endpoint's changes unless more came meanwhile.
-- KEYS[1] the account's endpoints to copy, KEYS[2] the endpoint
-- ARGV[1] its id, ARGV[2] its count of changes as read, ARGV[3] the last log entry copied ('' for none)
-- Returns 1 when forgotten, 0 when it changed meanwhile.
if ARGV[3] ~= '' and redis.call('EXISTS', KEYS[2]) == 1 then redis.call('HSET', KEYS[2], 'log_synced', ARGV[3]) end
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`,
    keys: (a) => [a.unsynced, a.endpoint],
    argv: (a) => [a.id, a.changes, a.lastEntry],
  }),
};
