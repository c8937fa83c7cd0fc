/**
 * What the domain needs from the outside, as interfaces: the store (Redis or memory), LiveKit's room
 * service and the token issuer. Adapters live in store/ and livekit/; the domain never imports them.
 */
import type { BeginOutcome } from "./idempotency.js";
import type { SessionRecord } from "./session.js";

export interface SessionStore {
  /**
   * Atomically: records a lock for (account, key) when nothing is recorded, or reports what is.
   * The lock expires after lockTtlMs, so a crashed request cannot wedge the key.
   */
  beginCreate(accountId: string, idempotencyKey: string, fingerprint: string, lockTtlMs: number): Promise<BeginOutcome>;
  /**
   * Atomically: stores the session and marks the key done (remembered keyTtlMs), if the lock is still
   * this request's. False when another request holds the key now; nothing is written then.
   */
  completeCreate(
    session: SessionRecord,
    idempotencyKey: string,
    fingerprint: string,
    lock: string,
    keyTtlMs: number,
  ): Promise<boolean>;
  /** Releases this request's lock, so the key can be used again. */
  abandonCreate(accountId: string, idempotencyKey: string, fingerprint: string, lock: string): Promise<void>;
  getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined>;
  /** Resolves when the store answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface CreateRoomRequest {
  name: string;
  /** Seconds LiveKit keeps the room open before anyone joins. */
  emptyTimeoutS: number;
  maxParticipants: number;
  metadata: string;
  /** The LiveKit agent to dispatch to the room as it is created. */
  agentName: string;
}

export interface RoomService {
  createRoom(request: CreateRoomRequest): Promise<void>;
  deleteRoom(name: string): Promise<void>;
}

export interface TokenRequest {
  identity: string;
  roomName: string;
  ttlSeconds: number;
}

export interface TokenIssuer {
  mint(request: TokenRequest): Promise<string>;
}

/** A dependency is down: the request changed nothing and may be retried (mapped to 503). */
export class DependencyUnavailableError extends Error {
  override readonly name = "DependencyUnavailableError";
  constructor(
    readonly dependency: "store" | "livekit",
    options?: { cause?: unknown },
  ) {
    super(`${dependency} unavailable`, options);
  }
}
