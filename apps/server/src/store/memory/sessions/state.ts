/**
 * What the parts of the memory session store share: plain maps shaped like the domain (sessions by id,
 * each account's idempotency keys, creates in flight and usage, timers by session, marks and leases),
 * the clock, and the webhook store a change queues its events in, in the same synchronous step. Entries
 * that expire are dropped when read, and by dropExpired for those nobody reads again.
 */
import type { SessionStatus } from "@dhs/contract";
import type { TimerKind } from "../../../domain/sessions/feature-timers.js";
import type { ScheduledTimer } from "../../../domain/sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../../../domain/sessions/session.js";
import type { UsageIncrement } from "../../../domain/sessions/usage.js";
import type { MemoryWebhookStore } from "../customer-webhook-store.js";
import { entry } from "../maps.js";

/** A stored session: its JSON (so callers never share, and mutate, one object), and what lists read. */
export interface StoredSession {
  json: string;
  accountId: string;
  status: SessionStatus;
  createdAtMs: number;
  /** When an ended session's retention ends (ms); undefined while it is open. */
  expiresAt: number | undefined;
}

/** What an Idempotency-Key recorded: a create running (with its lock), done, or failed. */
export interface KeyRecord {
  state: "running" | "done" | "failed";
  fingerprint: string;
  lock: string | undefined;
  /** When a running create's lock expires (ms): past it, the create may not complete, and the key is over. */
  lockExpiresAt: number;
  sessionId: string;
  expiresAt: number;
}

export interface AccountState {
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

export interface Timer {
  accountId: string;
  atMs: number;
}

export class MemorySessionState {
  readonly sessions = new Map<string, StoredSession>();
  readonly accounts = new Map<string, AccountState>();
  /** session id -> its timers. */
  readonly timers = new Map<string, Map<TimerKind, Timer>>();
  /** session id -> when endSession's mark expires (ms). */
  readonly ending = new Map<string, number>();
  /** (session id, id of a LiveKit event that reached it) -> when it is forgotten (ms). */
  readonly livekitEvents = new Map<string, number>();
  readonly leases = new Map<string, { holder: string; until: number }>();
  /** session id -> the persona it was created with (JSON), and when it is forgotten (ms). */
  readonly personas = new Map<string, { json: string; expiresAt: number }>();

  constructor(
    readonly now: () => number,
    /** Where the events of a change are queued, in the same step as the change. */
    readonly webhooks: MemoryWebhookStore,
  ) {}

  account(accountId: string): AccountState {
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
  stored(accountId: string, sessionId: string): StoredSession | undefined {
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

  store(record: SessionRecord, expiresAt: number | undefined): void {
    const { id, account_id: accountId, status } = record;
    this.sessions.set(id, { json: JSON.stringify(record), accountId, status, createdAtMs: Date.parse(record.created_at), expiresAt });
    const account = this.account(accountId);
    account.sessions.add(id);
    if (!TERMINAL.has(status)) account.open.add(id);
    else {
      account.open.delete(id);
      // Its persona was kept for its dispatches, which are over.
      this.personas.delete(id);
    }
  }

  keyRecord(account: AccountState, idempotencyKey: string): KeyRecord | undefined {
    const recorded = account.keys.get(idempotencyKey);
    if (recorded === undefined || recorded.expiresAt > this.now()) return recorded;
    account.keys.delete(idempotencyKey);
    return undefined;
  }

  /** Created and active sessions, and creates in flight (their locks not yet expired). */
  open(account: AccountState): number {
    for (const [lock, expiresAt] of account.claims) if (expiresAt <= this.now()) account.claims.delete(lock);
    return account.open.size + account.claims.size;
  }

  /** Usage counters live as long as this process (the 400-day retention is the Redis store's). */
  count(account: AccountState, usage: UsageIncrement | undefined): void {
    if (!usage) return;
    const fields = entry(account.usage, usage.day, () => new Map<string, number>());
    for (const [field, by] of usage.fields) fields.set(field, (fields.get(field) ?? 0) + by);
  }

  schedule(accountId: string, sessionId: string, timers: readonly ScheduledTimer[]): void {
    const own = entry(this.timers, sessionId, () => new Map<TimerKind, Timer>());
    for (const { timer, atMs } of timers) own.set(timer, { accountId, atMs });
  }

  dropTimer(sessionId: string, timer: TimerKind): void {
    const own = this.timers.get(sessionId);
    own?.delete(timer);
    if (own?.size === 0) this.timers.delete(sessionId);
  }

  remember(sessionId: string, eventId: string, ttlMs: number): void {
    this.livekitEvents.set(eventKey(sessionId, eventId), this.now() + ttlMs);
  }

  /** Whether the LiveKit event reached the session within its window. */
  remembers(sessionId: string, eventId: string): boolean {
    return (this.livekitEvents.get(eventKey(sessionId, eventId)) ?? 0) > this.now();
  }

  dropExpired(): void {
    const now = this.now();
    for (const [id, expiresAt] of this.livekitEvents) if (expiresAt <= now) this.livekitEvents.delete(id);
    for (const [id, expiresAt] of this.ending) if (expiresAt <= now) this.ending.delete(id);
    for (const [id, kept] of this.personas) if (kept.expiresAt <= now) this.personas.delete(id);
    for (const [id, stored] of this.sessions) this.stored(stored.accountId, id);
    for (const account of this.accounts.values()) {
      for (const [key, recorded] of account.keys) if (recorded.expiresAt <= now) account.keys.delete(key);
    }
  }
}

const eventKey = (sessionId: string, eventId: string) => `${sessionId} ${eventId}`;
