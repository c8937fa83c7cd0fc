/**
 * POST /v1/sessions: an idempotent create (contract guide, "Idempotency"). The key is claimed (or what an
 * earlier request with it left is answered), the room is created with the digital human's agent
 * dispatched, then the session is stored with its key marked done and its first timers scheduled.
 */
import { randomBytes } from "node:crypto";
import type { SessionCreate } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { pendingAnalysis, type StoredAnalysis } from "../analysis/stored-analysis.js";
import { AppError } from "../app-error.js";
import type { Persona } from "../digital-humans/persona.js";
import { memoryKeyOf } from "../memories/memory-key.js";
import { newRecording } from "../recordings/stored-recording.js";
import { type CreateLock, fingerprint } from "./idempotency.js";
import { roomNameFor, type SessionRecord } from "./session.js";
import { background, type CreateResult, durationsFor, openLifeMs, type SessionContext } from "./session-deps.js";
import { sessionEvents } from "./session-events.js";
import { timersOnCreate } from "./session-machine.js";
import type { SessionReader } from "./session-reader.js";
import { agentJobOf, type SessionTransitions } from "./session-transitions.js";
import { usageOf } from "./usage.js";

/** The idempotency key this create claimed: the key, the body's fingerprint, and the claim's lock. */
interface ClaimedKey {
  idempotencyKey: string;
  print: string;
  lock: CreateLock;
}

// The session's participant and the digital human, plus one place for a reconnecting browser whose old
// connection LiveKit has not yet dropped.
const MAX_PARTICIPANTS = 3;
// LiveKit closes a room by itself once nobody but agents is in it: after its empty timeout when nobody
// ever joined, after its departure timeout (20 s unless set) once the last participant left. Both are set
// past the service's own join and departure timeouts, so the service's timers decide why a session ended
// and LiveKit's only back them up, for a room the service can no longer end.
const ROOM_TIMEOUT_MARGIN_S = 30;

export class CreateSession {
  constructor(
    private readonly context: SessionContext,
    private readonly reader: SessionReader,
    private readonly transitions: SessionTransitions,
  ) {}

  async create(principal: Principal, idempotencyKey: string, body: SessionCreate): Promise<CreateResult> {
    const persona = await this.context.personas.personaFor(principal, body.digital_human_id);
    const print = fingerprint(body);
    const createdAt = this.context.now();
    if (!persona) return this.replayOrRefuse(principal, idempotencyKey, print, createdAt.getTime(), body.digital_human_id);
    const claim = await this.claim(principal.accountId, idempotencyKey, print, createdAt.getTime());
    if (claim.kind === "replay") return { session: await this.reader.view(claim.record), replayed: true };
    const record = this.newRecord(claim.sessionId, principal.accountId, body, persona, createdAt);
    const told = record.analysis?.memory ? await this.withMemory(record, persona) : persona;
    await this.provision(record, told, { idempotencyKey, print, lock: claim.lock });
    this.context.metrics?.sessionCreated();
    return { session: await this.reader.view(record), replayed: false };
  }

  /**
   * No digital human the account may use: `422 digital_human_not_found`, another account's exactly like
   * one that does not exist. Unless the key already made this session (its digital human was deleted
   * since): a replay answers the session it made, as any replay does.
   */
  private async replayOrRefuse(
    principal: Principal,
    idempotencyKey: string,
    print: string,
    createdAtMs: number,
    digitalHumanId: string | undefined,
  ): Promise<CreateResult> {
    const refusal = new AppError("digital_human_not_found", `No digital human ${digitalHumanId ?? "(the account has none)"}.`);
    const claim = await this.claim(principal.accountId, idempotencyKey, print, createdAtMs).catch((error: unknown) => {
      // At the cap, or the key in use: the digital human is what is wrong with this request.
      if (error instanceof AppError) throw refusal;
      throw error;
    });
    if (claim.kind === "replay") return { session: await this.reader.view(claim.record), replayed: true };
    const { store, settings } = this.context;
    await store.abandonCreate({
      accountId: principal.accountId,
      idempotencyKey,
      fingerprint: print,
      lock: claim.lock,
      sessionId: claim.sessionId,
      keepMs: settings.idempotencyKeyTtlMs,
    });
    throw refusal;
  }

  /** Claims the idempotency key for this create, or answers what an earlier request with it left. */
  private async claim(
    accountId: string,
    idempotencyKey: string,
    print: string,
    createdAtMs: number,
  ): Promise<{ kind: "acquired"; lock: CreateLock; sessionId: string } | { kind: "replay"; record: SessionRecord }> {
    const { store, settings } = this.context;
    const limit = this.context.accounts.maxOpenSessions(accountId);
    const begun = await store.beginCreate(accountId, idempotencyKey, print, {
      lockTtlMs: settings.idempotencyLockTtlMs,
      keyTtlMs: settings.idempotencyKeyTtlMs,
      maxOpen: limit,
      createdAtMs,
    });
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

  private newRecord(id: string, accountId: string, body: SessionCreate, persona: Persona, createdAt: Date): SessionRecord {
    return {
      id,
      account_id: accountId,
      status: "created",
      room_name: roomNameFor(id),
      participant_identity: body.participant_identity ?? `participant-${randomBytes(6).toString("hex")}`,
      digital_human_id: persona.id,
      tags: body.tags ?? [],
      metadata: body.metadata ?? {},
      end_reason: null,
      digital_human_joined_at: null,
      digital_human_left_at: null,
      participant_sid: null,
      participant_left_at: null,
      created_at: createdAt.toISOString(),
      started_at: null,
      ended_at: null,
      // The create schedules the join timer: the timer's span is linked to this request.
      ...traceOf(this.context.tracing.traceparent()),
      ...(persona.maxSessionDurationS === null ? {} : { max_duration_s: persona.maxSessionDurationS }),
      // The session keeps the analysis its digital human asks for now, as it keeps its persona; memory
      // only for a participant the customer named: a generated identity names nobody who could return.
      ...analysisOf(persona, body.participant_identity !== undefined),
      // Recorded as its digital human says now; the job starts it once it is in the room.
      ...(persona.recording ? { recording: newRecording(id) } : {}),
    };
  }

  /**
   * The persona with what its digital human remembers about the participant (which a new session keeps for
   * another retention period). A memory store that cannot answer does not stop the session: it starts as
   * a first one, and its analysis still keeps what it learns.
   */
  private async withMemory(record: SessionRecord, persona: Persona): Promise<Persona> {
    const { memories } = this.context;
    if (!memories) return persona;
    try {
      return { ...persona, participantMemory: await memories.recall(memoryKeyOf(record)) };
    } catch (error) {
      this.context.onBackgroundError?.(error, "recall participant memory");
      return persona;
    }
  }

  /**
   * Creates the session's room with its digital human dispatched, then stores the session. A create that
   * fails releases its key, which keeps the session id: a CreateRoom that timed out may have made the
   * room all the same, and the retry then continues with that room (CreateRoom of an existing room
   * answers it). A room nobody retries for is deleted by the reconciler once its grace has passed.
   */
  private async provision(record: SessionRecord, persona: Persona, key: ClaimedKey): Promise<void> {
    const { store, rooms, settings } = this.context;
    const agent = agentJobOf(record, persona, durationsFor(settings, record).maxDurationS);
    const release = () =>
      store.abandonCreate({
        accountId: record.account_id,
        idempotencyKey: key.idempotencyKey,
        fingerprint: key.print,
        lock: key.lock,
        sessionId: record.id,
        keepMs: settings.idempotencyKeyTtlMs,
      });
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
      background(this.context, release(), "release idempotency lock");
      throw error;
    }
    try {
      await this.persist(record, persona, key);
    } catch (error) {
      // The room goes before the key is released: a retry that came between would keep the room (it
      // continues this session) and lose it to this deletion.
      background(
        this.context,
        rooms
          .deleteRoom(record.room_name)
          .catch((failure: unknown) => this.context.onBackgroundError?.(failure, "delete room of failed create"))
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
  private async persist(record: SessionRecord, persona: Persona, key: ClaimedKey): Promise<void> {
    const { store, settings } = this.context;
    const createdAt = new Date(Date.parse(record.created_at));
    // Its events are linked to the create, as its timers are: the trace the record names.
    const events = sessionEvents(undefined, record, createdAt, settings.eventRetainMs, record.trace_parent);
    const [completed, timers] = await Promise.allSettled([
      store.completeCreate({
        session: record,
        idempotencyKey: key.idempotencyKey,
        fingerprint: key.print,
        lock: key.lock,
        keyTtlMs: settings.idempotencyKeyTtlMs,
        events,
        usage: usageOf(undefined, record),
        persona,
        personaTtlMs: openLifeMs(settings.durations),
      }),
      this.transitions.runEffects(record, timersOnCreate(record, settings.durations)),
    ]);
    if (completed.status === "rejected") throw completed.reason;
    if (timers.status === "rejected") this.context.onBackgroundError?.(timers.reason, "schedule join timer");
    // The lock expired and another request with this key took over: it creates the session, not us.
    if (!completed.value) throw inProgress();
    this.context.onEventsQueued?.(record.id);
  }
}

// A create finishes well within a second, so the first retry usually replays it; the lock TTL is only
// the bound for a request that crashed.
function inProgress(): AppError {
  return new AppError("idempotency_request_in_progress", "A request with this Idempotency-Key is still being processed; retry after 1 s.", {
    retryAfterSeconds: 1,
  });
}

const traceOf = (traceparent: string | undefined): { trace_parent?: string } =>
  traceparent === undefined ? {} : { trace_parent: traceparent };

function analysisOf(persona: Persona, namedParticipant: boolean): { analysis?: StoredAnalysis } {
  const analysis = pendingAnalysis(persona.analysis, persona.llm.model, persona.name, persona.memory === true && namedParticipant);
  return analysis ? { analysis } : {};
}
