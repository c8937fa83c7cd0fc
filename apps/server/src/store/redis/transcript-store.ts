/**
 * Transcripts on Redis: a session's segments in a hash and their spoken order in a sorted set, both in
 * the session's shard (keys.ts), so each step is one script in one slot. The keys expire with their
 * session (the latest it can end while it runs, its own expiry once it ended).
 */
import type { Cluster, Redis } from "ioredis";
import type { AppendOutcome, AppendSegments, TranscriptStore } from "../../domain/transcripts/ports.js";
import { type SegmentPosition, type StoredSegment, spokenOrder, type TranscriptState } from "../../domain/transcripts/transcript.js";
import { guard } from "./guard.js";
import { type Keyspace, keyspace, shardOf } from "./keys.js";

/**
 * KEYS: the hash, the order. ARGV: the most segments, when the transcript closes ('' for open), now, the
 * expiry (ms), final (0/1), then id, start (ms) and JSON per segment. New segments are the ones whose ids
 * the hash does not hold. Returns {'closed', reason, n, final} or {'limit', n, final} with nothing
 * stored, or {'appended', n, final, i...} with the indexes (1-based) of the segments it stored.
 */
const APPEND = `
local hash, order = KEYS[1], KEYS[2]
local state = redis.call('HMGET', hash, '!n', '!final', '!deleted')
local n, final = tonumber(state[1]) or 0, state[2] and 1 or 0
if state[3] then return {'closed', 'deleted', 0, final} end
-- Every start is checked before anything is written: a script that fails halfway keeps its writes.
for a = 7, #ARGV, 3 do
  local start = tonumber(ARGV[a])
  if start == nil or start ~= start then return redis.error_reply('segment start ' .. ARGV[a] .. ' is not a number') end
end
local fresh = {}
for a = 6, #ARGV, 3 do
  if redis.call('HEXISTS', hash, ARGV[a]) == 0 then fresh[#fresh + 1] = a end
end
if #fresh > 0 then
  if final == 1 then return {'closed', 'final', n, final} end
  if ARGV[2] ~= '' and tonumber(ARGV[3]) > tonumber(ARGV[2]) then return {'closed', 'ended', n, final} end
  if n + #fresh > tonumber(ARGV[1]) then return {'limit', n, final} end
  for _, a in ipairs(fresh) do
    redis.call('HSET', hash, ARGV[a], ARGV[a + 2])
    redis.call('ZADD', order, ARGV[a + 1], ARGV[a])
  end
  n = n + #fresh
  redis.call('HSET', hash, '!n', n)
  redis.call('PEXPIREAT', order, ARGV[4])
end
if ARGV[5] == '1' then
  final = 1
  redis.call('HSET', hash, '!final', 1)
end
if #fresh > 0 or ARGV[5] == '1' then redis.call('PEXPIREAT', hash, ARGV[4]) end
local reply = {'appended', n, final}
for _, a in ipairs(fresh) do reply[#reply + 1] = (a - 3) / 3 end
return reply
`;

/**
 * KEYS: the hash, the order. ARGV: the segment the page starts after ('' for the first page), the most
 * segments. Returns n, final, deleted ('' for none), then the JSON of each segment in spoken order.
 */
const READ = `
local hash, order = KEYS[1], KEYS[2]
local state = redis.call('HMGET', hash, '!n', '!final', '!deleted')
local reply = {tonumber(state[1]) or 0, state[2] and 1 or 0, state[3] or ''}
if tonumber(ARGV[2]) < 1 then return reply end
local start = 0
if ARGV[1] ~= '' then
  local rank = redis.call('ZRANK', order, ARGV[1])
  if not rank then return reply end
  start = rank + 1
end
local ids = redis.call('ZRANGE', order, start, start + tonumber(ARGV[2]) - 1)
if #ids == 0 then return reply end
local segments = redis.call('HMGET', hash, unpack(ids))
for _, json in ipairs(segments) do reply[#reply + 1] = json end
return reply
`;

/**
 * KEYS: the hash, the order, the shard's history queue. ARGV: now, the expiry (ms), 1 to queue the session
 * for the history database (its transcript is erased there too, even if the database is down now).
 * Returns final and when it was deleted.
 */
const DELETE = `
local hash, order = KEYS[1], KEYS[2]
local state = redis.call('HMGET', hash, '!final', '!deleted')
if state[2] then return {state[1] and 1 or 0, state[2]} end
redis.call('DEL', hash, order)
redis.call('HSET', hash, '!deleted', ARGV[1])
if state[1] then redis.call('HSET', hash, '!final', 1) end
redis.call('PEXPIREAT', hash, ARGV[2])
if ARGV[3] == '1' then redis.call('ZADD', KEYS[3], ARGV[1], ARGV[4]) end
return {state[1] and 1 or 0, ARGV[1]}
`;

type Command = (...args: (string | number)[]) => Promise<unknown>;

/** A whole transcript from its hash (HGETALL): its state, and its segments in spoken order. */
export function transcriptOfHash(hash: Record<string, string>): { state: TranscriptState; segments: StoredSegment[] } {
  const segments = Object.entries(hash)
    .filter(([field]) => !field.startsWith("!"))
    .map(([, json]) => JSON.parse(json) as StoredSegment)
    .sort(spokenOrder);
  const deleted = hash["!deleted"];
  return {
    state: {
      segmentCount: Number(hash["!n"] ?? 0),
      final: hash["!final"] !== undefined,
      deletedAtMs: deleted === undefined ? null : Number(deleted),
    },
    segments,
  };
}

export class RedisTranscriptStore implements TranscriptStore {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix = "dhs",
    /** Deletions queue the session for the history database (with DATABASE_URL). */
    private readonly keepsHistory = false,
  ) {
    this.keys = keyspace(prefix);
    redis.defineCommand("dhs_transcriptAppend", { lua: APPEND, numberOfKeys: 2 });
    redis.defineCommand("dhs_transcriptRead", { lua: READ, numberOfKeys: 2 });
    redis.defineCommand("dhs_transcriptDelete", { lua: DELETE, numberOfKeys: 3 });
  }

  appendSegments(request: AppendSegments): Promise<AppendOutcome> {
    const segments = request.segments.flatMap((segment) => [segment.id, segment.startedAtMs, JSON.stringify(segment)]);
    return guard(async () => {
      const reply = (await this.command("dhs_transcriptAppend")(
        ...this.keysOf(request.sessionId),
        request.maxSegments,
        request.closesAtMs ?? "",
        request.nowMs,
        request.expiresAtMs,
        request.final ? 1 : 0,
        ...segments,
      )) as (string | number)[];
      const [kind, ...rest] = reply;
      if (kind === "closed") {
        const [reason, n, final] = rest as [AppendOutcome extends { reason: infer R } ? R : never, number, number];
        return { kind, reason, state: { segmentCount: n, final: final === 1, deletedAtMs: reason === "deleted" ? 0 : null } };
      }
      const [n, final, ...indexes] = rest as number[];
      const state = { segmentCount: n ?? 0, final: final === 1, deletedAtMs: null };
      if (kind === "limit") return { kind, state };
      const accepted = indexes.map((i) => request.segments[i - 1] as StoredSegment);
      return { kind: "appended", accepted, duplicates: request.segments.length - accepted.length, state };
    });
  }

  readSegments(
    sessionId: string,
    after: SegmentPosition | undefined,
    limit: number,
  ): Promise<{ state: TranscriptState; segments: StoredSegment[] }> {
    return guard(async () => {
      const reply = (await this.command("dhs_transcriptRead")(...this.keysOf(sessionId), after?.id ?? "", limit)) as (string | number)[];
      const [n, final, deleted, ...json] = reply;
      const state = { segmentCount: Number(n), final: final === 1, deletedAtMs: deleted === "" ? null : Number(deleted) };
      return { state, segments: json.map((segment) => JSON.parse(String(segment)) as StoredSegment) };
    });
  }

  async readState(sessionId: string): Promise<TranscriptState> {
    return (await this.readSegments(sessionId, undefined, 0)).state;
  }

  deleteTranscript(sessionId: string, nowMs: number, expiresAtMs: number): Promise<TranscriptState> {
    return guard(async () => {
      const queue = this.keys.history(shardOf(sessionId));
      const history = this.keepsHistory ? 1 : 0;
      const [final, deletedAt] = (await this.command("dhs_transcriptDelete")(
        ...this.keysOf(sessionId),
        queue,
        nowMs,
        expiresAtMs,
        history,
        sessionId,
      )) as [number, string];
      return { segmentCount: 0, final: final === 1, deletedAtMs: Number(deletedAt) };
    });
  }

  expireAt(sessionId: string, expiresAtMs: number): Promise<void> {
    return guard(async () => {
      const [hash, order] = this.keysOf(sessionId);
      await Promise.all([this.redis.pexpireat(hash, expiresAtMs), this.redis.pexpireat(order, expiresAtMs)]);
    });
  }

  private keysOf(sessionId: string): [string, string] {
    return [this.keys.transcript(sessionId), this.keys.transcriptOrder(sessionId)];
  }

  private command(name: string): Command {
    const command = (this.redis as unknown as Record<string, Command>)[name] as Command;
    return command.bind(this.redis);
  }
}
