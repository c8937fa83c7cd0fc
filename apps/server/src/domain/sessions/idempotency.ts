/**
 * Idempotency of createSession (contract guide, "Idempotency"). A request is named by its account and
 * Idempotency-Key, and its body is fingerprinted as the SHA-256 of its RFC 8785 canonical JSON, so key
 * order and whitespace do not matter. What the store answers for a key decides the outcome:
 *
 * | store says                          | outcome                                              |
 * |-------------------------------------|------------------------------------------------------|
 * | nothing recorded                    | acquired: this request creates, holding a short lock |
 * | same fingerprint, failed before     | acquired, continuing the failed create's session id  |
 * | another fingerprint, failed before  | acquired, as if nothing were recorded                |
 * | another fingerprint                 | 409 idempotency_key_reused                           |
 * | same fingerprint, still locked      | 409 idempotency_request_in_progress, Retry-After     |
 * | same fingerprint, done              | replay the session, Idempotent-Replayed: true         |
 *
 * A request that fails releases its lock (a lock left by a crash expires after the lock TTL) and keeps
 * only the session id it was creating: a LiveKit call that timed out may still have made the room, and
 * the retry then finds that room instead of making a second one beside it.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

declare const createLock: unique symbol;
/**
 * A create's hold on its Idempotency-Key, as the store handed it out: opaque to the domain, handed back
 * unchanged to complete or abandon that create.
 */
export type CreateLock = { readonly [createLock]: true };

export type BeginOutcome =
  /** This request creates the session `sessionId` (new, or the one a failed create with this key began). */
  | { kind: "acquired"; lock: CreateLock; sessionId: string }
  | { kind: "reused" }
  | { kind: "in_progress" }
  | { kind: "replay"; sessionId: string }
  /** The account has `open` sessions open (and creates in flight), as many as it may: nothing was claimed. */
  | { kind: "limit"; open: number };

export function fingerprint(body: unknown): string {
  const canonical = canonicalize(body ?? {});
  if (canonical === undefined) throw new TypeError("body cannot be canonicalized");
  // base64url: the same 256 bits in 43 characters instead of 64 (it is stored for every create).
  return createHash("sha256").update(canonical, "utf8").digest("base64url");
}
