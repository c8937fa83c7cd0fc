/**
 * The session store on Redis (or Redis Cluster). A session lives in its shard's slot with its timers, the
 * Idempotency-Key that created it and the customer webhook deliveries it causes; its account keeps only
 * what its concurrency cap needs and its usage; its ended sessions are listed per account and day. Each
 * step within one slot is one Lua script (sessions/*-scripts.ts); the steps across slots are ordered so that
 * a crash between any two of them leaves nothing a reader could misread, and what it leaves counted is
 * repaired (repairAccount):
 *
 * - A create: the key is claimed (its shard) and a place held among the account's open sessions (its
 *   slot) at once; the room is made; the session, its key's completion and its events are one script;
 *   then the account counts it. A create that dies before storing its session leaves its claim, which
 *   the retry with the same key continues (same session id, same room) or the repair gives back once it
 *   has expired; a create never stores its session past its lock's expiry, so a place given back is
 *   never taken after all.
 * - An end: the session is changed (compare-and-set) and listed among its day's ended ones in one script,
 *   then gives back its place and counts its usage. A crash between the two leaves the place held until
 *   the repair (a timer of the ended session, or a create at the cap, runs it).
 *
 * Redis unreachable becomes DependencyUnavailableError (503); anything else, a refused command or a
 * record that cannot be read, DependencyFaultError (500): guard.ts sorts them.
 */

import type { Cluster, Redis } from "ioredis";
import type { OutboundEvent } from "../../domain/customer-webhooks/ports.js";
import type { BeginOutcome, CreateLock } from "../../domain/sessions/idempotency.js";
import {
  type CreateAbandonment,
  type CreateClaim,
  type CreateCompletion,
  type DueTimer,
  isAfterCursor,
  type ListPosition,
  type ListQuery,
  newestFirst,
  type ScheduledTimer,
  type SessionChange,
  type SessionSnapshot,
  type SessionStore,
  type SessionVersion,
} from "../../domain/sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../../domain/sessions/session.js";
import { LIFECYCLE_TIMERS, type ObligationTimer, type TimerKind } from "../../domain/sessions/session-machine.js";
import { USAGE_RETENTION_DAYS, type UsageIncrement, usageOf, utcDay } from "../../domain/sessions/usage.js";
import type { Tracing } from "../../tracing/tracing.js";
import { guard } from "./guard.js";
import {
  dayOf,
  decodeSession,
  encodeSession,
  idempotencyRecord,
  type Keyspace,
  keyShardOf,
  keyspace,
  parseTimerMember,
  SHARDS,
  sessionIdIn,
  shardOf,
  timerMember,
} from "./keys.js";
import { RedisScripts } from "./scripts.js";

const DAY_MS = 86_400_000;
// Each day's ended sessions are in one index per shard: two days are 64 reads a round trip.
const DAYS_PER_READ = 2;
const USAGE_TTL_MS = USAGE_RETENTION_DAYS * DAY_MS;
const SHARD_INDEXES = Array.from({ length: SHARDS }, (_, shard) => shard);
// Another replica's clock may be ahead: a list without a cursor starts from the day a minute from now.
const CLOCK_SKEW_MS = 60_000;

/** The steps of a create and of an end across slots, named for tests that stop the store between them. */
export type StoreStep = "create:claimed" | "create:completing" | "create:stored" | "end:replaced";

export interface RedisSessionStoreOptions {
  prefix?: string;
  /**
   * How long after its lock expired a create's claim is taken for dead (ms): more than replicas' clocks
   * may differ, since the create itself gives up at its lock's expiry by its own clock.
   */
  claimGraceMs?: number;
  /** The least time between two repairs of one account by this replica (ms). */
  repairIntervalMs?: number;
  /** Called after each step of a create or an end; a test's crash is thrown from it. */
  afterStep?: (step: StoreStep) => void | Promise<void>;
  /** Spans of its scripts, by name. */
  tracing?: Tracing;
}

/**
 * A create's lock as this store hands it to the domain (a CreateLock): its random part and its expiry,
 * which the claim's record holds, and the account's webhook routes read with the claim, which its
 * completion records its events by.
 */
interface RedisCreateLock {
  id: string;
  expiryMs: number;
  routes: Record<string, string>;
}
const lockOf = (lock: CreateLock) => lock as unknown as RedisCreateLock;
/** The pending idempotency record a lock's claim wrote. */
const pendingRecord = (print: string, lock: RedisCreateLock, sessionId: string) =>
  idempotencyRecord.pending(print, lock.id, lock.expiryMs, sessionId);

export class RedisSessionStore implements SessionStore {
  private readonly keys: Keyspace;
  private readonly scripts: RedisScripts;
  private readonly claimGraceMs: number;
  private readonly repairIntervalMs: number;
  private readonly afterStep: (step: StoreStep) => void | Promise<void>;
  /** When this replica last repaired each account (ms). */
  private readonly repairedAt = new Map<string, number>();

  constructor(
    private readonly redis: Redis | Cluster,
    options: RedisSessionStoreOptions | string = {},
  ) {
    const {
      prefix = "dhs",
      claimGraceMs = 30_000,
      repairIntervalMs = 10_000,
      afterStep = () => {},
      tracing,
    } = typeof options === "string" ? { prefix: options } : options;
    this.keys = keyspace(prefix);
    this.scripts = new RedisScripts(redis, tracing);
    this.claimGraceMs = claimGraceMs;
    this.repairIntervalMs = repairIntervalMs;
    this.afterStep = afterStep;
  }

  /**
   * Claims the key and holds a place for a new session at once (two slots, one round trip). When the key
   * continues an earlier create's session instead, or is not claimed, the place held for the new one is
   * given back; at the cap, the account is repaired once and the place asked for again.
   */
  beginCreate(accountId: string, idempotencyKey: string, print: string, claim: CreateClaim): Promise<BeginOutcome> {
    return guard(async () => {
      const nowMs = Date.now();
      const proposed = sessionIdIn(keyShardOf(accountId, idempotencyKey));
      const lock = crypto.randomUUID();
      const expectedExpiry = nowMs + claim.lockTtlMs;
      const [begun, held] = await Promise.all([
        this.scripts.run("beginCreate", {
          record: this.keys.idempotency(accountId, idempotencyKey),
          fingerprint: print,
          lockTtlMs: claim.lockTtlMs,
          nowMs,
          lock,
          sessionId: proposed,
          keyTtlMs: claim.keyTtlMs,
        }),
        this.reserve(accountId, proposed, claim.createdAtMs, expectedExpiry, claim.maxOpen),
      ]);
      const [kind, detail, expiry] = begun;
      const sessionId = kind === "acquired" ? (detail as string) : undefined;
      if (held.ok && sessionId !== proposed) await this.unreserve(accountId, proposed, expectedExpiry);
      switch (kind) {
        case "reused":
        case "in_progress":
          return { kind };
        case "replay":
          return { kind, sessionId: detail as string };
        case "acquired":
          break;
        default:
          throw new Error(`unexpected begin reply ${kind}`);
      }
      const id = sessionId as string;
      const claimExpiry = Number(expiry);
      let place = held.ok && id === proposed && claimExpiry === expectedExpiry ? held : undefined;
      place ??= await this.reserve(accountId, id, claim.createdAtMs, claimExpiry, claim.maxOpen);
      if (!place.ok && (await this.repairAccount(accountId, false))) {
        place = await this.reserve(accountId, id, claim.createdAtMs, claimExpiry, claim.maxOpen);
      }
      if (!place.ok) {
        // Nothing is claimed at the cap: the key goes back to what it was for this body.
        await this.scripts.run("abandonCreate", {
          record: this.keys.idempotency(accountId, idempotencyKey),
          pending: idempotencyRecord.pending(print, lock, claimExpiry, id),
          abandoned: idempotencyRecord.abandoned(print, id),
          keepMs: claim.keyTtlMs,
        });
        return { kind: "limit", open: place.open };
      }
      const claimed: RedisCreateLock = { id: lock, expiryMs: claimExpiry, routes: place.routes };
      await this.afterStep("create:claimed");
      return { kind: "acquired", lock: claimed as unknown as CreateLock, sessionId: id };
    });
  }

  private async reserve(
    accountId: string,
    sessionId: string,
    createdMs: number,
    claimExpiryMs: number,
    maxOpen: number,
  ): Promise<{ ok: boolean; open: number; routes: Record<string, string> }> {
    const [ok, open, ...flat] = await this.scripts.run("reserve", {
      open: this.keys.open(accountId),
      claims: this.keys.claims(accountId),
      routes: this.keys.hookRoutes(accountId),
      days: this.keys.days(accountId),
      sessionId,
      createdMs,
      claimExpiryMs,
      maxOpen,
      day: dayOf(createdMs),
      dayStartMs: Date.parse(dayOf(createdMs)),
    });
    const routes: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) routes[flat[i] as string] = flat[i + 1] as string;
    return { ok: ok === 1, open, routes };
  }

  private async unreserve(accountId: string, sessionId: string, claimExpiryMs: number): Promise<void> {
    await this.scripts.run("unreserve", {
      open: this.keys.open(accountId),
      claims: this.keys.claims(accountId),
      sessionId,
      claimExpiryMs,
    });
  }

  completeCreate({ session, idempotencyKey, fingerprint, lock, keyTtlMs, events, usage }: CreateCompletion): Promise<boolean> {
    const accountId = session.account_id;
    const held = lockOf(lock);
    return guard(async () => {
      await this.afterStep("create:completing");
      const [written] = await this.scripts.run("completeCreate", {
        record: this.keys.idempotency(accountId, idempotencyKey),
        session: this.keys.session(session.id),
        pending: pendingRecord(fingerprint, held, session.id),
        done: idempotencyRecord.done(fingerprint, session.id),
        keyTtlMs,
        json: encodeSession(session),
        nowMs: Date.now(),
        lockExpiryMs: held.expiryMs,
        ...this.eventKeys(accountId, session.id, held.routes, events),
      });
      if (written !== 1) return false;
      await this.afterStep("create:stored");
      // The session stands: should counting it fail, the repair counts it once its claim has expired.
      await this.admit(accountId, session.id, usage).catch(() => undefined);
      return true;
    });
  }

  private async admit(accountId: string, sessionId: string, usage: UsageIncrement | undefined): Promise<void> {
    await this.scripts.run("admit", {
      claims: this.keys.claims(accountId),
      usage: this.keys.usage(accountId, usage?.day ?? "none"),
      sessionId,
      increments: incrementsOf(usage),
      usageTtlMs: USAGE_TTL_MS,
    });
  }

  abandonCreate({ accountId, idempotencyKey, fingerprint, lock, sessionId, keepMs }: CreateAbandonment): Promise<void> {
    const held = lockOf(lock);
    return guard(async () => {
      await Promise.all([
        this.scripts.run("abandonCreate", {
          record: this.keys.idempotency(accountId, idempotencyKey),
          pending: pendingRecord(fingerprint, held, sessionId),
          abandoned: idempotencyRecord.abandoned(fingerprint, sessionId),
          keepMs,
        }),
        this.unreserve(accountId, sessionId, held.expiryMs),
      ]);
    });
  }

  /** The session if it is this account's: sessions are kept by id, so another account's is not found. */
  getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined> {
    return guard(async () => {
      const json = await this.redis.get(this.keys.session(sessionId));
      return json === null ? undefined : ownSession(json, accountId, sessionId);
    });
  }

  findSession(sessionId: string): Promise<SessionRecord | undefined> {
    return guard(async () => {
      const json = await this.redis.get(this.keys.session(sessionId));
      return json === null ? undefined : decodeSession(json, sessionId);
    });
  }

  /**
   * One round trip: the session with its ending mark and the LiveKit event's mark (one MGET in its shard)
   * and, beside it, the account's webhook routes, which a change that causes events records them by.
   */
  readForChange(accountId: string, sessionId: string, livekitEventId?: string): Promise<SessionSnapshot | undefined> {
    return guard(async () => {
      const marks = [
        this.keys.ending(sessionId),
        ...(livekitEventId === undefined ? [] : [this.keys.livekitEvent(sessionId, livekitEventId)]),
      ];
      const [[json, ending, applied], routes] = await Promise.all([
        this.redis.mget(this.keys.session(sessionId), ...marks),
        this.redis.hgetall(this.keys.hookRoutes(accountId)),
      ]);
      if (json === null || json === undefined) return undefined;
      const record = ownSession(json, accountId, sessionId);
      if (!record) return undefined;
      const version: RedisVersion = { json, routes };
      return { record, version: version as unknown as SessionVersion, ending: ending !== null, eventApplied: applied != null };
    });
  }

  replaceSession(change: SessionChange): Promise<boolean> {
    const { record, previousStatus, events, timers, livekitEvent } = change;
    const { json, routes } = change.version as unknown as RedisVersion;
    const accountId = record.account_id;
    const ends = TERMINAL.has(record.status) && !TERMINAL.has(previousStatus);
    return guard(async () => {
      const createdMs = Date.parse(record.created_at);
      const shard = shardOf(record.id);
      const [replaced] = await this.scripts.run("replaceSession", {
        session: this.keys.session(record.id),
        ended: this.keys.ended(accountId, shard, dayOf(createdMs)),
        timers: this.keys.timers(shard),
        livekitEvent: this.keys.livekitEvent(record.id, livekitEvent?.id ?? ""),
        version: json,
        json: encodeSession(record),
        id: record.id,
        createdMs,
        expiresAtMs: change.expiresAtMs ?? "",
        nowMs: Date.now(),
        livekitEventTtlMs: livekitEvent?.ttlMs ?? "",
        cancel: timers.cancel.map((timer) => timerMember(accountId, record.id, timer)),
        schedule: timers.schedule.flatMap(({ timer, atMs }) => [atMs, timerMember(accountId, record.id, timer)]),
        ...this.eventKeys(accountId, record.id, routes, events),
      });
      if (replaced !== 1) return false;
      if (ends) {
        await this.afterStep("end:replaced");
        // The end stands: should giving back its place fail, the repair does it.
        await this.settle(record, change.usage).catch(() => undefined);
      }
      return true;
    });
  }

  rememberEvent(sessionId: string, eventId: string, ttlMs: number): Promise<void> {
    return guard(async () => {
      await this.redis.set(this.keys.livekitEvent(sessionId, eventId), "1", "PX", ttlMs);
    });
  }

  settleEnded(record: SessionRecord): Promise<void> {
    return guard(async () => {
      if (!TERMINAL.has(record.status)) return;
      await this.settle(record, usageOf({ ...record, status: "active", ended_at: null }, record));
    });
  }

  /** An ended session gives back its place and counts its usage (and its creation, if not counted yet). */
  private async settle(record: SessionRecord, usage: UsageIncrement | undefined): Promise<boolean> {
    const created = usageOf(undefined, record);
    const settled = await this.scripts.run("settle", {
      open: this.keys.open(record.account_id),
      claims: this.keys.claims(record.account_id),
      endedUsage: this.keys.usage(record.account_id, usage?.day ?? "none"),
      createdUsage: this.keys.usage(record.account_id, created?.day ?? utcDay(record.created_at)),
      sessionId: record.id,
      endedIncrements: incrementsOf(usage),
      createdIncrements: incrementsOf(created),
      usageTtlMs: USAGE_TTL_MS,
    });
    return settled === 1;
  }

  /**
   * Repairs what crashes left in the account's count of open sessions: a create whose claim expired
   * (past the grace) is counted if its session was stored and given back otherwise; an ended session
   * still holding its place gives it back and counts its usage. At most once per repairIntervalMs per
   * account on this replica unless `force`d (the cost is a read of every open session: bounded by the
   * cap). True when it ran.
   */
  async repairAccount(accountId: string, force: boolean): Promise<boolean> {
    const nowMs = Date.now();
    if (!force && nowMs - (this.repairedAt.get(accountId) ?? Number.NEGATIVE_INFINITY) < this.repairIntervalMs) return false;
    this.repairedAt.set(accountId, nowMs);
    const k = this.keys;
    const [open, claims] = await Promise.all([
      this.redis.zrange(k.open(accountId), "0", "-1"),
      this.redis.zrange(k.claims(accountId), "0", "-1", "WITHSCORES"),
    ]);
    const claimed = new Map<string, number>();
    for (let i = 0; i < claims.length; i += 2) claimed.set(claims[i] as string, Number(claims[i + 1]));
    const records = await this.readAll(open);
    await Promise.all(
      open.map(async (sessionId, i) => {
        const json = records[i];
        const record = json ? decodeSession(json, sessionId) : undefined;
        const claimExpiry = claimed.get(sessionId);
        if (record && record.account_id === accountId) {
          if (TERMINAL.has(record.status)) await this.settleEnded(record);
          else if (claimExpiry !== undefined && claimExpiry + this.claimGraceMs < nowMs)
            await this.admit(accountId, sessionId, usageOf(undefined, record));
        } else if (claimExpiry === undefined || claimExpiry + this.claimGraceMs < nowMs) {
          // No session, and no create that may still store it: a create that died, or an ended
          // session whose retention ended before its place was given back.
          if (claimExpiry === undefined) await this.redis.zrem(k.open(accountId), sessionId);
          else await this.unreserve(accountId, sessionId, claimExpiry);
        }
      }),
    );
    return true;
  }

  /** The JSON of each session (null when there is none), read by shard: one MGET per slot. */
  private async readAll(sessionIds: readonly string[]): Promise<(string | null)[]> {
    const byShard = new Map<number, number[]>();
    sessionIds.forEach((id, i) => {
      const shard = shardOf(id);
      const list = byShard.get(shard);
      if (list) list.push(i);
      else byShard.set(shard, [i]);
    });
    const found: (string | null)[] = new Array(sessionIds.length).fill(null);
    await Promise.all(
      [...byShard.values()].map(async (indexes) => {
        const jsons = await this.redis.mget(indexes.map((i) => this.keys.session(sessionIds[i] as string)));
        indexes.forEach((i, j) => {
          found[i] = jsons[j] ?? null;
        });
      }),
    );
    return found;
  }

  openSessions(accountId: string): Promise<number> {
    return guard(async () => {
      const k = this.keys;
      const stale = await this.redis.zcount(k.claims(accountId), "-inf", Date.now() - this.claimGraceMs);
      if (stale > 0) await this.repairAccount(accountId, false);
      return this.redis.zcard(k.open(accountId));
    });
  }

  usage(accountId: string, days: readonly string[]): Promise<Record<string, string>[]> {
    return guard(async () => Promise.all(days.map((day) => this.redis.hgetall(this.keys.usage(accountId, day)))));
  }

  countUsage(accountId: string, increment: UsageIncrement): Promise<void> {
    const key = this.keys.usage(accountId, increment.day);
    return guard(async () => {
      const multi = this.redis.multi();
      for (const [field, by] of increment.fields) multi.hincrby(key, field, by);
      await multi.pexpire(key, USAGE_TTL_MS).exec();
    });
  }

  private eventKeys(accountId: string, sessionId: string, routes: Readonly<Record<string, string>>, events: readonly OutboundEvent[]) {
    const k = this.keys;
    const shard = shardOf(sessionId);
    return {
      dueDeliveries: k.hookDue(accountId, shard),
      pendingDeliveries: k.hookPending(accountId, shard),
      accountsDue: k.hookAccountsDue(shard),
      eventKeys: events.map((event) => k.hookEvent(accountId, shard, event.id)),
      accountId,
      routes,
      events,
    };
  }

  /**
   * Newest first. Open sessions come from the account's open sessions, ended ones from its per-day
   * indexes; each entry is checked against its record, so an entry whose session expired meanwhile (a
   * day's index lives until its last session has) or has another status than asked for is skipped, and
   * the page is filled from further entries. A session that ends while the list is read may be found in
   * both (its end lists it among the ended before it gives back its place) or only among the open ones
   * (it ended after the ended indexes were read): it is listed once, as its record says, either way.
   */
  listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]> {
    return guard(async () => {
      const want = query.limit + 1;
      const found: SessionRecord[] = [];
      const seen = new Set<string>();
      let after = query.after;
      for (;;) {
        const need = want - found.length;
        const entries = await this.positions(accountId, query, after, need);
        if (entries.length === 0) break;
        const jsons = await this.readAll(entries.map((entry) => entry.id));
        entries.forEach((entry, i) => {
          const json = jsons[i];
          if (!json || seen.has(entry.id)) return;
          const record = decodeSession(json, entry.id);
          if (record.account_id !== accountId) return;
          if (query.status !== undefined && record.status !== query.status) return;
          seen.add(entry.id);
          found.push(record);
        });
        if (entries.length < need || found.length >= want) break;
        after = entries.at(-1);
      }
      return found;
    });
  }

  /**
   * Up to `want` index entries after the cursor, newest first: the open sessions, then the ended ones'
   * per-day indexes (one per shard) of the days the account created sessions on, from the cursor's day
   * back to the oldest that can still hold a session, DAYS_PER_READ days per round trip, until no older
   * day can hold a newer entry than those found.
   */
  private async positions(accountId: string, query: ListQuery, after: ListPosition | undefined, want: number): Promise<ListPosition[]> {
    const wantsOpen = query.status === undefined || !TERMINAL.has(query.status);
    const wantsEnded = query.status === undefined || TERMINAL.has(query.status);
    const found = wantsOpen ? await this.indexPage(this.keys.open(accountId), after, want) : [];
    if (wantsEnded) {
      // Only the days the account created sessions on, newest first, from the cursor's (or a minute
      // from now: another replica's clock may be ahead) back to the oldest that can still hold one.
      const k = this.keys;
      const oldest = Date.parse(dayOf(query.oldestCreatedMs));
      const from = Date.parse(dayOf(after?.createdAtMs ?? Date.now() + CLOCK_SKEW_MS));
      const [days] = await Promise.all([
        this.redis.zrevrangebyscore(k.days(accountId), from, oldest),
        this.redis.zremrangebyscore(k.days(accountId), "-inf", `(${oldest}`),
      ]);
      for (let i = 0; i < days.length; i += DAYS_PER_READ) {
        const batch = days.slice(i, i + DAYS_PER_READ);
        const pages = await Promise.all(
          batch.flatMap((day) => SHARD_INDEXES.map((shard) => this.indexPage(k.ended(accountId, shard, day), after, want))),
        );
        found.push(...pages.flat());
        found.sort(newestFirst);
        const last = found[want - 1];
        if (last && last.createdAtMs >= Date.parse(batch.at(-1) as string)) break;
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

  /** One ZMSCORE of the session's possible timers in its shard's set. */
  sessionTimers(accountId: string, sessionId: string): Promise<ScheduledTimer[]> {
    return guard(async () => {
      const kinds: TimerKind[] = [...LIFECYCLE_TIMERS, "room_deletion", "transcript_ready"];
      const scores = await this.redis.zmscore(
        this.keys.timers(shardOf(sessionId)),
        ...kinds.map((timer) => timerMember(accountId, sessionId, timer)),
      );
      return kinds.flatMap((timer, i) => (scores[i] === null || scores[i] === undefined ? [] : [{ timer, atMs: Number(scores[i]) }]));
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

  // Ending marks are kept by session id: only a session's own account reaches it (through getSession).
  markEnding(_accountId: string, sessionId: string, ttlMs: number): Promise<void> {
    return guard(async () => {
      await this.redis.set(this.keys.ending(sessionId), "1", "PX", ttlMs);
    });
  }

  clearEnding(_accountId: string, sessionId: string): Promise<void> {
    return guard(async () => {
      await this.redis.del(this.keys.ending(sessionId));
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

/** Usage increments as the scripts take them: `field=n`, space-separated ('' for none). */
function incrementsOf(usage: UsageIncrement | undefined): string {
  return usage ? usage.fields.map(([field, by]) => `${field}=${by}`).join(" ") : "";
}

/** A session's version here: the JSON it was read as, and the account's webhook routes read with it. */
interface RedisVersion {
  json: string;
  routes: Record<string, string>;
}

/** The stored session if it is the account's (another account's is not found). */
function ownSession(json: string, accountId: string, sessionId: string): SessionRecord | undefined {
  const record = decodeSession(json, sessionId);
  return record.account_id === accountId ? record : undefined;
}
