/**
 * The use cases of sessions: create (idempotent; creates the LiveKit room with the digital human's agent
 * dispatched), get and refresh (a freshly minted token while connectable), end, list, and the events that
 * move a session (LiveKit webhooks and timers), each through the state machine.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Session, SessionCreate, SessionSummary } from "@dhs/contract";
import type { AccountLimits } from "./account-limits.js";
import type { Principal } from "./api-keys.js";
import { AppError } from "./app-error.js";
import type { DigitalHuman, DigitalHumanCatalog } from "./digital-humans.js";
import { fingerprint } from "./idempotency.js";
import type {
  AgentJob,
  DueTimer,
  ListPosition,
  ListQuery,
  RoomService,
  ScheduledTimer,
  SessionMetrics,
  SessionStore,
  TokenIssuer,
} from "./ports.js";
import { isConnectable, roomNameFor, type SessionRecord, TERMINAL, toSessionSummary, toSessionView } from "./session.js";
import { sessionEvents } from "./session-events.js";
import { type Durations, type Effect, type SessionEvent, timersOnCreate, transition } from "./session-machine.js";
import { usageOf } from "./usage.js";

export interface SessionSettings {
  /** Returned to callers as rtc_url. */
  rtcUrl: string;
  participantTokenTtlS: number;
  idempotencyKeyTtlMs: number;
  idempotencyLockTtlMs: number;
  /** joinTimeoutS also bounds the room: LiveKit closes a room nobody joined a little after it. */
  durations: Durations;
  /** How long a webhook event is kept while its deliveries are pending. */
  eventRetainMs: number;
  /** How long a LiveKit event id is remembered, so that LiveKit's redelivery of it changes nothing. */
  livekitEventDedupeMs: number;
}

/** What LiveKit said happened in a session's room, as far as sessions care. */
export type RoomEvent =
  | { type: "participant_joined" | "participant_left"; identity: string; sid: string; isAgent: boolean }
  | { type: "room_finished" };

export interface SessionServiceDeps {
  store: SessionStore;
  rooms: RoomService;
  tokens: TokenIssuer;
  catalog: DigitalHumanCatalog;
  accounts: AccountLimits;
  settings: SessionSettings;
  now?: () => Date;
  metrics?: SessionMetrics;
  /** Failures that do not reach the caller (clean-ups), for logs. */
  onBackgroundError?: (error: unknown, what: string) => void;
  /** Called after a change queued webhook events, so this replica delivers them without waiting. */
  onEventsQueued?: (accountId: string) => void;
}

/** The idempotency key this create claimed: the key, the body's fingerprint, and the claim's lock. */
interface ClaimedKey {
  idempotencyKey: string;
  print: string;
  lock: string;
}

export interface CreateResult {
  session: Session;
  replayed: boolean;
}

// The session's participant and the digital human, plus one place for a reconnecting browser whose old
// connection LiveKit has not yet dropped.
const MAX_PARTICIPANTS = 3;
// LiveKit closes a room by itself once nobody but agents is in it: after its empty timeout when nobody
// ever joined, after its departure timeout (20 s unless set) once the last participant left. Both are set
// past the service's own join and departure timeouts, so the service's timers decide why a session ended
// and LiveKit's only back them up, for a room the service can no longer end.
const ROOM_TIMEOUT_MARGIN_S = 30;

// Longer than an endSession can take (LiveKit's timeout plus the Redis calls around it).
const ENDING_MARK_MS = 60_000;

export class SessionService {
  private readonly now: () => Date;

  constructor(private readonly deps: SessionServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async create(principal: Principal, idempotencyKey: string, body: SessionCreate): Promise<CreateResult> {
    const digitalHuman = this.deps.catalog.resolve(body.digital_human_id, principal.accountId);
    if (!digitalHuman) {
      const which = body.digital_human_id ?? "(the account has none)";
      throw new AppError("digital_human_not_found", `No digital human ${which}.`);
    }
    const print = fingerprint(body);
    const claim = await this.claim(principal.accountId, idempotencyKey, print);
    if (claim.kind === "replay") return { session: await this.view(claim.record), replayed: true };
    const record = this.newRecord(claim.sessionId, principal.accountId, body, digitalHuman.id);
    await this.provision(record, this.agentJob(record, digitalHuman), { idempotencyKey, print, lock: claim.lock });
    this.deps.metrics?.sessionCreated();
    return { session: await this.view(record), replayed: false };
  }

  /** Claims the idempotency key for this create, or answers what an earlier request with it left. */
  private async claim(
    accountId: string,
    idempotencyKey: string,
    print: string,
  ): Promise<{ kind: "acquired"; lock: string; sessionId: string } | { kind: "replay"; record: SessionRecord }> {
    const { store, settings } = this.deps;
    const limit = this.deps.accounts.maxOpenSessions(accountId);
    const begun = await store.beginCreate(accountId, idempotencyKey, print, settings.idempotencyLockTtlMs, limit, randomUUID());
    switch (begun.kind) {
      case "limit":
        // Nothing was claimed: no room is made and the key stays unused.
        throw new AppError("concurrency_limit_exceeded", { limit, open: begun.open });
      case "reused":
        throw new AppError("idempotency_key_reused", "This Idempotency-Key was already used with a different request body.");
      case "in_progress":
        throw inProgress();
      case "replay": {
        const record = await store.getSession(accountId, begun.sessionId);
        if (!record) throw new Error(`idempotency record of ${idempotencyKey} names missing session ${begun.sessionId}`);
        return { kind: "replay", record };
      }
      case "acquired":
        return begun;
    }
  }

  private newRecord(id: string, accountId: string, body: SessionCreate, digitalHumanId: string): SessionRecord {
    return {
      id,
      account_id: accountId,
      status: "created",
      room_name: roomNameFor(id),
      participant_identity: body.participant_identity ?? `participant-${randomBytes(6).toString("hex")}`,
      digital_human_id: digitalHumanId,
      tags: body.tags ?? [],
      metadata: body.metadata ?? {},
      end_reason: null,
      digital_human_joined_at: null,
      digital_human_left_at: null,
      participant_sid: null,
      participant_left_at: null,
      created_at: this.now().toISOString(),
      started_at: null,
      ended_at: null,
    };
  }

  /**
   * Creates the session's room with its digital human dispatched, then stores the session. A create that
   * fails releases its key, which keeps the session id: a CreateRoom that timed out may have made the
   * room all the same, and the retry then continues with that room (CreateRoom of an existing room
   * answers it). A room nobody retries for is deleted by the reconciler once its grace has passed.
   */
  private async provision(record: SessionRecord, agent: AgentJob, key: ClaimedKey): Promise<void> {
    const { store, rooms, settings } = this.deps;
    const release = () =>
      store.abandonCreate(record.account_id, key.idempotencyKey, key.print, key.lock, record.id, settings.idempotencyKeyTtlMs);
    try {
      await rooms.createRoom({
        name: record.room_name,
        sessionId: record.id,
        accountId: record.account_id,
        emptyTimeoutS: settings.durations.joinTimeoutS + ROOM_TIMEOUT_MARGIN_S,
        departureTimeoutS: settings.durations.departureTimeoutS + ROOM_TIMEOUT_MARGIN_S,
        maxParticipants: MAX_PARTICIPANTS,
        agent,
      });
    } catch (error) {
      this.background(release(), "release idempotency lock");
      throw error;
    }
    try {
      await this.persist(record, key);
    } catch (error) {
      // The room goes before the key is released: a retry that came between would keep the room (it
      // continues this session) and lose it to this deletion.
      this.background(
        rooms
          .deleteRoom(record.room_name)
          .catch((failure: unknown) => this.deps.onBackgroundError?.(failure, "delete room of failed create"))
          .then(release),
        "release idempotency lock",
      );
      throw error;
    }
  }

  /**
   * Stores the session and marks its key done. The session's first timers go out in the same round
   * trip: should the completion fail, they find no session when they fire and are dropped; should only
   * the timers fail, the session stands and the room's empty timeout ends it if nobody joins.
   */
  private async persist(record: SessionRecord, key: ClaimedKey): Promise<void> {
    const { store, settings } = this.deps;
    const events = sessionEvents(undefined, record, new Date(Date.parse(record.created_at)), settings.eventRetainMs);
    const [completed, timers] = await Promise.allSettled([
      store.completeCreate(
        record,
        key.idempotencyKey,
        key.print,
        key.lock,
        settings.idempotencyKeyTtlMs,
        events,
        usageOf(undefined, record),
      ),
      this.runEffects(record, timersOnCreate(record, settings.durations)),
    ]);
    if (completed.status === "rejected") throw completed.reason;
    if (timers.status === "rejected") this.deps.onBackgroundError?.(timers.reason, "schedule join timer");
    // The lock expired and another request with this key took over: it creates the session, not us.
    if (!completed.value) throw inProgress();
    this.deps.onEventsQueued?.(record.account_id);
  }

  async get(principal: Principal, sessionId: string): Promise<Session> {
    return this.view(await this.find(principal, sessionId));
  }

  /** POST /v1/sessions/{id}/token: a fresh token while connectable; 409 once terminal. */
  async refreshToken(principal: Principal, sessionId: string): Promise<Session> {
    const record = await this.find(principal, sessionId);
    if (!isConnectable(record.status)) {
      throw new AppError("session_not_connectable", `Session ${record.id} is ${record.status}; a terminal session has no token.`);
    }
    return this.view(record);
  }

  /**
   * POST /v1/sessions/{id}/end: deletes the room first (LiveKit down: 503 and the session is unchanged),
   * then ends the session. Ending a terminal session changes nothing.
   */
  async end(principal: Principal, sessionId: string): Promise<Session> {
    const record = await this.find(principal, sessionId);
    if (TERMINAL.has(record.status)) return this.view(record);
    // Deleting the room makes LiveKit send room_finished, which may be processed before this request
    // stores the end: the mark tells onRoomEvent that the room finished because of this endSession.
    const { store, rooms } = this.deps;
    await store.markEnding(record.account_id, record.id, ENDING_MARK_MS);
    try {
      await rooms.deleteRoom(record.room_name);
    } catch (error) {
      // Unchanged, as the 503 says (the mark goes before the answer; should that fail too, it expires).
      await store
        .clearEnding(record.account_id, record.id)
        .catch((failure: unknown) => this.deps.onBackgroundError?.(failure, "clear ending mark"));
      throw error;
    }
    const ended = await this.apply(record.account_id, record.id, { type: "end_requested" });
    return this.view(ended?.session ?? record);
  }

  /** GET /v1/sessions: newest first, own account only, with an opaque cursor. */
  /** A page of the account's sessions, newest first, and where the next page starts (null: none). */
  async list(
    principal: Principal,
    query: Omit<ListQuery, "oldestCreatedMs">,
  ): Promise<{ items: SessionSummary[]; next: ListPosition | null }> {
    const { durations } = this.deps.settings;
    // The longest a session can have lived, plus its retention, plus a day for sweeps that ran late.
    const keptS = durations.joinTimeoutS + durations.maxDurationS + durations.departureTimeoutS + durations.retentionS + 86_400;
    const records = await this.deps.store.listSessions(principal.accountId, {
      ...query,
      oldestCreatedMs: this.now().getTime() - keptS * 1000,
    });
    const page = records.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(toSessionSummary),
      next: records.length > query.limit && last ? { createdAtMs: Date.parse(last.created_at), id: last.id } : null,
    };
  }

  /**
   * A LiveKit webhook about a session's room. Deliveries are de-duplicated on the event id; a delivery
   * that fails is forgotten again, so LiveKit's retry is processed.
   */
  async onWebhook(eventId: string, accountId: string, sessionId: string, event: RoomEvent): Promise<void> {
    const { store } = this.deps;
    if (!(await store.markEventSeen(eventId, this.deps.settings.livekitEventDedupeMs))) return;
    try {
      await this.onRoomEvent(accountId, sessionId, event);
    } catch (error) {
      this.background(store.forgetEvent(eventId), "forget failed webhook event");
      throw error;
    }
  }

  /** A LiveKit event in a session's room. Unknown sessions are ignored. */
  async onRoomEvent(accountId: string, sessionId: string, event: RoomEvent): Promise<void> {
    const record = await this.deps.store.getSession(accountId, sessionId);
    if (!record) return;
    let sessionEvent: SessionEvent;
    if (event.type === "room_finished") {
      sessionEvent = (await this.deps.store.isEnding(accountId, sessionId)) ? { type: "end_requested" } : { type: "room_finished" };
    } else if (event.identity === record.participant_identity) sessionEvent = { type: event.type, sid: event.sid };
    else if (event.isAgent) sessionEvent = { type: event.type === "participant_joined" ? "digital_human_joined" : "digital_human_left" };
    else if (event.type === "participant_left") return;
    else sessionEvent = { type: "other_participant_joined" };
    await this.apply(accountId, sessionId, sessionEvent);
  }

  /** A timer is due (sweeper): an event of the machine. */
  async onTimer(due: DueTimer): Promise<void> {
    await this.apply(due.accountId, due.sessionId, { type: due.timer });
  }

  /**
   * Runs an event through the state machine with compare-and-set, so concurrent events (webhooks,
   * timers, replicas) never overwrite each other, then carries out the transition's effects.
   */
  private async apply(
    accountId: string,
    sessionId: string,
    event: SessionEvent,
  ): Promise<{ session: SessionRecord; changed: boolean } | undefined> {
    const { store, settings } = this.deps;
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await store.getVersioned(accountId, sessionId);
      if (!current) return undefined;
      const now = this.now();
      const result = transition(current.record, event, now, settings.durations);
      const events = result.changed ? sessionEvents(current.record, result.session, now, settings.eventRetainMs) : [];
      const usage = result.changed ? usageOf(current.record, result.session) : undefined;
      const { ended_at } = result.session;
      const expiresAtMs = ended_at === null ? undefined : Date.parse(ended_at) + settings.durations.retentionS * 1000;
      if (
        result.changed &&
        !(await store.replaceSession(result.session, current.version, current.record.status, events, usage, expiresAtMs))
      ) {
        continue;
      }
      if (events.length > 0) this.deps.onEventsQueued?.(accountId);
      if (result.changed && result.session.end_reason !== null && current.record.end_reason === null) {
        this.deps.metrics?.sessionEnded(result.session.status, result.session.end_reason);
      }
      await this.runEffects(result.session, result.effects);
      return { session: result.session, changed: result.changed };
    }
    throw new Error(`session ${sessionId}: too many concurrent updates`);
  }

  private async runEffects(record: SessionRecord, effects: readonly Effect[]): Promise<void> {
    const { store, rooms } = this.deps;
    for (let i = 0; i < effects.length; i++) {
      const effect = effects[i] as Effect;
      switch (effect.type) {
        case "schedule": {
          // Timers scheduled one after another go to the store together: one round trip, not one each.
          const timers: ScheduledTimer[] = [{ timer: effect.timer, atMs: effect.at }];
          for (let next = effects[i + 1]; next?.type === "schedule"; next = effects[i + 1]) {
            timers.push({ timer: next.timer, atMs: next.at });
            i++;
          }
          await store.scheduleTimers(record.account_id, record.id, timers);
          break;
        }
        case "ensure_dispatch":
          await this.ensureDispatch(record);
          break;
        case "cancel_timer":
          await store.cancelTimer(record.account_id, record.id, effect.timer);
          break;
        case "cancel_timers":
          await store.cancelTimers(record.account_id, record.id);
          break;
        case "delete_room":
          await rooms.deleteRoom(record.room_name);
          break;
      }
    }
  }

  /** Dispatches the session's digital human again unless LiveKit has a live job for it (never doubled). */
  private async ensureDispatch(record: SessionRecord): Promise<void> {
    const { rooms, catalog } = this.deps;
    // A digital human removed from the catalog since is not replaced by another one.
    const digitalHuman = catalog.byIdAnyAccount(record.digital_human_id);
    if (digitalHuman === undefined) return;
    if (await rooms.hasLiveAgentJob(record.room_name, digitalHuman.agent_name)) return;
    const agent = this.agentJob(record, digitalHuman);
    await rooms.dispatchAgent({ roomName: record.room_name, sessionId: record.id, accountId: record.account_id, agent });
    this.deps.metrics?.agentRedispatched();
  }

  private agentJob(record: SessionRecord, digitalHuman: DigitalHuman): AgentJob {
    return {
      agentName: digitalHuman.agent_name,
      digitalHuman: { id: digitalHuman.id, name: digitalHuman.name },
      participantIdentity: record.participant_identity,
      maxDurationS: this.deps.settings.durations.maxDurationS,
    };
  }

  private async find(principal: Principal, sessionId: string): Promise<SessionRecord> {
    // UUIDs are case-insensitive; ours are stored in lower case.
    const record = await this.deps.store.getSession(principal.accountId, sessionId.toLowerCase());
    // Another account's session is indistinguishable from one that does not exist.
    if (!record) throw new AppError("not_found", `No session ${sessionId}.`);
    return record;
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
  return new AppError("idempotency_request_in_progress", "A request with this Idempotency-Key is still being processed; retry after 1 s.", {
    retryAfterSeconds: 1,
  });
}
