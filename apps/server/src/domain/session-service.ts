/**
 * The use cases of sessions: create (idempotent, creates the LiveKit room with the digital human's agent
 * dispatched) and get (the current state, with a freshly minted token while connectable).
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Session, SessionCreate } from "@dhs/contract";
import type { Principal } from "./api-keys.js";
import { AppError } from "./app-error.js";
import type { DigitalHumanCatalog } from "./digital-humans.js";
import { fingerprint } from "./idempotency.js";
import type { RoomService, SessionStore, TokenIssuer } from "./ports.js";
import { type SessionRecord, isConnectable, roomNameFor, toSessionView } from "./session.js";

export interface SessionSettings {
  /** Returned to callers as rtc_url. */
  rtcUrl: string;
  participantTokenTtlS: number;
  /** LiveKit closes a room nobody joined after this long (and the sweeper cancels the session). */
  sessionJoinTimeoutS: number;
  idempotencyKeyTtlMs: number;
  idempotencyLockTtlMs: number;
}

export interface SessionServiceDeps {
  store: SessionStore;
  rooms: RoomService;
  tokens: TokenIssuer;
  catalog: DigitalHumanCatalog;
  settings: SessionSettings;
  now?: () => Date;
  /** Failures that do not reach the caller (clean-ups), for logs. */
  onBackgroundError?: (error: unknown, what: string) => void;
}

export interface CreateResult {
  session: Session;
  replayed: boolean;
}

// The session's participant and the digital human, plus one place for a reconnecting browser whose old
// connection LiveKit has not yet dropped.
const MAX_PARTICIPANTS = 3;

export class SessionService {
  private readonly now: () => Date;

  constructor(private readonly deps: SessionServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async create(principal: Principal, idempotencyKey: string, body: SessionCreate): Promise<CreateResult> {
    const { store, rooms, catalog, settings } = this.deps;
    const digitalHuman = catalog.resolve(body.digital_human_id);
    if (!digitalHuman) {
      throw new AppError("digital_human_not_found", `No digital human ${body.digital_human_id}.`);
    }

    const accountId = principal.accountId;
    const print = fingerprint(body);
    const begun = await store.beginCreate(accountId, idempotencyKey, print, settings.idempotencyLockTtlMs);
    switch (begun.kind) {
      case "reused":
        throw new AppError("idempotency_key_reused", "This Idempotency-Key was already used with a different request body.");
      case "in_progress":
        throw inProgress();
      case "replay": {
        const record = await store.getSession(accountId, begun.sessionId);
        if (!record) throw new Error(`idempotency record of ${idempotencyKey} names missing session ${begun.sessionId}`);
        return { session: await this.view(record), replayed: true };
      }
      case "acquired":
        break;
    }

    const id = randomUUID();
    const record: SessionRecord = {
      id,
      account_id: accountId,
      status: "created",
      room_name: roomNameFor(id),
      participant_identity: body.participant_identity ?? `participant-${randomBytes(6).toString("hex")}`,
      digital_human_id: digitalHuman.id,
      agent_name: digitalHuman.agent_name,
      tags: body.tags ?? [],
      metadata: body.metadata ?? {},
      end_reason: null,
      created_at: this.now().toISOString(),
      started_at: null,
      ended_at: null,
    };

    let stored = false;
    let roomCreated = false;
    try {
      await rooms.createRoom({
        name: record.room_name,
        emptyTimeoutS: settings.sessionJoinTimeoutS,
        maxParticipants: MAX_PARTICIPANTS,
        metadata: JSON.stringify({ session_id: id }),
        agentName: digitalHuman.agent_name,
      });
      roomCreated = true;
      stored = await store.completeCreate(record, idempotencyKey, print, begun.lock, settings.idempotencyKeyTtlMs);
      // The lock expired and another request with this key took over: it creates the session, not us.
      if (!stored) throw inProgress();
    } finally {
      if (!stored) {
        // Nothing of a failed create may remain: the key becomes usable again and the room goes away.
        this.background(store.abandonCreate(accountId, idempotencyKey, print, begun.lock), "release idempotency lock");
        if (roomCreated) this.background(rooms.deleteRoom(record.room_name), "delete room of failed create");
      }
    }
    return { session: await this.view(record), replayed: false };
  }

  async get(principal: Principal, sessionId: string): Promise<Session> {
    // UUIDs are case-insensitive; ours are stored in lower case.
    const record = await this.deps.store.getSession(principal.accountId, sessionId.toLowerCase());
    // Another account's session is indistinguishable from one that does not exist.
    if (!record) throw new AppError("not_found", `No session ${sessionId}.`);
    return this.view(record);
  }

  private async view(record: SessionRecord): Promise<Session> {
    const { tokens, settings } = this.deps;
    const token = isConnectable(record.status)
      ? await tokens.mint({ identity: record.participant_identity, roomName: record.room_name, ttlSeconds: settings.participantTokenTtlS })
      : null;
    return toSessionView(record, settings.rtcUrl, token);
  }

  private background(promise: Promise<unknown>, what: string): void {
    promise.catch((error: unknown) => this.deps.onBackgroundError?.(error, what));
  }
}

// A create finishes well within a second, so the first retry usually replays it; the lock TTL is only
// the bound for a request that crashed.
function inProgress(): AppError {
  return new AppError(
    "idempotency_request_in_progress",
    "A request with this Idempotency-Key is still being processed; retry after 1 s.",
    { retryAfterSeconds: 1 },
  );
}
