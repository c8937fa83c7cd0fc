/**
 * The queue of ended sessions to write to the history database (HistoryQueue), on Redis: one sorted set
 * per shard, in the shard's slot beside its sessions, so the script that changes an ended session queues
 * it in the same step (session-records-scripts.ts). Every replica claims what is due in each shard with a
 * lease, as it claims timers, reads the claimed sessions (one MGET per shard) and their transcripts, and completes each
 * shard's written ones in one script (history-queue-scripts.ts). Sessions the database refused are set
 * aside beside the queue, counted in the backlog, until the retention pass queues them again.
 */
import type { HistoryBacklog, HistoryClaim, HistoryQueue } from "../../../domain/sessions/history-ports.js";
import { toolCallsOf } from "../../../domain/tools/tool-call.js";
import { decodeSession } from "../../session-format.js";
import { guard } from "../guard.js";
import { dayOf, SHARDS, shardOf, timerMember } from "../keys.js";
import { transcriptOfHash } from "../transcript-store.js";
import { readSessions, type SessionStoreContext } from "./context.js";

const SHARD_INDEXES = Array.from({ length: SHARDS }, (_, shard) => shard);

export class RedisHistoryQueue implements HistoryQueue {
  constructor(private readonly context: SessionStoreContext) {}

  /** About `max` in all: each shard gives its share (at least one). */
  claimDue(nowMs: number, leaseMs: number, max: number): Promise<HistoryClaim[]> {
    const { keys, scripts } = this.context;
    const leaseUntilMs = nowMs + leaseMs;
    const perShard = Math.max(1, Math.ceil(max / SHARDS));
    return guard(async () => {
      const claimed = await Promise.all(
        SHARD_INDEXES.map((shard) =>
          scripts.run("claimHistory", { queue: keys.history(shard), since: keys.historySince(shard), nowMs, leaseUntilMs, max: perShard }),
        ),
      );
      const ids = claimed.flat();
      const claim = String(leaseUntilMs);
      try {
        const [jsons, transcripts, conversations] = await Promise.all([
          readSessions(this.context, ids),
          Promise.all(ids.map((id) => this.context.redis.hgetall(keys.transcript(id)))),
          Promise.all(ids.map((id) => this.context.redis.hgetall(keys.conversation(id)))),
        ]);
        return ids.map((sessionId, i): HistoryClaim => {
          const json = jsons[i];
          if (!json) return { sessionId, entry: undefined, claim };
          try {
            return {
              sessionId,
              entry: {
                record: decodeSession(json, sessionId),
                transcript: transcriptOfHash(transcripts[i] ?? {}),
                toolCalls: toolCallsOf(conversations[i]?.state, (name) => conversations[i]?.[name]),
              },
              claim,
            };
          } catch (error) {
            // One record this server cannot read must not hold back the others: the writer sets it aside.
            return { sessionId, entry: undefined, claim, unreadable: error instanceof Error ? error : new Error(String(error)) };
          }
        });
      } catch (error) {
        // Claimed but not read: due again now, not when the lease ends. Should the release fail too (the
        // same Redis that just failed), the lease ends and they are due then; the error thrown is the read's.
        await this.release(
          ids.map((sessionId) => ({ sessionId, entry: undefined, claim })),
          nowMs,
        ).catch(() => undefined);
        throw error;
      }
    });
  }

  complete(claims: readonly HistoryClaim[], keepMs: number): Promise<void> {
    const { keys, scripts } = this.context;
    return guard(async () => {
      await Promise.all(
        [...byShard(claims)].map(([shard, written]) =>
          scripts.run("completeHistory", {
            queue: keys.history(shard),
            since: keys.historySince(shard),
            aside: keys.historyAside(shard),
            timers: keys.timers(shard),
            keepMs,
            written: written.map(({ sessionId, entry, claim }) => ({
              id: sessionId,
              claim,
              roomDeletion: timerMember(entry?.record.account_id ?? "", sessionId, "room_deletion"),
              session: keys.session(sessionId),
              transcript: keys.transcript(sessionId),
              transcriptOrder: keys.transcriptOrder(sessionId),
              // A session the store no longer held has no index entry left either (any key of the slot will do).
              ended: entry
                ? keys.ended(entry.record.account_id, shard, dayOf(Date.parse(entry.record.created_at)))
                : keys.session(sessionId),
            })),
          }),
        ),
      );
    });
  }

  release(claims: readonly HistoryClaim[], atMs: number): Promise<void> {
    const { keys, scripts } = this.context;
    return guard(async () => {
      await Promise.all(
        [...byShard(claims)].map(([shard, claimed]) =>
          scripts.run("releaseHistory", {
            queue: keys.history(shard),
            atMs,
            claims: claimed.map(({ sessionId, claim }) => ({ id: sessionId, claim })),
          }),
        ),
      );
    });
  }

  setAside(claims: readonly HistoryClaim[], atMs: number): Promise<void> {
    const { keys, scripts } = this.context;
    return guard(async () => {
      await Promise.all(
        [...byShard(claims)].map(([shard, refused]) =>
          scripts.run("setAsideHistory", {
            queue: keys.history(shard),
            since: keys.historySince(shard),
            aside: keys.historyAside(shard),
            atMs,
            claims: refused.map(({ sessionId, claim }) => ({ id: sessionId, claim })),
          }),
        ),
      );
    });
  }

  requeueSetAside(nowMs: number): Promise<number> {
    const { keys, scripts } = this.context;
    return guard(async () => {
      const counts = await Promise.all(
        SHARD_INDEXES.map((shard) => scripts.run("requeueAside", { queue: keys.history(shard), aside: keys.historyAside(shard), nowMs })),
      );
      return counts.reduce((sum, n) => sum + n, 0);
    });
  }

  backlog(): Promise<HistoryBacklog> {
    const { keys, scripts } = this.context;
    return guard(async () => {
      const shards = await Promise.all(
        SHARD_INDEXES.map((shard) =>
          scripts.run("historyBacklog", { queue: keys.history(shard), since: keys.historySince(shard), aside: keys.historyAside(shard) }),
        ),
      );
      const oldest = shards.flatMap(([, at]) => (at === "" ? [] : [Number(at)]));
      return {
        size: shards.reduce((sum, [size]) => sum + Number(size), 0),
        oldestMs: oldest.length === 0 ? undefined : Math.min(...oldest),
        setAside: shards.reduce((sum, [, , aside]) => sum + Number(aside), 0),
      };
    });
  }
}

function byShard(claims: readonly HistoryClaim[]): Map<number, HistoryClaim[]> {
  const shards = new Map<number, HistoryClaim[]>();
  for (const claim of claims) {
    const shard = shardOf(claim.sessionId);
    shards.set(shard, [...(shards.get(shard) ?? []), claim]);
  }
  return shards;
}
