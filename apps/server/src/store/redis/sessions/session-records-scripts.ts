/**
 * The Lua of a stored session's change (SessionRecords.replaceSession): one compare-and-set in the
 * session's shard, with its timers, its LiveKit event and the webhook events it causes.
 */
import { type EventKeys, eventArgv, RECORD_EVENTS, recordEventsKeys } from "../customer-webhook-scripts.js";
import { script } from "../script.js";

export const SESSION_RECORD_SCRIPTS = {
  replaceSession: script<
    {
      session: string;
      ended: string;
      timers: string;
      livekitEvent: string;
      persona: string;
      history: string;
      /** Whether ended sessions are queued for the history database. */
      keepsHistory: boolean;
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
-- expires with the last session in it; the persona it kept for its dispatches is no longer needed. With a
-- history database, each change of an ended session queues it to be written there (again).
-- KEYS[1] the session, KEYS[2] the index of ended sessions, KEYS[3] its shard's timers, KEYS[4] the
-- LiveKit event's mark, KEYS[5] its persona, KEYS[6] its shard's history queue, KEYS[7..] what
-- record_events reads
-- ARGV[1] the JSON it was read as (its version), ARGV[2] the new JSON, ARGV[3] its id, ARGV[4] its
-- creation time (ms, the index score), ARGV[5] when it expires (ms since the epoch; '' while it is
-- open), ARGV[6] now (ms), ARGV[7] how long the LiveKit event is remembered (ms; '' for none),
-- ARGV[8] 1 to queue an ended session for the history database, ARGV[9] n, ARGV[10..9+n] timer members
-- to cancel, ARGV[10+n] m, then m (due ms, member) pairs to schedule, then what record_events reads
-- Returns { 1, deliveries recorded } when replaced, { 0, 0 } when another writer got there first.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return { 0, 0 } end
if ARGV[5] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[5])
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
  local ttl = redis.call('PTTL', KEYS[2])
  if ttl < 0 or tonumber(ARGV[6]) + ttl < tonumber(ARGV[5]) then redis.call('PEXPIREAT', KEYS[2], ARGV[5]) end
  redis.call('DEL', KEYS[5])
  if ARGV[8] == '1' then redis.call('ZADD', KEYS[6], ARGV[6], ARGV[3]) end
end
if ARGV[7] ~= '' then redis.call('SET', KEYS[4], '1', 'PX', ARGV[7]) end
local n = tonumber(ARGV[9])
if n > 0 then redis.call('ZREM', KEYS[3], unpack(ARGV, 10, 9 + n)) end
local m = tonumber(ARGV[10 + n])
if m > 0 then redis.call('ZADD', KEYS[3], unpack(ARGV, 11 + n, 10 + n + 2 * m)) end
return { 1, record_events(7, 11 + n + 2 * m) }
`,
    keys: (a) => [a.session, a.ended, a.timers, a.livekitEvent, a.persona, a.history, ...recordEventsKeys(a)],
    argv: (a) => [
      a.version,
      a.json,
      a.id,
      a.createdMs,
      a.expiresAtMs,
      a.nowMs,
      a.livekitEventTtlMs,
      a.keepsHistory ? 1 : 0,
      a.cancel.length,
      ...a.cancel,
      a.schedule.length / 2,
      ...a.schedule,
      ...eventArgv(a.accountId, a.routes, a.events),
    ],
  }),
};
