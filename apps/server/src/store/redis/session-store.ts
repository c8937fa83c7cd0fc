/**
 * The session store on Redis (or Redis Cluster). Each step that must not interleave with another is one
 * Lua script (session-scripts.ts): an idempotent create's begin, complete and abandon, a session's
 * compare-and-set (which also gives an ended one its expiry), and the timers' claim and completion. Redis unreachable becomes
 * DependencyUnavailableError (503); anything else, a refused command or a record that cannot be read,
 * DependencyFaultError (500).
 */

import { type SessionStatus, sessionStatusValues } from "@dhs/contract";
import { type Cluster, type Redis, ReplyError } from "ioredis";
import type { OutboundEvent } from "../../domain/customer-webhooks/ports.js";
import { DependencyFaultError, DependencyUnavailableError } from "../../domain/dependency-errors.js";
import type { BeginOutcome } from "../../domain/sessions/idempotency.js";
import {
  type DueTimer,
  isAfterCursor,
  type ListPosition,
  type ListQuery,
  newestFirst,
  type ScheduledTimer,
  type SessionStore,
  type Versioned,
} from "../../domain/sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../../domain/sessions/session.js";
import { LIFECYCLE_TIMERS, type ObligationTimer } from "../../domain/sessions/session-machine.js";
import { USAGE_RETENTION_DAYS, type UsageIncrement } from "../../domain/sessions/usage.js";
import {
  dayOf,
  decodeSession,
  encodeSession,
  idempotencyRecord,
  type Keyspace,
  keyspace,
  parseTimerMember,
  SHARDS,
  shardOf,
  timerMember,
} from "./keys.js";
import { RedisScripts } from "./session-scripts.js";

const DAY_MS = 86_400_000;
const DAYS_PER_READ = 7;
// Another replica's clock may be ahead: a list without a cursor starts from the day a minute from now.
const CLOCK_SKEW_MS = 60_000;

// Replies that mean "not now" rather than "wrong": the server is loading, failing over or read-only.
const TRANSIENT_REPLY = /^(LOADING|BUSY|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|MOVED|ASK)\b/;

export class RedisSessionStore implements SessionStore {
  private readonly keys: Keyspace;
  private readonly scripts: RedisScripts;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix = "dhs",
  ) {
    this.keys = keyspace(prefix);
    this.scripts = new RedisScripts(redis);
  }

  beginCreate(
    accountId: string,
    idempotencyKey: string,
    print: string,
    lockTtlMs: number,
    maxOpen: number,
    sessionId: string,
  ): Promise<BeginOutcome> {
    const lock = crypto.randomUUID();
    return guard(async () => {
      const [kind, detail] = await this.scripts.run("beginCreate", {
        record: this.keys.idempotency(accountId, idempotencyKey),
        created: this.keys.index(accountId, "created"),
        active: this.keys.index(accountId, "active"),
        claims: this.keys.claims(accountId),
        fingerprint: print,
        lockTtlMs,
        maxOpen,
        nowMs: Date.now(),
        lock,
        sessionId,
      });
      switch (kind) {
        case "acquired":
          return { kind, lock, sessionId: detail as string };
        case "reused":
        case "in_progress":
          return { kind };
        case "replay":
          return { kind, sessionId: detail as string };
        case "limit":
          return { kind, open: Number(detail) };
        default:
          throw new Error(`unexpected begin reply ${kind}`);
      }
    });
  }

  completeCreate(
    session: SessionRecord,
    idempotencyKey: string,
    print: string,
    lock: string,
    keyTtlMs: number,
    events: readonly OutboundEvent[],
    usage: UsageIncrement | undefined,
  ): Promise<boolean> {
    return guard(async () => {
      const [written, recorded] = await this.scripts.run("completeCreate", {
        record: this.keys.idempotency(session.account_id, idempotencyKey),
        session: this.keys.session(session.account_id, session.id),
        index: this.keys.index(session.account_id, session.status),
        pending: idempotencyRecord.pending(print, lock, session.id),
        done: idempotencyRecord.done(print, session.id),
        keyTtlMs,
        json: encodeSession(session),
        score: Date.parse(session.created_at),
        id: session.id,
        claims: this.keys.claims(session.account_id),
        lock,
        ...this.usageKeys(session.account_id, usage),
        ...this.eventKeys(session.account_id, events),
      });
      if (recorded > 0) await this.hint(session.account_id, events);
      return written === 1;
    });
  }

  abandonCreate(accountId: string, idempotencyKey: string, print: string, lock: string, sessionId: string, keepMs: number): Promise<void> {
    return guard(async () => {
      await this.scripts.run("abandonCreate", {
        record: this.keys.idempotency(accountId, idempotencyKey),
        claims: this.keys.claims(accountId),
        pending: idempotencyRecord.pending(print, lock, sessionId),
        lock,
        abandoned: idempotencyRecord.abandoned(print, sessionId),
        keepMs,
      });
    });
  }

  getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined> {
    return guard(async () => {
      const json = await this.redis.get(this.keys.session(accountId, sessionId));
      return json === null ? undefined : decodeSession(json, accountId, sessionId);
    });
  }

  getVersioned(accountId: string, sessionId: string): Promise<Versioned | undefined> {
    return guard(async () => {
      const json = await this.redis.get(this.keys.session(accountId, sessionId));
      return json === null ? undefined : { record: decodeSession(json, accountId, sessionId), version: json };
    });
  }

  replaceSession(
    record: SessionRecord,
    version: string,
    previousStatus: SessionStatus,
    events: readonly OutboundEvent[],
    usage: UsageIncrement | undefined,
    expiresAtMs: number | undefined,
  ): Promise<boolean> {
    return guard(async () => {
      const [replaced, recorded] = await this.scripts.run("replaceSession", {
        session: this.keys.session(record.account_id, record.id),
        fromIndex: this.indexOf(record, previousStatus),
        toIndex: this.indexOf(record, record.status),
        version,
        json: encodeSession(record),
        id: record.id,
        score: Date.parse(record.created_at),
        expiresAtMs: expiresAtMs ?? "",
        nowMs: Date.now(),
        ...this.usageKeys(record.account_id, usage),
        ...this.eventKeys(record.account_id, events),
      });
      if (recorded > 0) await this.hint(record.account_id, events);
      return replaced === 1;
    });
  }

  /** The index a session is listed in with this status: its open status's, or its ended status's of its day. */
  private indexOf(record: SessionRecord, status: SessionStatus): string {
    return !TERMINAL.has(status)
      ? this.keys.index(record.account_id, status)
      : this.keys.endedIndex(record.account_id, status, record.created_at.slice(0, 10));
  }

  openSessions(accountId: string): Promise<number> {
    return guard(async () => {
      const k = this.keys;
      const [created, active, inFlight] = await Promise.all([
        this.redis.zcard(k.index(accountId, "created")),
        this.redis.zcard(k.index(accountId, "active")),
        this.redis.zcount(k.claims(accountId), Date.now(), "+inf"),
      ]);
      return created + active + inFlight;
    });
  }

  usage(accountId: string, days: readonly string[]): Promise<Record<string, string>[]> {
    return guard(async () => Promise.all(days.map((day) => this.redis.hgetall(this.keys.usage(accountId, day)))));
  }

  /** The day's counters (any day's key when there is nothing to count: the script touches none). */
  private usageKeys(accountId: string, usage: UsageIncrement | undefined) {
    return {
      usage: this.keys.usage(accountId, usage?.day ?? "none"),
      increments: usage ? usage.fields.map(([field, by]) => `${field}=${by}`).join(" ") : "",
      usageTtlMs: USAGE_RETENTION_DAYS * 86_400_000,
    };
  }

  private eventKeys(accountId: string, events: readonly OutboundEvent[]) {
    const k = this.keys;
    return {
      routes: k.hookRoutes(accountId),
      dueDeliveries: k.hookDue(accountId),
      pendingDeliveries: k.hookPending(accountId),
      eventKeys: events.map((event) => k.hookEvent(accountId, event.id)),
      events,
    };
  }

  /**
   * Makes the account due for delivery at its new events. A separate command (the accounts-due set has
   * its own slot): should the process die between the two, the reconciliation finds the account.
   */
  private async hint(accountId: string, events: readonly OutboundEvent[]): Promise<void> {
    const at = Math.min(...events.map((event) => event.createdAtMs));
    await this.redis.zadd(this.keys.hookAccountsDue(shardOf(accountId)), "LT", at, accountId);
  }

  /**
   * Newest first. Index entries whose session has expired meanwhile (its ended index lives until the last
   * of its day's sessions has) are skipped, and the page is filled from further entries.
   */
  listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]> {
    return guard(async () => {
      const want = query.limit + 1;
      const found: SessionRecord[] = [];
      let after = query.after;
      for (;;) {
        const need = want - found.length;
        const entries = await this.positions(accountId, query, after, need);
        if (entries.length === 0) break;
        const jsons = await this.redis.mget(entries.map((entry) => this.keys.session(accountId, entry.id)));
        entries.forEach((entry, i) => {
          const json = jsons[i];
          if (json) found.push(decodeSession(json, accountId, entry.id));
        });
        if (entries.length < need || found.length >= want) break;
        after = entries.at(-1);
      }
      return found;
    });
  }

  /**
   * Up to `want` index entries after the cursor, newest first: the open statuses' indexes, then the
   * ended statuses' per-day indexes from the cursor's day back to the oldest day that can still hold a
   * session, a week of days per round trip, until no older day can hold a newer entry than those found.
   */
  private async positions(accountId: string, query: ListQuery, after: ListPosition | undefined, want: number): Promise<ListPosition[]> {
    const statuses = query.status ? [query.status] : sessionStatusValues;
    const open = statuses.filter((status) => !TERMINAL.has(status));
    const ended = statuses.filter((status) => TERMINAL.has(status));
    const found = (await Promise.all(open.map((status) => this.indexPage(this.keys.index(accountId, status), after, want)))).flat();
    if (ended.length > 0) {
      const oldest = Date.parse(dayOf(query.oldestCreatedMs));
      for (let day = Date.parse(dayOf(after?.createdAtMs ?? Date.now() + CLOCK_SKEW_MS)); day >= oldest; day -= DAYS_PER_READ * DAY_MS) {
        const days = Array.from({ length: DAYS_PER_READ }, (_, i) => day - i * DAY_MS).filter((d) => d >= oldest);
        const pages = await Promise.all(
          days.flatMap((d) => ended.map((status) => this.indexPage(this.keys.endedIndex(accountId, status, dayOf(d)), after, want))),
        );
        found.push(...pages.flat());
        found.sort(newestFirst);
        const last = found[want - 1];
        if (last && last.createdAtMs >= (days.at(-1) as number)) break;
      }
    }
    return found.sort(newestFirst).slice(0, want);
  }

  /** Up to `want` entries of one index after the cursor, newest first. */
  private async indexPage(index: string, after: ListPosition | undefined, want: number): Promise<ListPosition[]> {
    const entries: ListPosition[] = [];
    // From the cursor's time down: entries with that very time may still be on the previous page.
    for (let offset = 0; entries.length < want; offset += want) {
      const batch = await this.redis.zrevrangebyscore(
        index,
        after ? after.createdAtMs : "+inf",
        "-inf",
        "WITHSCORES",
        "LIMIT",
        offset,
        want,
      );
      for (let i = 0; i < batch.length && entries.length < want; i += 2) {
        const entry = { id: batch[i] as string, createdAtMs: Number(batch[i + 1]) };
        if (isAfterCursor(entry, after)) entries.push(entry);
      }
      if (batch.length < want * 2) break;
    }
    return entries;
  }

  scheduleTimers(accountId: string, sessionId: string, timers: readonly ScheduledTimer[]): Promise<void> {
    if (timers.length === 0) return Promise.resolve();
    return guard(async () => {
      await this.redis.zadd(
        this.keys.timers(shardOf(sessionId)),
        ...timers.flatMap(({ timer, atMs }) => [atMs, timerMember(accountId, sessionId, timer)]),
      );
    });
  }

  cancelTimer(accountId: string, sessionId: string, timer: ObligationTimer): Promise<void> {
    return guard(async () => {
      await this.redis.zrem(this.keys.timers(shardOf(sessionId)), timerMember(accountId, sessionId, timer));
    });
  }

  cancelTimers(accountId: string, sessionId: string): Promise<void> {
    return guard(async () => {
      await this.redis.zrem(
        this.keys.timers(shardOf(sessionId)),
        ...LIFECYCLE_TIMERS.map((timer) => timerMember(accountId, sessionId, timer)),
      );
    });
  }

  /** Up to `max` from each shard: every shard is asked at once (one round trip, spread over the masters). */
  claimDueTimers(nowMs: number, leaseMs: number, max: number): Promise<DueTimer[]> {
    return guard(async () => {
      const claims = await Promise.all(
        Array.from({ length: SHARDS }, (_, shard) =>
          this.scripts.run("claimDue", { set: this.keys.timers(shard), nowMs, leaseUntilMs: nowMs + leaseMs, max }),
        ),
      );
      return claims.flat().map((member) => ({
        ...(parseTimerMember(member) as Pick<DueTimer, "accountId" | "sessionId" | "timer">),
        claimedUntil: nowMs + leaseMs,
      }));
    });
  }

  completeTimer(due: DueTimer): Promise<void> {
    return guard(async () => {
      await this.scripts.run("completeTimer", {
        timers: this.keys.timers(shardOf(due.sessionId)),
        member: timerMember(due.accountId, due.sessionId, due.timer),
        claimedUntil: due.claimedUntil,
      });
    });
  }

  acquireLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    return guard(async () => (await this.scripts.run("acquireLease", { lease: this.keys.lease(name), holder, ttlMs })) === 1);
  }

  markEnding(accountId: string, sessionId: string, ttlMs: number): Promise<void> {
    return guard(async () => {
      await this.redis.set(this.keys.ending(accountId, sessionId), "1", "PX", ttlMs);
    });
  }

  isEnding(accountId: string, sessionId: string): Promise<boolean> {
    return guard(async () => (await this.redis.exists(this.keys.ending(accountId, sessionId))) === 1);
  }

  clearEnding(accountId: string, sessionId: string): Promise<void> {
    return guard(async () => {
      await this.redis.del(this.keys.ending(accountId, sessionId));
    });
  }

  markEventSeen(eventId: string, ttlMs: number): Promise<boolean> {
    return guard(async () => (await this.redis.set(this.keys.livekitEvent(eventId), "1", "PX", ttlMs, "NX")) === "OK");
  }

  forgetEvent(eventId: string): Promise<void> {
    return guard(async () => {
      await this.redis.del(this.keys.livekitEvent(eventId));
    });
  }

  ping(): Promise<void> {
    return guard(async () => {
      await this.redis.ping();
    });
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

// What ioredis says when Redis cannot be reached in time: closed or unwritable connections (no offline
// queue), command timeouts, a cluster without its nodes. Only these, and transient replies, are outages.
const UNREACHABLE =
  /^(Connection is closed|Stream isn't writeable|Cluster isn't ready|Command timed out|Node is disconnected|Cluster is disconnect|None of startup nodes|Too many Cluster redirections|Failed to refresh slots cache|No master node|connect ETIMEDOUT|timeout)/;
const UNREACHABLE_NAMES = new Set(["MaxRetriesPerRequestError", "ClusterAllFailedError"]);

/** Whether a failure is Redis being unreachable for now (503), as opposed to a fault to fix (500). */
export function isRedisUnavailable(error: unknown): boolean {
  if (error instanceof ReplyError) return TRANSIENT_REPLY.test((error as Error).message);
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return UNREACHABLE_NAMES.has(error.name) || UNREACHABLE.test(error.message) || (typeof code === "string" && /^E[A-Z]+$/.test(code));
}

/**
 * Runs a store operation: Redis unreachable becomes DependencyUnavailableError (503, retry later);
 * anything else (a command Redis refuses, a record or script reply we cannot read) DependencyFaultError.
 */
export async function guard<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isRedisUnavailable(error)) throw new DependencyUnavailableError("store", { cause: error });
    throw new DependencyFaultError("store", `Redis: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
