/**
 * What sessions need from the outside, as interfaces: the store (Redis or memory) split by what each use
 * needs of it, LiveKit's room service and the token issuer. Adapters live in store/ and livekit/; the
 * domain never imports them.
 */
import type { DigitalHumanJob, SessionStatus } from "@dhs/contract";
import type { OutboundEvent } from "../customer-webhooks/ports.js";
import type { Persona } from "../digital-humans/persona.js";
import type { ListPosition } from "../list-order.js";
import type { TimerKind } from "./feature-timers.js";
import type { BeginOutcome, CreateLock } from "./idempotency.js";
import type { SessionRecord } from "./session.js";
import type { ObligationTimer } from "./session-machine.js";
import type { UsageIncrement } from "./usage.js";

declare const storeVersion: unique symbol;
/** What a store compares a session with when it is replaced: opaque to the domain, handed back unchanged. */
export type SessionVersion = { readonly [storeVersion]: true };

/**
 * A stored session read for a change: the record, its version for compare-and-set, and what a change
 * caused by a LiveKit event needs to know, read in the same step.
 */
export interface SessionSnapshot {
  record: SessionRecord;
  version: SessionVersion;
  /** endSession is deleting the session's room (EndingMarks). */
  ending: boolean;
  /** The LiveKit event asked about has already reached this session: a redelivery. */
  eventApplied: boolean;
}

/** A session's timers that a change schedules and cancels with it. */
export interface TimerChanges {
  schedule: readonly ScheduledTimer[];
  cancel: readonly TimerKind[];
}

/** A change of a stored session, made in one step or not at all. */
export interface SessionChange {
  /** The session as it is after the change. */
  record: SessionRecord;
  /** The version it was read at: the change is refused if it has changed since. */
  version: SessionVersion;
  previousStatus: SessionStatus;
  /** Queued for the account's webhook endpoints. */
  events: readonly OutboundEvent[];
  usage: UsageIncrement | undefined;
  /** An ended session is given its expiry: from then on it is gone, from reads and lists alike. */
  expiresAtMs: number | undefined;
  timers: TimerChanges;
  /** The LiveKit event the change applies, remembered with it for ttlMs, so that its redelivery changes nothing. */
  livekitEvent?: { id: string; ttlMs: number };
}

export interface ListQuery {
  status?: SessionStatus | undefined;
  limit: number;
  after?: ListPosition | undefined;
  /** No session created before this time (ms) can still be kept: where a list stops looking. */
  oldestCreatedMs: number;
}

/** A timer to fire for a session at `atMs`. */
export interface ScheduledTimer {
  timer: TimerKind;
  atMs: number;
}

export interface DueTimer {
  accountId: string;
  sessionId: string;
  timer: TimerKind;
  /** When the claim's lease ends (ms): the timer's due time while this replica holds it. */
  claimedUntil: number;
}

/** What a create's claim is held to: its lock's TTL, how long a key is kept, the account's cap, its time. */
export interface CreateClaim {
  lockTtlMs: number;
  keyTtlMs: number;
  maxOpen: number;
  createdAtMs: number;
}

/** Idempotent creates: the Idempotency-Key's claim, its completion with the new session, its release. */
export interface IdempotentCreates {
  /**
   * Records a lock for (account, key) when nothing is recorded (or only a failed create, or a lock that
   * expired), or reports what is; a new create is refused (`limit`) when the account has `maxOpen`
   * sessions open or being created, and then nothing is claimed. The lock expires after lockTtlMs, so a
   * crashed request cannot wedge the key; its place is given back once the store finds it died. The
   * store names a new session (it may keep it beside its key); a retry of a failed or crashed create
   * with the same body gets the same session id. `createdAtMs` is the new session's creation time.
   */
  beginCreate(accountId: string, idempotencyKey: string, fingerprint: string, options: CreateClaim): Promise<BeginOutcome>;
  /**
   * Stores the session, marks the key done (remembered keyTtlMs), counts `usage` and queues `events` for
   * the account's webhook endpoints that take them, if the lock is still this request's and has not
   * expired. False when another request holds the key now, or the lock expired; no session is written
   * then. The session, its key and its events are written in one step; the account's count of it may
   * follow, and a crash between them is repaired by the store.
   */
  completeCreate(completion: CreateCompletion): Promise<boolean>;
  /**
   * Releases this request's lock and its place among the open sessions, so the key can be used again,
   * remembering for keepMs the session id it was creating (a retry of the same body continues it).
   */
  abandonCreate(abandonment: CreateAbandonment): Promise<void>;
}

/** A create's completion: its new session, and the claim it completes (the key, the body, the lock). */
export interface CreateCompletion {
  session: SessionRecord;
  idempotencyKey: string;
  fingerprint: string;
  lock: CreateLock;
  /** How long the key is remembered once done (ms). */
  keyTtlMs: number;
  events: readonly OutboundEvent[];
  usage: UsageIncrement | undefined;
  /**
   * The persona the session takes from its digital human, kept beside it for as long as it can be open
   * (personaTtlMs), so that its digital human dispatched again is the same one whatever happened to the
   * digital human since (SessionRecords.sessionPersona).
   */
  persona: Persona;
  personaTtlMs: number;
}

/** A create given up: the claim it releases (the key, the body, the lock) and the session it was making. */
export interface CreateAbandonment {
  accountId: string;
  idempotencyKey: string;
  fingerprint: string;
  lock: CreateLock;
  sessionId: string;
  /** How long the key remembers that session id (ms). */
  keepMs: number;
}

/** Stored sessions: read, compare-and-set, listed, counted. */
export interface SessionRecords {
  getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined>;
  /** The session whichever account it is: for callers that prove the session itself (its digital human's token). */
  findSession(sessionId: string): Promise<SessionRecord | undefined>;
  /**
   * The session, for a change, with its ending mark and whether the LiveKit event `livekitEventId` (if
   * given) has already changed it, in one read.
   */
  readForChange(accountId: string, sessionId: string, livekitEventId?: string): Promise<SessionSnapshot | undefined>;
  /** The persona the session was created with, while it can be open (CreateCompletion.persona). */
  sessionPersona(sessionId: string): Promise<Persona | undefined>;
  /**
   * Makes the change if the session is still at its version, in one step: the record, its timers, its
   * webhook events, its LiveKit event id; false when another writer got there first (read again and
   * retry), and nothing changed then. A session that ends is listed among the ended ones in that step,
   * and gives back its place among the open ones and counts `usage` after it (a crash between them is
   * repaired by the store).
   */
  replaceSession(change: SessionChange): Promise<boolean>;
  /**
   * Remembers for ttlMs a LiveKit event that reached the session and changed nothing, so that its
   * redelivery after a later change is not taken for news (SessionSnapshot.eventApplied).
   */
  rememberEvent(sessionId: string, eventId: string, ttlMs: number): Promise<void>;
  /**
   * An ended session that still holds its place among its account's open sessions (a replica died
   * between storing its end and giving the place back) gives it back and counts its usage, once;
   * nothing otherwise.
   */
  settleEnded(record: SessionRecord): Promise<void>;
  /**
   * Sessions of the account open now (created or active) and creates in flight; what a crash left
   * counted (a create that died, an end whose place was not given back) is repaired first.
   */
  openSessions(accountId: string): Promise<number>;
  /** Newest first; one more than asked tells whether there is a next page. Expired sessions are left out. */
  listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]>;
}

/** The usage counters that session changes add to, per account and UTC day. */
export interface UsageCounters {
  /** The account's usage counters (field -> count) of each day asked for, in that order. */
  usage(accountId: string, days: readonly string[]): Promise<Record<string, string>[]>;
  /** Adds to the account's counters of a day, apart from any change of a session (transcript segments). */
  countUsage(accountId: string, increment: UsageIncrement): Promise<void>;
}

/** Session timers, fired once across replicas: each due timer is claimed by one replica with a lease. */
export interface TimerQueue {
  /** Timers: fire each `timer` for the session at its `atMs` (once; rescheduling replaces), in one step. */
  scheduleTimers(accountId: string, sessionId: string, timers: readonly ScheduledTimer[]): Promise<void>;
  cancelTimer(accountId: string, sessionId: string, timer: ObligationTimer): Promise<void>;
  /** Cancels every timer of the session's life (not its room_deletion obligation). */
  cancelTimers(accountId: string, sessionId: string): Promise<void>;
  /** The session's scheduled timers and when each is due (a claimed one: when its lease ends). */
  sessionTimers(accountId: string, sessionId: string): Promise<ScheduledTimer[]>;
  /**
   * Atomically claims up to `max` timers due by `nowMs` for `leaseMs`: no other replica gets them while
   * the lease lasts, and a claim whose holder died is handed out again after it. A store that keeps its
   * timers in several sets claims up to `max` from each, so fewer than `max` means none is left due.
   */
  claimDueTimers(nowMs: number, leaseMs: number, max: number): Promise<DueTimer[]>;
  /**
   * Marks a claimed timer done: removes it, unless it was scheduled again meanwhile (a timer that
   * re-arms itself when it fires, such as dispatch_check), whose new due time then stands.
   */
  completeTimer(due: DueTimer): Promise<void>;
}

/** endSession's marks on the sessions whose rooms it is deleting. */
export interface EndingMarks {
  /**
   * endSession is deleting this session's room, for at most ttlMs: a room_finished event meanwhile is
   * the consequence of that deletion, not LiveKit closing the room on its own. Read with the session
   * (SessionSnapshot.ending).
   */
  markEnding(accountId: string, sessionId: string, ttlMs: number): Promise<void>;
  clearEnding(accountId: string, sessionId: string): Promise<void>;
}

/** Work one replica at a time should do holds a lease (the room reconciliation). */
export interface Leases {
  /**
   * Takes the lease `name` for ttlMs unless another holder has it: work one replica at a time should do.
   * True when taken.
   */
  acquireLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
}

export interface StoreConnection {
  /** Resolves when the store answers; rejects with DependencyUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Everything an adapter of the session store provides; each user takes only the parts it needs. */
export interface SessionStore extends IdempotentCreates, SessionRecords, UsageCounters, TimerQueue, EndingMarks, Leases, StoreConnection {}

export interface CreateRoomRequest {
  name: string;
  /** The room's session and its account, so LiveKit's events about the room find the session. */
  sessionId: string;
  accountId: string;
  /** Seconds LiveKit keeps the room open when nobody (but agents) ever joined. */
  emptyTimeoutS: number;
  /** Seconds LiveKit keeps the room open after the last participant (but agents) left. */
  departureTimeoutS: number;
  maxParticipants: number;
  /** The digital human to dispatch to the room as it is created. */
  agent: AgentJob;
}

/**
 * The digital human to dispatch, and what its job is told (its dispatch's metadata, the contract's
 * DigitalHumanJob), so it can greet the participant, say its own name and take its leave before the
 * session's time is up. The room's session and account are the request's; the rest is here, so a field
 * added to the contract is filled where the job is made (agentJobOf), and only there.
 */
export interface AgentJob {
  /** The LiveKit agent name its worker registered. */
  agentName: string;
  job: Omit<DigitalHumanJob, "session_id" | "account_id">;
}

export interface AgentDispatchRequest {
  roomName: string;
  sessionId: string;
  accountId: string;
  agent: AgentJob;
}

/** A room LiveKit has that this deployment made for a session (its name and metadata agree). */
export interface SessionRoom {
  name: string;
  accountId: string;
  sessionId: string;
  /** When LiveKit created it (ms since the epoch). */
  createdAtMs: number;
}

export interface RoomService {
  createRoom(request: CreateRoomRequest): Promise<void>;
  /** The rooms LiveKit has now that this deployment made; every other room is left out. */
  listSessionRooms(): Promise<SessionRoom[]>;
  /** Whether LiveKit has a job for this agent in this room that is pending or running. */
  hasLiveAgentJob(roomName: string, agentName: string): Promise<boolean>;
  /** Dispatches the agent to the room (once more). */
  dispatchAgent(request: AgentDispatchRequest): Promise<void>;
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

/** What the domain reports for metrics. */
export interface SessionMetrics {
  sessionCreated(): void;
  sessionEnded(status: string, endReason: string): void;
  /** The digital human's agent was dispatched again (LiveKit had no live job for it). */
  agentRedispatched(): void;
}
