/**
 * Idempotent creates on Redis (IdempotentCreates, contract guide "Idempotency"). A create steps across
 * two slots, ordered so that a crash between any two steps leaves nothing a reader could misread: the key
 * is claimed (its shard) and a place held among the account's open sessions (its slot) at once; the room
 * is made; the session, its key's completion and its events are one script (idempotent-creates-scripts.ts);
 * then the account counts it. A create that dies before storing its session leaves its claim, which the
 * retry with the same key continues (same session id, same room) or the repair gives back once it has
 * expired (open-sessions.ts); a create never stores its session past its lock's expiry, so a place given
 * back is never taken after all.
 */
import type { BeginOutcome, CreateLock } from "../../../domain/sessions/idempotency.js";
import type { CreateAbandonment, CreateClaim, CreateCompletion, IdempotentCreates } from "../../../domain/sessions/ports.js";
import { encodeSession } from "../../session-format.js";
import { skippable } from "../../skipped-steps.js";
import { guard } from "../guard.js";
import { idempotencyRecord, keyShardOf, sessionIdIn } from "../keys.js";
import { eventKeys, type SessionStoreContext } from "./context.js";
import type { OpenSessions } from "./open-sessions.js";

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

export class RedisIdempotentCreates implements IdempotentCreates {
  constructor(
    private readonly context: SessionStoreContext,
    private readonly places: OpenSessions,
  ) {}

  /**
   * Claims the key and holds a place for a new session at once (two slots, one round trip). When the key
   * continues an earlier create's session instead, or is not claimed, the place held for the new one is
   * given back; at the cap, the account is repaired once and the place asked for again.
   */
  beginCreate(accountId: string, idempotencyKey: string, print: string, claim: CreateClaim): Promise<BeginOutcome> {
    const { keys, scripts } = this.context;
    const { places } = this;
    return guard(async () => {
      const nowMs = Date.now();
      const proposed = sessionIdIn(keyShardOf(accountId, idempotencyKey));
      const lock = crypto.randomUUID();
      const expectedExpiry = nowMs + claim.lockTtlMs;
      const [begun, held] = await Promise.all([
        scripts.run("beginCreate", {
          record: keys.idempotency(accountId, idempotencyKey),
          fingerprint: print,
          lockTtlMs: claim.lockTtlMs,
          nowMs,
          lock,
          sessionId: proposed,
          keyTtlMs: claim.keyTtlMs,
        }),
        places.reserve(accountId, proposed, claim.createdAtMs, expectedExpiry, claim.maxOpen),
      ]);
      const [kind, detail, expiry] = begun;
      const sessionId = kind === "acquired" ? (detail as string) : undefined;
      if (held.ok && sessionId !== proposed) await places.unreserve(accountId, proposed, expectedExpiry);
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
      place ??= await places.reserve(accountId, id, claim.createdAtMs, claimExpiry, claim.maxOpen);
      if (!place.ok && (await places.repair(accountId, false))) {
        place = await places.reserve(accountId, id, claim.createdAtMs, claimExpiry, claim.maxOpen);
      }
      if (!place.ok) {
        // Nothing is claimed at the cap: the key goes back to what it was for this body.
        await scripts.run("abandonCreate", {
          record: keys.idempotency(accountId, idempotencyKey),
          pending: idempotencyRecord.pending(print, lock, claimExpiry, id),
          abandoned: idempotencyRecord.abandoned(print, id),
          keepMs: claim.keyTtlMs,
        });
        return { kind: "limit", open: place.open };
      }
      const claimed: RedisCreateLock = { id: lock, expiryMs: claimExpiry, routes: place.routes };
      await this.context.afterStep("create:claimed");
      return { kind: "acquired", lock: claimed as unknown as CreateLock, sessionId: id };
    });
  }

  completeCreate({
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
    const { keys, scripts, afterStep } = this.context;
    const accountId = session.account_id;
    const held = lockOf(lock);
    return guard(async () => {
      await afterStep("create:completing");
      const [written] = await scripts.run("completeCreate", {
        record: keys.idempotency(accountId, idempotencyKey),
        session: keys.session(session.id),
        persona: keys.persona(session.id),
        pending: pendingRecord(fingerprint, held, session.id),
        done: idempotencyRecord.done(fingerprint, session.id),
        keyTtlMs,
        json: encodeSession(session),
        nowMs: Date.now(),
        lockExpiryMs: held.expiryMs,
        personaJson: JSON.stringify(persona),
        personaTtlMs,
        ...eventKeys(keys, accountId, session.id, held.routes, events),
      });
      if (written !== 1) return false;
      await afterStep("create:stored");
      // The session stands: should counting it fail, the repair counts it once its claim has expired.
      await skippable(this.places.admit(accountId, session.id, usage), "open_place_count", this.context.stepSkipped);
      return true;
    });
  }

  abandonCreate({ accountId, idempotencyKey, fingerprint, lock, sessionId, keepMs }: CreateAbandonment): Promise<void> {
    const { keys, scripts } = this.context;
    const held = lockOf(lock);
    return guard(async () => {
      await Promise.all([
        scripts.run("abandonCreate", {
          record: keys.idempotency(accountId, idempotencyKey),
          pending: pendingRecord(fingerprint, held, sessionId),
          abandoned: idempotencyRecord.abandoned(fingerprint, sessionId),
          keepMs,
        }),
        this.places.unreserve(accountId, sessionId, held.expiryMs),
      ]);
    });
  }
}
