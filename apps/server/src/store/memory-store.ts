/**
 * The session store in process memory: the embedded default for development (REDIS_URL unset), refused
 * in production. It keeps the Redis store's semantics exactly (the same integration suite runs against
 * both), but only for one process: replicas would not share it.
 */
import type { BeginOutcome } from "../domain/idempotency.js";
import type { SessionStore } from "../domain/ports.js";
import type { SessionRecord } from "../domain/session.js";
import { idempotencyRecord, keys } from "./keys.js";

interface Expiring {
  value: string;
  expiresAt: number;
}

export class MemorySessionStore implements SessionStore {
  private readonly records = new Map<string, Expiring>();
  private readonly sessions = new Map<string, string>();
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    // Expired records are dropped on read; this bounds the memory of keys nobody asks for again.
    this.sweep = setInterval(() => this.dropExpired(), 60_000);
    this.sweep.unref();
  }

  async beginCreate(accountId: string, idempotencyKey: string, print: string, lockTtlMs: number): Promise<BeginOutcome> {
    const key = keys.idempotency(accountId, idempotencyKey);
    const record = this.read(key);
    if (record === undefined) {
      const lock = crypto.randomUUID();
      this.records.set(key, { value: idempotencyRecord.pending(print, lock), expiresAt: this.now() + lockTtlMs });
      return { kind: "acquired", lock };
    }
    const [state, recordedPrint, rest] = record.split("|") as [string, string, string];
    if (recordedPrint !== print) return { kind: "reused" };
    if (state === "p") return { kind: "in_progress" };
    return { kind: "replay", sessionId: rest };
  }

  async completeCreate(session: SessionRecord, idempotencyKey: string, print: string, lock: string, keyTtlMs: number): Promise<boolean> {
    const key = keys.idempotency(session.account_id, idempotencyKey);
    const record = this.read(key);
    if (record !== undefined && record !== idempotencyRecord.pending(print, lock)) return false;
    this.sessions.set(keys.session(session.account_id, session.id), JSON.stringify(session));
    this.records.set(key, { value: idempotencyRecord.done(print, session.id), expiresAt: this.now() + keyTtlMs });
    return true;
  }

  async abandonCreate(accountId: string, idempotencyKey: string, print: string, lock: string): Promise<void> {
    const key = keys.idempotency(accountId, idempotencyKey);
    if (this.read(key) === idempotencyRecord.pending(print, lock)) this.records.delete(key);
  }

  async getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined> {
    // Stored as JSON, as in Redis, so callers never share (and mutate) one object.
    const json = this.sessions.get(keys.session(accountId, sessionId));
    return json === undefined ? undefined : (JSON.parse(json) as SessionRecord);
  }

  async ping(): Promise<void> {}

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
  }
}
