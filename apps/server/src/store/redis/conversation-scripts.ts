/**
 * The Lua of a session's conversation (ConversationStore.writeConversation): one compare-and-set in the
 * session's shard, with the items and marks beside the state, the `conversation` timer and the webhook
 * events the change causes.
 */
import { type EventKeys, eventArgv, RECORD_EVENTS, recordEventsKeys } from "./customer-webhook-scripts.js";
import { script } from "./script.js";

export const CONVERSATION_SCRIPTS = {
  writeConversation: script<
    {
      conversation: string;
      session: string;
      whileOpen: boolean;
      timers: string;
      version: number;
      state: string;
      expiresAtMs: number;
      timerMember: string;
      timerAtMs: number | "";
      fields: readonly string[];
    } & EventKeys,
    [number, number]
  >({
    lua: `${RECORD_EVENTS}
-- Compare-and-set of a conversation: its state and version, the fields that change with it (items,
-- Idempotency-Keys, marks), its expiry (its session's), its timer (set to the next due time, or removed)
-- and the events it causes for the account's webhook endpoints.
-- With ARGV[7] '1', written only while the session is not terminal.
-- KEYS[1] the conversation (a hash: ver, state, fields), KEYS[2] its shard's timers, KEYS[3] the session,
-- KEYS[4..] what record_events reads
-- ARGV[1] the version it was read at ('0': none yet), ARGV[2] the new state, ARGV[3] when it expires
-- (ms since the epoch), ARGV[4] its timer's member, ARGV[5] when the timer is due (ms; '' for none),
-- ARGV[6] n, ARGV[7] '1' while open only, ARGV[8..7+2n] field and value pairs, then what record_events reads
-- Returns { 1, deliveries recorded } when written, { 0, 0 } when another writer got there first,
-- { -1, 0 } when the session is terminal.
if (redis.call('HGET', KEYS[1], 'ver') or '0') ~= ARGV[1] then return { 0, 0 } end
if ARGV[7] == '1' then
  local json = redis.call('GET', KEYS[3])
  if json then
    local status = cjson.decode(json).status
    if status == 'completed' or status == 'cancelled' or status == 'failed' then return { -1, 0 } end
  end
end
redis.call('HSET', KEYS[1], 'ver', tonumber(ARGV[1]) + 1, 'state', ARGV[2])
local n = tonumber(ARGV[6])
if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 8, 7 + 2 * n)) end
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
if ARGV[5] == '' then redis.call('ZREM', KEYS[2], ARGV[4]) else redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4]) end
return { 1, record_events(4, 8 + 2 * n) }
`,
    keys: (a) => [a.conversation, a.timers, a.session, ...recordEventsKeys(a)],
    argv: (a) => [
      a.version,
      a.state,
      a.expiresAtMs,
      a.timerMember,
      a.timerAtMs,
      a.fields.length / 2,
      a.whileOpen ? 1 : 0,
      ...a.fields,
      ...eventArgv(a.accountId, a.routes, a.events),
    ],
  }),
};
