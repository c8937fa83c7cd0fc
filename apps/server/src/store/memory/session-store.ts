/**
 * The session store in process memory: the embedded default for development (REDIS_URL unset), refused
 * in production. Plain maps shaped like the domain: sessions by id, each account's idempotency keys,
 * creates in flight and usage, timers by session. The same contract suites (store/contract) and HTTP
 * suite run against it and against Redis, so it keeps their semantics, but only for one process:
 * replicas would not share it.
 */
import type { SessionStatus } from "@dhs/contract";
import type { BeginOutcome, CreateLock } from "../../domain/sessions/idempotency.js";
import {
  type CreateAbandonment,
  type CreateClaim,
  type CreateCompletion,
  type DueTimer,
  isAfterCursor,
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
import type { UsageIncrement } from "../../domain/sessions/usage.js";
import { MemoryWebhookStore } from "./customer-webhook-store.js";
import { entry } from "./maps.js";

/** A stored session: its JSON (so callers never share, and mutate, one object), and what lists read. */
interface StoredSession {
  json: string;
  accountId: string;
  status: SessionStatus;
  createdAtMs: number;
  /** When an ended session's retention ends (ms); undefined while it is open. */
  expiresAt: number | undefined;
}

/** What an Idempotency-Key recorded: a create running (with its lock), done, or failed. */
interface KeyRecord {
  state: "running" | "done" | "failed";
  fingerprint: string;
  lock: string | undefined;
  /** When a running create's lock expires (ms): past it, the create may not complete, and the key is over. */
  lockExpiresAt: number;
  sessionId: string;
  expiresAt: number;
}

interface AccountState {
  /** The account's sessions, by id. */
  sessions: Set<string>;
  /** Those of them open now (created or active): what the cap counts. */
  open: Set<string>;
  keys: Map<string, KeyRecord>;
  /** Creates in flight: lock -> when it expires (ms); they count as open sessions. */
  claims: Map<string, number>;
  /** UTC day -> counter -> count. */
  usage: Map<string, Map<string, number>>;
}

interface Timer {
  accountId: string;
  atMs: number;
}

export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, StoredSession>();
  private readonly accounts = new Map<string, AccountState>();
  /** session id -> its timers. */
  private readonly timers = new Map<string, Map<TimerKind, Timer>>();
  /** session id -> when endSession's mark expires (ms). */
  private readonly ending = new Map<string, number>();
  /** (session id, id of a LiveKit event that reached it) -> when it is forgotten (ms). */
  private readonly livekitEvents = new Map<string, number>();
  private readonly leases = new Map<string, { holder: string; until: number }>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly now: () => number = Date.now,
    /** Where the events of a change are queued, in the same step as the change. */
    private readonly webhooks: MemoryWebhookStore = new MemoryWebhookStore(now),
  ) {
    // Expired entries are dropped on read; this bounds the memory of those nobody asks for again (which
    // Redis would expire by itself).
    this.sweep = setInterval(() => this.dropExpired(), 60_000);
    this.sweep.unref();
  }

  async beginCreate(accountId: string, idempotencyKey: string, print: string, claim: CreateClaim): Promise<BeginOutcome> {
    const account = this.account(accountId);
    const now = this.now();
    const recorded = this.keyRecord(account, idempotencyKey);
    // A failed create, or one whose lock expired (it crashed), is over: the same body continues its session.
    const over = recorded !== undefined && (recorded.state === "failed" || (recorded.state === "running" && recorded.lockExpiresAt <= now));
    if (recorded && !over) {
      if (recorded.fingerprint !== print) return { kind: "reused" };
      if (recorded.state === "running") return { kind: "in_progress" };
      return { kind: "replay", sessionId: recorded.sessionId };
    }
    const open = this.open(account);
    if (open >= claim.maxOpen) return { kind: "limit", open };
    const id = recorded?.fingerprint === print ? recorded.sessionId : crypto.randomUUID();
    const lock = crypto.randomUUID();
    const lockExpiresAt = now + claim.lockTtlMs;
    account.keys.set(idempotencyKey, {
      state: "running",
      fingerprint: print,
      lock,
      lockExpiresAt,
      sessionId: id,
      expiresAt: now + claim.keyTtlMs,
    });
    account.claims.set(lock, lockExpiresAt);
    return { kind: "acquired", lock: lock as unknown as CreateLock, sessionId: id };
  }

  async completeCreate({ session, idempotencyKey, fingerprint, lock, keyTtlMs, events, usage }: CreateCompletion): Promise<boolean> {
    const account = this.account(session.account_id);
    account.claims.delete(lockOf(lock));
    const recorded = this.keyRecord(account, idempotencyKey);
    if (recorded !== undefined && !this.holds(recorded, fingerprint, lockOf(lock), session.id)) return false;
    this.store(session, undefined);
    account.keys.set(idempotencyKey, {
      state: "done",
      fingerprint,
      lock: undefined,
      lockExpiresAt: 0,
      sessionId: session.id,
      expiresAt: this.now() + keyTtlMs,
    });
    this.count(account, usage);
    this.webhooks.record(session.account_id, events);
    return true;
  }

  async abandonCreate({ accountId, idempotencyKey, fingerprint, lock, sessionId, keepMs }: CreateAbandonment): Promise<void> {
    const account = this.account(accountId);
    account.claims.delete(lockOf(lock));
    const recorded = this.keyRecord(account, idempotencyKey);
    if (recorded && this.holds(recorded, fingerprint, lockOf(lock), sessionId)) {
      account.keys.set(idempotencyKey, {
        state: "failed",
        fingerprint,
        lock: undefined,
        lockExpiresAt: 0,
        sessionId,
        expiresAt: this.now() + keepMs,
      });
    }
  }

  async getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined> {
    const stored = this.stored(accountId, sessionId);
    return stored === undefined ? undefined : (JSON.parse(stored.json) as SessionRecord);
  }

  async findSession(sessionId: string): Promise<SessionRecord | undefined> {
    const accountId = this.sessions.get(sessionId)?.accountId;
    return accountId === undefined ? undefined : this.getSession(accountId, sessionId);
  }

  async readForChange(accountId: string, sessionId: string, livekitEventId?: string): Promise<SessionSnapshot | undefined> {
    const stored = this.stored(accountId, sessionId);
    if (stored === undefined) return undefined;
    const now = this.now();
    return {
      record: JSON.parse(stored.json) as SessionRecord,
      version: stored.json as unknown as SessionVersion,
      ending: (this.ending.get(sessionId) ?? 0) > now,
      eventApplied: livekitEventId !== undefined && (this.livekitEvents.get(eventKey(sessionId, livekitEventId)) ?? 0) > now,
    };
  }

  async replaceSession(change: SessionChange): Promise<boolean> {
    const { record, events, usage, timers, livekitEvent } = change;
    if (this.stored(record.account_id, record.id)?.json !== (change.version as unknown as string)) return false;
    this.store(record, change.expiresAtMs);
    this.count(this.account(record.account_id), usage);
    this.webhooks.record(record.account_id, events);
    for (const timer of timers.cancel) this.dropTimer(record.id, timer);
    await this.scheduleTimers(record.account_id, record.id, timers.schedule);
    if (livekitEvent) await this.rememberEvent(record.id, livekitEvent.id, livekitEvent.ttlMs);
    return true;
  }

  async rememberEvent(sessionId: string, eventId: string, ttlMs: number): Promise<void> {
    this.livekitEvents.set(eventKey(sessionId, eventId), this.now() + ttlMs);
  }

  /** Nothing to repair: an end and its place's return are one step here. */
  async settleEnded(_record: SessionRecord): Promise<void> {}

  async openSessions(accountId: string): Promise<number> {
    return this.open(this.account(accountId));
  }

  async countUsage(accountId: string, increment: UsageIncrement): Promise<void> {
    this.count(this.account(accountId), increment);
  }

  async usage(accountId: string, days: readonly string[]): Promise<Record<string, string>[]> {
    const { usage } = this.account(accountId);
    return days.map((day) => Object.fromEntries([...(usage.get(day) ?? [])].map(([field, n]) => [field, String(n)])));
  }

  async listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]> {
    const found: SessionRecord[] = [];
    const positions = [...this.account(accountId).sessions]
      .flatMap((id) => {
        const stored = this.stored(accountId, id);
        return stored && (query.status === undefined || stored.status === query.status) ? [{ id, createdAtMs: stored.createdAtMs }] : [];
      })
      .filter((position) => isAfterCursor(position, query.after))
      .sort(newestFirst)
      .slice(0, query.limit + 1);
    for (const { id } of positions) found.push(JSON.parse((this.sessions.get(id) as StoredSession).json) as SessionRecord);
    return found;
  }

  async scheduleTimers(accountId: string, sessionId: string, timers: readonly ScheduledTimer[]): Promise<void> {
    const own = entry(this.timers, sessionId, () => new Map<TimerKind, Timer>());
    for (const { timer, atMs } of timers) own.set(timer, { accountId, atMs });
  }

  async cancelTimer(_accountId: string, sessionId: string, timer: ObligationTimer): Promise<void> {
    this.dropTimer(sessionId, timer);
  }

  async cancelTimers(_accountId: string, sessionId: string): Promise<void> {
    for (const timer of LIFECYCLE_TIMERS) this.dropTimer(sessionId, timer);
  }

  async sessionTimers(_accountId: string, sessionId: string): Promise<ScheduledTimer[]> {
    return [...(this.timers.get(sessionId) ?? [])].map(([timer, { atMs }]) => ({ timer, atMs }));
  }

  async claimDueTimers(nowMs: number, leaseMs: number, max: number): Promise<DueTimer[]> {
    const due: (Timer & { sessionId: string; timer: TimerKind })[] = [];
    for (const [sessionId, own] of this.timers) {
      for (const [timer, at] of own) if (at.atMs <= nowMs) due.push({ ...at, sessionId, timer });
    }
    const claimed = due.sort((a, b) => a.atMs - b.atMs).slice(0, max);
    const claimedUntil = nowMs + leaseMs;
    for (const { sessionId, timer, accountId } of claimed) this.timers.get(sessionId)?.set(timer, { accountId, atMs: claimedUntil });
    return claimed.map(({ accountId, sessionId, timer }) => ({ accountId, sessionId, timer, claimedUntil }));
  }

  async completeTimer(due: DueTimer): Promise<void> {
    if (this.timers.get(due.sessionId)?.get(due.timer)?.atMs === due.claimedUntil) this.dropTimer(due.sessionId, due.timer);
  }

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const held = this.leases.get(name);
    if (held && held.until > this.now() && held.holder !== holder) return false;
    this.leases.set(name, { holder, until: this.now() + ttlMs });
    return true;
  }

  async markEnding(_accountId: string, sessionId: string, ttlMs: number): Promise<void> {
    this.ending.set(sessionId, this.now() + ttlMs);
  }

  async clearEnding(_accountId: string, sessionId: string): Promise<void> {
    this.ending.delete(sessionId);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweep);
  }

  private account(accountId: string): AccountState {
    return entry(this.accounts, accountId, () => ({
      sessions: new Set(),
      open: new Set(),
      keys: new Map(),
      claims: new Map(),
      usage: new Map(),
    }));
  }

  /**
   * The session, if it is this account's and its retention has not ended: another account's session is
   * not found, whatever its id (sessions are kept by id alone, so the check is explicit).
   */
  private stored(accountId: string, sessionId: string): StoredSession | undefined {
    const stored = this.sessions.get(sessionId);
    if (stored === undefined || stored.accountId !== accountId) return undefined;
    if (stored.expiresAt !== undefined && stored.expiresAt <= this.now()) {
      this.sessions.delete(sessionId);
      const account = this.accounts.get(accountId);
      account?.sessions.delete(sessionId);
      account?.open.delete(sessionId);
      return undefined;
    }
    return stored;
  }

  private store(record: SessionRecord, expiresAt: number | undefined): void {
    const { id, account_id: accountId, status } = record;
    this.sessions.set(id, { json: JSON.stringify(record), accountId, status, createdAtMs: Date.parse(record.created_at), expiresAt });
    const account = this.account(accountId);
    account.sessions.add(id);
    if (!TERMINAL.has(status)) account.open.add(id);
    else account.open.delete(id);
  }

  private keyRecord(account: AccountState, idempotencyKey: string): KeyRecord | undefined {
    const recorded = account.keys.get(idempotencyKey);
    if (recorded === undefined || recorded.expiresAt > this.now()) return recorded;
    account.keys.delete(idempotencyKey);
    return undefined;
  }

  /** Whether the key is still held by this request's claim (its lock, unexpired, for this body and session). */
  private holds(recorded: KeyRecord, print: string, lock: string, sessionId: string): boolean {
    return (
      recorded.state === "running" &&
      recorded.fingerprint === print &&
      recorded.lock === lock &&
      recorded.sessionId === sessionId &&
      recorded.lockExpiresAt > this.now()
    );
  }

  /** Created and active sessions, and creates in flight (their locks not yet expired). */
  private open(account: AccountState): number {
    for (const [lock, expiresAt] of account.claims) if (expiresAt <= this.now()) account.claims.delete(lock);
    return account.open.size + account.claims.size;
  }

  /** Usage counters live as long as this process (the 400-day retention is the Redis store's). */
  private count(account: AccountState, usage: UsageIncrement | undefined): void {
    if (!usage) return;
    const fields = entry(account.usage, usage.day, () => new Map<string, number>());
    for (const [field, by] of usage.fields) fields.set(field, (fields.get(field) ?? 0) + by);
  }

  private dropTimer(sessionId: string, timer: TimerKind): void {
    const own = this.timers.get(sessionId);
    own?.delete(timer);
    if (own?.size === 0) this.timers.delete(sessionId);
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [id, expiresAt] of this.livekitEvents) if (expiresAt <= now) this.livekitEvents.delete(id);
    for (const [id, expiresAt] of this.ending) if (expiresAt <= now) this.ending.delete(id);
    for (const [id, stored] of this.sessions) this.stored(stored.accountId, id);
    for (const account of this.accounts.values()) {
      for (const [key, recorded] of account.keys) if (recorded.expiresAt <= now) account.keys.delete(key);
    }
  }
}

const eventKey = (sessionId: string, eventId: string) => `${sessionId} ${eventId}`;
/** A create's lock here is its random id (a CreateLock to the domain). */
const lockOf = (lock: CreateLock) => lock as unknown as string;
