/**
 * Idempotency of createSession (contract guide, "Idempotency"). A request is named by its account and
 * Idempotency-Key, and its body is fingerprinted as the SHA-256 of its RFC 8785 canonical JSON, so key
 * order and whitespace do not matter. What the store answers for a key decides the outcome:
 *
 * | store says                     | outcome                                              |
 * |--------------------------------|------------------------------------------------------|
 * | nothing recorded               | acquired: this request creates, holding a short lock |
 * | another fingerprint            | 409 idempotency_key_reused                           |
 * | same fingerprint, still locked | 409 idempotency_request_in_progress, Retry-After     |
 * | same fingerprint, done         | replay the session, Idempotent-Replayed: true         |
 *
 * Nothing is recorded for a request that fails: its lock is released, and a lock left by a crash
 * expires after the lock TTL.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

export type BeginOutcome =
  | { kind: "acquired"; lock: string }
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
