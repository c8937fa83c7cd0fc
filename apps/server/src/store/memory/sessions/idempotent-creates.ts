/**
 * Idempotent creates in memory (IdempotentCreates): each account's keys with their record, and its creates
 * in flight by lock, which count as open sessions until they complete, are abandoned or their lock expires.
 * A create's claim, completion and release are each one synchronous step.
 */
import type { BeginOutcome, CreateLock } from "../../../domain/sessions/idempotency.js";
import type { CreateAbandonment, CreateClaim, CreateCompletion, IdempotentCreates } from "../../../domain/sessions/ports.js";
import type { KeyRecord, MemorySessionState } from "./state.js";

/** A create's lock here is its random id (a CreateLock to the domain). */
const lockOf = (lock: CreateLock) => lock as unknown as string;

export class MemoryIdempotentCreates implements IdempotentCreates {
  constructor(private readonly state: MemorySessionState) {}

  async beginCreate(accountId: string, idempotencyKey: string, print: string, claim: CreateClaim): Promise<BeginOutcome> {
    const { state } = this;
    const account = state.account(accountId);
    const now = state.now();
    const recorded = state.keyRecord(account, idempotencyKey);
    // A failed create, or one whose lock expired (it crashed), is over: the same body continues its session.
    const over = recorded !== undefined && (recorded.state === "failed" || (recorded.state === "running" && recorded.lockExpiresAt <= now));
    if (recorded && !over) {
      if (recorded.fingerprint !== print) return { kind: "reused" };
      if (recorded.state === "running") return { kind: "in_progress" };
      return { kind: "replay", sessionId: recorded.sessionId };
    }
    const open = state.open(account);
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

  async completeCreate({
    session,
    idempotencyKey,
    fingerprint,
    lock,
    keyTtlMs,
    events,
    usage,
    persona,
    personaTtlMs,
  }: CreateCompletion): Promise<boolean> {
    const { state } = this;
    const account = state.account(session.account_id);
    account.claims.delete(lockOf(lock));
    const recorded = state.keyRecord(account, idempotencyKey);
    if (recorded !== undefined && !this.holds(recorded, fingerprint, lockOf(lock), session.id)) return false;
    state.store(session, undefined);
    state.personas.set(session.id, { json: JSON.stringify(persona), expiresAt: state.now() + personaTtlMs });
    account.keys.set(idempotencyKey, {
      state: "done",
      fingerprint,
      lock: undefined,
      lockExpiresAt: 0,
      sessionId: session.id,
      expiresAt: state.now() + keyTtlMs,
    });
    state.count(account, usage);
    state.webhooks.record(session.account_id, events);
    return true;
  }

  async abandonCreate({ accountId, idempotencyKey, fingerprint, lock, sessionId, keepMs }: CreateAbandonment): Promise<void> {
    const { state } = this;
    const account = state.account(accountId);
    account.claims.delete(lockOf(lock));
    const recorded = state.keyRecord(account, idempotencyKey);
    if (recorded && this.holds(recorded, fingerprint, lockOf(lock), sessionId)) {
      account.keys.set(idempotencyKey, {
        state: "failed",
        fingerprint,
        lock: undefined,
        lockExpiresAt: 0,
        sessionId,
        expiresAt: state.now() + keepMs,
      });
    }
  }

  /** Whether the key is still held by this request's claim (its lock, unexpired, for this body and session). */
  private holds(recorded: KeyRecord, print: string, lock: string, sessionId: string): boolean {
    return (
      recorded.state === "running" &&
      recorded.fingerprint === print &&
      recorded.lock === lock &&
      recorded.sessionId === sessionId &&
      recorded.lockExpiresAt > this.state.now()
    );
  }
}
