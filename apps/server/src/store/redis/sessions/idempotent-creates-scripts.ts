/**
 * The Lua of idempotent creates (IdempotentCreates, contract guide "Idempotency"), each script on the
 * keys of one shard's slot: the Idempotency-Key's record, and the new session it stores. Idempotency
 * records are small strings, written by keys.ts (idempotencyRecord, which says what each state holds) and
 * read by beginCreate here alike. How a create steps across slots is idempotent-creates.ts's to say.
 */
import { type EventKeys, eventArgv, RECORD_EVENTS, recordEventsKeys } from "../customer-webhook-scripts.js";
import { script } from "../script.js";

export const IDEMPOTENT_CREATE_SCRIPTS = {
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

  completeCreate: script<
    {
      record: string;
      session: string;
      persona: string;
      pending: string;
      done: string;
      keyTtlMs: number;
      json: string;
      nowMs: number;
      lockExpiryMs: number;
      personaJson: string;
      personaTtlMs: number;
    } & EventKeys,
    [number, number]
  >({
    lua: `${RECORD_EVENTS}
-- Stores a new session and marks its idempotency key done, if the key is still this request's and its
-- lock has not expired (a create past it gives up: its place may have been given back), and records the
-- events of its creation for the account's webhook endpoints, with the persona it keeps while it can be
-- open.
-- KEYS[1] the idempotency record, KEYS[2] the session, KEYS[3] its persona, KEYS[4..] what record_events
-- reads
-- ARGV[1] this request's pending record, ARGV[2] the done record, ARGV[3] the key's TTL (ms),
-- ARGV[4] the session's JSON, ARGV[5] now (ms), ARGV[6] the lock's expiry (ms), ARGV[7] the persona's
-- JSON, ARGV[8] its TTL (ms), ARGV[9..] what record_events reads
-- Returns { 1, deliveries recorded } when written, { 0, 0 } when the key is no longer this request's.
if redis.call('GET', KEYS[1]) ~= ARGV[1] or tonumber(ARGV[5]) >= tonumber(ARGV[6]) then return { 0, 0 } end
if not redis.call('SET', KEYS[2], ARGV[4], 'NX') then return { 0, 0 } end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('SET', KEYS[3], ARGV[7], 'PX', ARGV[8])
return { 1, record_events(4, 9) }
`,
    keys: (a) => [a.record, a.session, a.persona, ...recordEventsKeys(a)],
    argv: (a) => [
      a.pending,
      a.done,
      a.keyTtlMs,
      a.json,
      a.nowMs,
      a.lockExpiryMs,
      a.personaJson,
      a.personaTtlMs,
      ...eventArgv(a.accountId, a.routes, a.events),
    ],
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
};
