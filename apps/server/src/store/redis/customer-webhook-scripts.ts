/**
 * The Lua of customer webhooks (contract guide, "Webhooks"): endpoints and delivery logs in the account's
 * slot, deliveries in a shard's (the shard of the session that caused them). RECORD_EVENTS is shared:
 * the scripts that store a session or change it (sessions/idempotent-creates-scripts.ts,
 * sessions/session-records-scripts.ts) include it, so a session's change and the events it causes are
 * one atomic step.
 */

import type { OutboundEvent } from "../../domain/customer-webhooks/ports.js";
import { script } from "./script.js";

/**
 * Records events for every enabled endpoint whose routes take them: a delivery per endpoint, due at
 * once, the event's body with the number of deliveries pending, and the account due in the shard at its
 * first event. The routes come as arguments (they live in the account's slot, read before). Reads
 * KEYS[first] as the account's due deliveries in the shard, then its pending ones, the shard's accounts
 * due, then one key per event; ARGV from `arg`: the account, the number of routes, each route's endpoint
 * and types, the events' retain time (ms), then id, type, body, creation time (ms) and traceparent ('' for
 * none) per event. Returns the deliveries recorded.
 */
export const RECORD_EVENTS = `
local function record_events(first, arg)
  local account, routes = ARGV[arg], tonumber(ARGV[arg + 1])
  if routes == 0 then return 0 end
  local retain = ARGV[arg + 2 + 2 * routes]
  local recorded, earliest, a, k = 0, nil, arg + 3 + 2 * routes, first + 3
  while ARGV[a] do
    local id, kind, body, at, trace = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]
    local refs = 0
    for r = arg + 2, arg + 2 * routes, 2 do
      local types = ' ' .. ARGV[r + 1] .. ' '
      if types == ' * ' or string.find(types, ' ' .. kind .. ' ', 1, true) then
        local member = ARGV[r] .. '|' .. id
        redis.call('ZADD', KEYS[first], at, member)
        redis.call('ZADD', KEYS[first + 1], at, member)
        refs = refs + 1
      end
    end
    if refs > 0 then
      redis.call('HSET', KEYS[k], 'body', body, 'refs', refs)
      if trace ~= '' then redis.call('HSET', KEYS[k], 'trace', trace) end
      redis.call('PEXPIRE', KEYS[k], retain)
      recorded = recorded + refs
      if earliest == nil or tonumber(at) < earliest then earliest = tonumber(at) end
    end
    a, k = a + 5, k + 1
  end
  if earliest then redis.call('ZADD', KEYS[first + 2], 'LT', earliest, account) end
  return recorded
end
`;

/** What a script that includes RECORD_EVENTS is given for it: its keys, and what its arguments are made of. */
export interface EventKeys {
  /** The account's due and pending deliveries in the session's shard, and the shard's accounts due. */
  dueDeliveries: string;
  pendingDeliveries: string;
  accountsDue: string;
  eventKeys: string[];
  accountId: string;
  routes: Readonly<Record<string, string>>;
  events: readonly OutboundEvent[];
}

/** RECORD_EVENTS' keys, in the order it reads them from KEYS[first]. */
export const recordEventsKeys = (a: EventKeys): string[] => [a.dueDeliveries, a.pendingDeliveries, a.accountsDue, ...a.eventKeys];

/** RECORD_EVENTS' arguments: the account, its routes (endpoint id -> types), the events. */
export const eventArgv = (
  accountId: string,
  routes: Readonly<Record<string, string>>,
  events: readonly OutboundEvent[],
): (string | number)[] => {
  const pairs = Object.entries(routes);
  return [
    accountId,
    pairs.length,
    ...pairs.flat(),
    events[0]?.retainMs ?? 0,
    ...events.flatMap((e) => [e.id, e.type, e.body, e.createdAtMs, e.traceparent ?? ""]),
  ];
};

export const WEBHOOK_SCRIPTS = {
  createEndpoint: script<
    { ids: string; endpoint: string; routes: string; id: string; createdMs: number; max: number; fields: string[]; types: string },
    number
  >({
    lua: `
-- Stores a new endpoint unless the account has the most allowed.
-- KEYS[1] the account's endpoint ids, KEYS[2] the endpoint, KEYS[3] the routes
-- ARGV[1] its id, ARGV[2] its creation time (ms), ARGV[3] the most endpoints, ARGV[4] its event types,
-- ARGV[5..] field, value pairs of the endpoint
-- Returns 1 when stored, 0 at the limit.
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 5))
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
return 1
`,
    keys: (a) => [a.ids, a.endpoint, a.routes],
    argv: (a) => [a.id, a.createdMs, a.max, a.types, ...a.fields],
  }),

  deleteEndpoint: script<{ ids: string; endpoint: string; routes: string; log: string; id: string }, number>({
    lua: `
-- Deletes an endpoint and its log; its pending deliveries are dropped when they come due.
-- KEYS[1] the account's endpoint ids, KEYS[2] the endpoint, KEYS[3] the routes, KEYS[4] its log
-- ARGV[1] its id
-- Returns 1 when deleted, 0 when there was none.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('DEL', KEYS[2], KEYS[4])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
`,
    keys: (a) => [a.ids, a.endpoint, a.routes, a.log],
    argv: (a) => [a.id],
  }),

  replaceSecrets: script<{ endpoint: string; expected: string; secrets: string }, number>({
    lua: `
-- Compare-and-set of an endpoint's secrets.
-- KEYS[1] the endpoint
-- ARGV[1] the secrets as read, ARGV[2] the new secrets
-- Returns 1 when replaced, 0 when they changed meanwhile (or the endpoint is gone).
if redis.call('HGET', KEYS[1], 'secrets') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'secrets', ARGV[2])
return 1
`,
    keys: (a) => [a.endpoint],
    argv: (a) => [a.expected, a.secrets],
  }),

  enableEndpoint: script<{ endpoint: string; routes: string; id: string }, number>({
    lua: `
-- Enables an endpoint: routes events to it again, forgets why it was disabled and its failures.
-- KEYS[1] the endpoint, KEYS[2] the routes
-- ARGV[1] its id
-- Returns 1, or 0 when there is no such endpoint.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'status', 'enabled')
redis.call('HDEL', KEYS[1], 'disabled_reason', 'failing_since')
redis.call('HSET', KEYS[2], ARGV[1], redis.call('HGET', KEYS[1], 'types'))
return 1
`,
    keys: (a) => [a.endpoint, a.routes],
    argv: (a) => [a.id],
  }),

  enqueueFor: script<
    { due: string; pending: string; accountsDue: string; event: string; member: string; account: string; event_: OutboundEvent },
    number
  >({
    lua: `
-- Queues an event for one endpoint (a test event), due at once, and makes the account due in the shard.
-- KEYS[1] the due deliveries, KEYS[2] the pending ones, KEYS[3] the shard's accounts due, KEYS[4] the event
-- ARGV[1] the delivery, ARGV[2] the event's creation time (ms), ARGV[3] its body, ARGV[4] its retain
-- time (ms), ARGV[5] the account, ARGV[6] its traceparent ('' for none)
-- Returns 1.
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[4], 'body', ARGV[3], 'refs', 1)
if ARGV[6] ~= '' then redis.call('HSET', KEYS[4], 'trace', ARGV[6]) end
redis.call('PEXPIRE', KEYS[4], ARGV[4])
redis.call('ZADD', KEYS[3], 'LT', ARGV[2], ARGV[5])
return 1
`,
    keys: (a) => [a.due, a.pending, a.accountsDue, a.event],
    argv: (a) => [a.member, a.event_.createdAtMs, a.event_.body, a.event_.retainMs, a.account, a.event_.traceparent ?? ""],
  }),

  releaseAccount: script<{ accounts: string; account: string; claimedUntil: number; next: string }, number>({
    lua: `
-- Hands a claimed account back: due again at its next delivery, or forgotten when it has none, unless
-- an event made it due meanwhile (its score is then another time than the claim's lease end).
-- KEYS[1] the accounts due
-- ARGV[1] the account, ARGV[2] the claim's lease end (ms), ARGV[3] its next delivery (ms) or ''
-- Returns 1 when handed back, 0 when it was made due meanwhile.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
`,
    keys: (a) => [a.accounts],
    argv: (a) => [a.account, a.claimedUntil, a.next],
  }),

  claimDeliveries: script<
    { due: string; nowMs: number; leaseUntilMs: number; max: number; perEndpoint: number; busy: (string | number)[] },
    string[]
  >({
    lua: `
-- Claims up to ARGV[3] of an account's deliveries in a shard due by ARGV[1], pushing each to ARGV[2] (the lease's
-- end), at most ARGV[4] per endpoint counting what the replica has in flight to it; looks at no more
-- than 1000 due deliveries.
-- KEYS[1] the account's due deliveries in the shard (by due time, ms)
-- ARGV[1] now (ms), ARGV[2] the lease's end (ms), ARGV[3] the most to claim, ARGV[4] the most per endpoint,
-- ARGV[5..] endpoint id, attempts in flight, for the endpoints the replica is busy with
-- Returns the account's next due time in the shard afterwards ('' when it has no delivery), then the claimed ones.
local claimed, max, per, offset = {}, tonumber(ARGV[3]), tonumber(ARGV[4]), 0
local taken = {}
for i = 5, #ARGV, 2 do taken[ARGV[i]] = tonumber(ARGV[i + 1]) end
while #claimed < max and offset < 1000 do
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', offset, 100)
  if #due == 0 then break end
  for _, member in ipairs(due) do
    local endpoint = string.match(member, '^([^|]+)|')
    local count = taken[endpoint] or 0
    if #claimed < max and count < per then
      claimed[#claimed + 1] = member
      taken[endpoint] = count + 1
    end
  end
  offset = offset + #due
end
for _, member in ipairs(claimed) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reply = { first[2] or '' }
for _, member in ipairs(claimed) do reply[#reply + 1] = member end
return reply
`,
    keys: (a) => [a.due],
    argv: (a) => [a.nowMs, a.leaseUntilMs, a.max, a.perEndpoint, ...a.busy],
  }),

  loadQueued: script<{ event: string; attempts: string; member: string }, [string | null, string | null, string | null]>({
    lua: `
-- What an attempt needs from the shard, in one round trip (the endpoint is read from the account's slot).
-- KEYS[1] the event, KEYS[2] the attempts made per delivery
-- ARGV[1] the delivery
-- Returns the event's body (or nil), the attempts made (or nil), its traceparent (or nil).
local event = redis.call('HMGET', KEYS[1], 'body', 'trace')
return { event[1], redis.call('HGET', KEYS[2], ARGV[1]), event[2] }
`,
    keys: (a) => [a.event, a.attempts],
    argv: (a) => [a.member],
  }),

  resolveDelivery: script<
    {
      due: string;
      pending: string;
      attempts: string;
      event: string;
      accountsDue: string;
      member: string;
      lease: number;
      resolution: "done" | "retry";
      retryAtMs: number;
      attemptsMade: number;
      account: string;
    },
    number
  >({
    lua: `
-- After an attempt, if this replica still holds the delivery: resolves it (retry later, with the account
-- due in the shard by then, or done: forgotten, and the event with its last delivery).
-- KEYS[1] due, KEYS[2] pending, KEYS[3] attempts made, KEYS[4] the event, KEYS[5] the shard's accounts due
-- ARGV[1] the delivery, ARGV[2] the lease's end (ms), ARGV[3] 'done' or 'retry', ARGV[4] the retry's time
-- (ms), ARGV[5] attempts made, ARGV[6] the account
-- Returns 1, or 0 when the lease was lost (nothing is written then).
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == 'retry' then
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[5])
  redis.call('ZADD', KEYS[5], 'LT', ARGV[4], ARGV[6])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  if redis.call('HINCRBY', KEYS[4], 'refs', -1) <= 0 then redis.call('DEL', KEYS[4]) end
end
return 1
`,
    keys: (a) => [a.due, a.pending, a.attempts, a.event, a.accountsDue],
    argv: (a) => [a.member, a.lease, a.resolution, a.retryAtMs, a.attemptsMade, a.account],
  }),

  recordAttempt: script<
    {
      log: string;
      endpoint: string;
      routes: string;
      unsynced: string;
      entry: string;
      logMax: number;
      health: "succeeded" | "failed" | "gone" | "failing" | "unchanged";
      nowMs: number;
      endpointId: string;
      /** With the PostgreSQL history: the endpoint is marked for copying there. */
      copied: boolean;
    },
    number
  >({
    lua: `
-- Logs an attempt of a resolved delivery and records the endpoint's health (a success ends its failure
-- streak, a failure starts one, gone or failing disables it), if the endpoint still exists; with the
-- PostgreSQL history, counts a change of the endpoint to copy there.
-- KEYS[1] the endpoint's log, KEYS[2] the endpoint, KEYS[3] the routes, KEYS[4] the account's endpoints to copy
-- ARGV[1] the log entry ('' for none), ARGV[2] the log's length, ARGV[3] health: succeeded, failed,
-- gone, failing or unchanged, ARGV[4] now (ms), ARGV[5] the endpoint's id, ARGV[6] '1' to mark it for copying
-- Returns 1, or 0 when the endpoint is gone.
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if ARGV[6] == '1' then redis.call('ZINCRBY', KEYS[4], 1, ARGV[5]) end
if ARGV[1] ~= '' then redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], '*', 'a', ARGV[1]) end
local health = ARGV[3]
if health == 'succeeded' then
  redis.call('HDEL', KEYS[2], 'failing_since')
elseif health == 'failed' then
  redis.call('HSETNX', KEYS[2], 'failing_since', ARGV[4])
elseif health == 'gone' or health == 'failing' then
  redis.call('HSET', KEYS[2], 'status', 'disabled', 'disabled_reason', health)
  redis.call('HDEL', KEYS[2], 'failing_since')
  redis.call('HDEL', KEYS[3], ARGV[5])
end
return 1
`,
    keys: (a) => [a.log, a.endpoint, a.routes, a.unsynced],
    argv: (a) => [a.entry, a.logMax, a.health, a.nowMs, a.endpointId, a.copied ? "1" : "0"],
  }),

  queueState: script<{ due: string; pending: string }, [string, number, string]>({
    lua: `
-- An account's queue in a shard, for the reconciliation: its next due time, its size, its oldest event's time.
-- KEYS[1] due, KEYS[2] pending
-- Returns { next due (ms) or '', pending deliveries, oldest event's creation (ms) or '' }.
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
return { first[2] or '', redis.call('ZCARD', KEYS[2]), oldest[2] or '' }
`,
    keys: (a) => [a.due, a.pending],
    argv: () => [],
  }),
};
