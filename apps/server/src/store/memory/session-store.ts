/**
 * The session store in process memory: the embedded default for development (REDIS_URL unset), refused
 * in production. It keeps the Redis store's semantics exactly (the same integration suite runs against
 * both), but only for one process: replicas would not share it.
 */
import { type SessionStatus, sessionStatusValues } from "@dhs/contract";
import type { OutboundEvent } from "../../domain/customer-webhooks/ports.js";
import type { BeginOutcome } from "../../domain/sessions/idempotency.js";
import {
  type DueTimer,
  isAfterCursor,
  type ListQuery,
  newestFirst,
  type ScheduledTimer,
  type SessionStore,
  type Versioned,
} from "../../domain/sessions/ports.js";
import type { SessionRecord } from "../../domain/sessions/session.js";
import type { ObligationTimer } from "../../domain/sessions/session-machine.js";
import type { UsageIncrement } from "../../domain/sessions/usage.js";
import { idempotencyRecord, keys, parseTimerMember, TIMER_KINDS, timerMember } from "../redis/keys.js";
import { MemoryWebhookStore } from "./customer-webhook-store.js";
import { claimDue, entry } from "./maps.js";

interface Expiring {
  value: string;
  expiresAt: number;
}

export class MemorySessionStore implements SessionStore {
  private readonly records = new Map<string, Expiring>();
  private readonly sessions = new Map<string, string>();
  /** session key -> when the ended session expires (ms). */
  private readonly expiries = new Map<string, number>();
  /** index key -> session id -> creation time (ms), as the Redis sorted sets. */
  private readonly indexes = new Map<string, Map<string, number>>();
  private readonly timers = new Map<string, number>();
  /** key -> expiry (ms). */
  private readonly ending = new Map<string, number>();
  private readonly events = new Map<string, number>();
  private readonly leases = new Map<string, { holder: string; until: number }>();
  /** account -> lock -> when it expires (ms): creates in flight, which count as open sessions. */
  private readonly claims = new Map<string, Map<string, number>>();
  /** usage key -> field -> count. */
  private readonly counters = new Map<string, Map<string, number>>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly now: () => number = Date.now,
    /** Where the events of a change are queued, in the same step as the change. */
    private readonly webhooks: MemoryWebhookStore = new MemoryWebhookStore(now),
  ) {
    // Expired records are dropped on read; this bounds the memory of keys nobody asks for again, and of
    // ending marks and webhook ids (which Redis would expire by itself).
    this.sweep = setInterval(() => this.dropExpired(), 60_000);
    this.sweep.unref();
  }

  async beginCreate(
    accountId: string,
    idempotencyKey: string,
    print: string,
    lockTtlMs: number,
    maxOpen: number,
    sessionId: string,
  ): Promise<BeginOutcome> {
    const key = keys.idempotency(accountId, idempotencyKey);
    const record = this.read(key);
    const recorded = record === undefined ? undefined : idempotencyRecord.parse(record);
    if (recorded && recorded.state !== "a") {
      if (recorded.fingerprint !== print) return { kind: "reused" };
      if (recorded.state === "p") return { kind: "in_progress" };
      return { kind: "replay", sessionId: recorded.sessionId };
    }
    const open = this.open(accountId);
    if (open >= maxOpen) return { kind: "limit", open };
    const id = recorded?.fingerprint === print ? recorded.sessionId : sessionId;
    const lock = crypto.randomUUID();
    this.records.set(key, { value: idempotencyRecord.pending(print, lock, id), expiresAt: this.now() + lockTtlMs });
    this.claimsOf(accountId).set(lock, this.now() + lockTtlMs);
    return { kind: "acquired", lock, sessionId: id };
  }

  async completeCreate(
    session: SessionRecord,
    idempotencyKey: string,
    print: string,
    lock: string,
    keyTtlMs: number,
    events: readonly OutboundEvent[],
    usage: UsageIncrement | undefined,
  ): Promise<boolean> {
    this.claimsOf(session.account_id).delete(lock);
    const key = keys.idempotency(session.account_id, idempotencyKey);
    const record = this.read(key);
    if (record !== undefined && record !== idempotencyRecord.pending(print, lock, session.id)) return false;
    this.sessions.set(keys.session(session.account_id, session.id), JSON.stringify(session));
    this.records.set(key, { value: idempotencyRecord.done(print, session.id), expiresAt: this.now() + keyTtlMs });
    this.index(keys.index(session.account_id, session.status)).set(session.id, Date.parse(session.created_at));
    this.count(session.account_id, usage);
    this.webhooks.record(session.account_id, events);
    return true;
  }

  async abandonCreate(
    accountId: string,
    idempotencyKey: string,
    print: string,
    lock: string,
    sessionId: string,
    keepMs: number,
  ): Promise<void> {
    this.claimsOf(accountId).delete(lock);
    const key = keys.idempotency(accountId, idempotencyKey);
    if (this.read(key) === idempotencyRecord.pending(print, lock, sessionId)) {
      this.records.set(key, { value: idempotencyRecord.abandoned(print, sessionId), expiresAt: this.now() + keepMs });
    }
  }

  async getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined> {
    // Stored as JSON, as in Redis, so callers never share (and mutate) one object.
    const json = this.sessionJson(accountId, sessionId);
    return json === undefined ? undefined : (JSON.parse(json) as SessionRecord);
  }

  async getVersioned(accountId: string, sessionId: string): Promise<Versioned | undefined> {
    const json = this.sessionJson(accountId, sessionId);
    return json === undefined ? undefined : { record: JSON.parse(json) as SessionRecord, version: json };
  }

  /** The stored session, unless it has expired (it is then dropped with its index entries, as Redis would). */
  private sessionJson(accountId: string, sessionId: string): string | undefined {
    const key = keys.session(accountId, sessionId);
    const expiresAt = this.expiries.get(key);
    if (expiresAt !== undefined && expiresAt <= this.now()) {
      this.sessions.delete(key);
      this.expiries.delete(key);
      for (const status of sessionStatusValues) this.index(keys.index(accountId, status)).delete(sessionId);
      return undefined;
    }
    return this.sessions.get(key);
  }

  async replaceSession(
    record: SessionRecord,
    version: string,
    previousStatus: SessionStatus,
    events: readonly OutboundEvent[],
    usage: UsageIncrement | undefined,
    expiresAtMs: number | undefined,
  ): Promise<boolean> {
    const key = keys.session(record.account_id, record.id);
    if (this.sessionJson(record.account_id, record.id) !== version) return false;
    this.sessions.set(key, JSON.stringify(record));
    if (expiresAtMs !== undefined) this.expiries.set(key, expiresAtMs);
    if (previousStatus !== record.status) {
      this.index(keys.index(record.account_id, previousStatus)).delete(record.id);
      this.index(keys.index(record.account_id, record.status)).set(record.id, Date.parse(record.created_at));
    }
    this.count(record.account_id, usage);
    this.webhooks.record(record.account_id, events);
    return true;
  }

  async openSessions(accountId: string): Promise<number> {
    return this.open(accountId);
  }

  async usage(accountId: string, days: readonly string[]): Promise<Record<string, string>[]> {
    return days.map((day) => {
      const fields = this.counters.get(keys.usage(accountId, day)) ?? new Map<string, number>();
      return Object.fromEntries([...fields].map(([field, n]) => [field, String(n)]));
    });
  }

  /** Created and active sessions, and creates in flight (their locks not yet expired). */
  private open(accountId: string): number {
    const claims = this.claimsOf(accountId);
    for (const [lock, expiresAt] of claims) if (expiresAt <= this.now()) claims.delete(lock);
    return this.index(keys.index(accountId, "created")).size + this.index(keys.index(accountId, "active")).size + claims.size;
  }

  private claimsOf(accountId: string): Map<string, number> {
    return entry(this.claims, accountId, () => new Map());
  }

  /** Usage counters live as long as this process (the 400-day retention is the Redis store's). */
  private count(accountId: string, usage: UsageIncrement | undefined): void {
    if (!usage) return;
    const key = keys.usage(accountId, usage.day);
    const fields = this.counters.get(key) ?? new Map<string, number>();
    for (const [field, by] of usage.fields) fields.set(field, (fields.get(field) ?? 0) + by);
    this.counters.set(key, fields);
  }

  async listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]> {
    const statuses = query.status ? [query.status] : sessionStatusValues;
    return statuses
      .flatMap((status) => [...this.index(keys.index(accountId, status))].map(([id, createdAtMs]) => ({ id, createdAtMs })))
      .filter((entry) => isAfterCursor(entry, query.after))
      .sort(newestFirst)
      .flatMap(({ id }) => {
        const json = this.sessionJson(accountId, id);
        return json === undefined ? [] : [JSON.parse(json) as SessionRecord];
      })
      .slice(0, query.limit + 1);
  }

  async scheduleTimers(accountId: string, sessionId: string, timers: readonly ScheduledTimer[]): Promise<void> {
    for (const { timer, atMs } of timers) this.timers.set(timerMember(accountId, sessionId, timer), atMs);
  }

  async cancelTimer(accountId: string, sessionId: string, timer: ObligationTimer): Promise<void> {
    this.timers.delete(timerMember(accountId, sessionId, timer));
  }

  async cancelTimers(accountId: string, sessionId: string): Promise<void> {
    for (const timer of TIMER_KINDS) this.timers.delete(timerMember(accountId, sessionId, timer));
  }

  async claimDueTimers(nowMs: number, leaseMs: number, max: number): Promise<DueTimer[]> {
    return claimDue(this.timers, nowMs, leaseMs, max).map((member) => ({
      ...(parseTimerMember(member) as Pick<DueTimer, "accountId" | "sessionId" | "timer">),
      claimedUntil: nowMs + leaseMs,
    }));
  }

  async completeTimer(due: DueTimer): Promise<void> {
    const member = timerMember(due.accountId, due.sessionId, due.timer);
    if (this.timers.get(member) === due.claimedUntil) this.timers.delete(member);
  }

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const held = this.leases.get(name);
    if (held && held.until > this.now() && held.holder !== holder) return false;
    this.leases.set(name, { holder, until: this.now() + ttlMs });
    return true;
  }

  async markEnding(accountId: string, sessionId: string, ttlMs: number): Promise<void> {
    this.ending.set(keys.ending(accountId, sessionId), this.now() + ttlMs);
  }

  async isEnding(accountId: string, sessionId: string): Promise<boolean> {
    return (this.ending.get(keys.ending(accountId, sessionId)) ?? 0) > this.now();
  }

  async clearEnding(accountId: string, sessionId: string): Promise<void> {
    this.ending.delete(keys.ending(accountId, sessionId));
  }

  async markEventSeen(eventId: string, ttlMs: number): Promise<boolean> {
    const expiresAt = this.events.get(eventId);
    if (expiresAt !== undefined && expiresAt > this.now()) return false;
    this.events.set(eventId, this.now() + ttlMs);
    return true;
  }

  async forgetEvent(eventId: string): Promise<void> {
    this.events.delete(eventId);
  }

  async ping(): Promise<void> {}

  private index(key: string): Map<string, number> {
    return entry(this.indexes, key, () => new Map());
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
  }

  private read(key: string): string | undefined {
    const entry = this.records.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.records.delete(key);
      return undefined;
    }
    return entry.value;
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [key, entry] of this.records) if (entry.expiresAt <= now) this.records.delete(key);
    for (const [id, expiresAt] of this.events) if (expiresAt <= now) this.events.delete(id);
    for (const [key, expiresAt] of this.ending) if (expiresAt <= now) this.ending.delete(key);
    for (const [key, expiresAt] of this.expiries) {
      if (expiresAt > now) continue;
      const record = JSON.parse(this.sessions.get(key) as string) as SessionRecord;
      this.sessionJson(record.account_id, record.id);
    }
  }
}
