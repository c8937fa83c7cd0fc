/**
 * Every change of a stored session: an event run through the state machine (transition) with
 * compare-and-set, so concurrent events (LiveKit's, timers, endSession, replicas) never overwrite each
 * other, then the transition's effects carried out: timers scheduled and cancelled, the digital human
 * dispatched again, the room deleted.
 */
import { type Persona, stockPersona } from "../digital-humans/persona.js";
import type { TimerKind } from "./feature-timers.js";
import type { AgentJob, ScheduledTimer, SessionSnapshot, TimerChanges } from "./ports.js";
import { type SessionRecord, TERMINAL } from "./session.js";
import { durationsFor, keptUntilMs, type SessionContext } from "./session-deps.js";
import { sessionEvents } from "./session-events.js";
import { type Effect, LIFECYCLE_TIMERS, type SessionEvent, transition } from "./session-machine.js";
import { usageOf } from "./usage.js";

const TIMERS = new Set<string>([...LIFECYCLE_TIMERS, "room_deletion"]);

export class SessionTransitions {
  constructor(private readonly context: SessionContext) {}

  /**
   * Runs an event through the state machine with compare-and-set, so concurrent events (webhooks,
   * timers, replicas) never overwrite each other, then carries out the transition's effects. The timers
   * the transition schedules and cancels before any call outside the store are changed with the session,
   * in the same step. `event` may depend on what is read (a LiveKit event is told apart by the session's
   * participant); undefined ignores it. With `livekitEventId`, a LiveKit event that already reached the
   * session changes nothing again; one that changes it is remembered with the change.
   */
  async apply(
    accountId: string,
    sessionId: string,
    event: SessionEvent | ((read: SessionSnapshot) => SessionEvent | undefined),
    livekitEventId?: string,
  ): Promise<{ session: SessionRecord; changed: boolean } | undefined> {
    const { store, settings } = this.context;
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await store.readForChange(accountId, sessionId, livekitEventId);
      if (!current) return undefined;
      const sessionEvent = current.eventApplied ? undefined : typeof event === "function" ? event(current) : event;
      if (!sessionEvent) return { session: current.record, changed: false };
      const now = this.context.now();
      const result = transition(current.record, sessionEvent, now, durationsFor(settings, current.record));
      if (!result.changed) {
        if (livekitEventId !== undefined) await store.rememberEvent(sessionId, livekitEventId, settings.livekitEventDedupeMs);
        if (TERMINAL.has(current.record.status) && TIMERS.has(sessionEvent.type)) await this.repairEnded(current.record);
        await this.runEffects(result.session, result.effects);
        return { session: result.session, changed: false };
      }
      const before = current.record;
      const after = result.session;
      const stored = await this.context.tracing.span(
        "session.transition",
        {
          "dhs.session.id": sessionId,
          "dhs.session.event": sessionEvent.type,
          "dhs.session.from": before.status,
          "dhs.session.to": after.status,
          "dhs.session.end_reason": after.end_reason ?? undefined,
        },
        () => this.store(current, after, result.effects, now, livekitEventId),
      );
      if (stored) return { session: stored, changed: true };
    }
    throw new Error(`session ${sessionId}: too many concurrent updates`);
  }

  /**
   * Stores a changed session with compare-and-set, with the webhook events and timers of its change,
   * then carries out the rest of its effects. Undefined when another change came first.
   */
  private async store(
    current: SessionSnapshot,
    changed: SessionRecord,
    effects: readonly Effect[],
    now: Date,
    livekitEventId: string | undefined,
  ): Promise<SessionRecord | undefined> {
    const { store, settings, tracing } = this.context;
    const traceparent = tracing.traceparent();
    const ends = TERMINAL.has(changed.status) && !TERMINAL.has(current.record.status);
    const netted = timerChangesFirst(effects, TERMINAL.has(changed.status));
    const { rest } = netted;
    // An end is when its transcript may be complete: at once if the digital human said `final` before,
    // else once the grace period is over, when the timer fires again (transcript-service.ts).
    // A recording is due from its job within the delivery timeout of the end (at once if its digital human
    // never joined: nothing was recorded); its timer settles one that never came (recording-service.ts).
    const atEnd = [
      { timer: "transcript_ready" as const, atMs: now.getTime() },
      ...recordingDue(changed, now, settings.recordingDeliveryMs),
    ];
    const timers = ends ? { ...netted.timers, schedule: [...netted.timers.schedule, ...atEnd] } : netted.timers;
    // The timers this change sets fire later in a trace of their own, linked to this one.
    const schedules = timers.schedule.length > 0 || rest.some((effect) => effect.type === "schedule");
    const record = traceparent !== undefined && schedules ? { ...changed, trace_parent: traceparent } : changed;
    const events = sessionEvents(current.record, record, now, settings.eventRetainMs, traceparent);
    const replaced = await store.replaceSession({
      record,
      version: current.version,
      previousStatus: current.record.status,
      events,
      usage: usageOf(current.record, record),
      expiresAtMs: record.ended_at === null ? undefined : keptUntilMs(record, settings.durations),
      timers,
      ...(livekitEventId === undefined ? {} : { livekitEvent: { id: livekitEventId, ttlMs: settings.livekitEventDedupeMs } }),
    });
    if (!replaced) return undefined;
    if (events.length > 0) this.context.onEventsQueued?.(record.id);
    if (record.end_reason !== null && current.record.end_reason === null) {
      this.context.metrics?.sessionEnded(record.status, record.end_reason);
    }
    await this.runEffects(record, rest);
    return record;
  }

  async runEffects(record: SessionRecord, effects: readonly Effect[]): Promise<void> {
    const { store, rooms } = this.context;
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

  /**
   * A timer of an ended session: its end cancels them all (room_deletion aside), so only a replica that
   * died between storing the end and carrying out its effects leaves one. Whatever that replica left
   * undone besides is done now: the session's place among the open ones, its usage, its other timers.
   */
  private async repairEnded(record: SessionRecord): Promise<void> {
    const { store } = this.context;
    await Promise.all([store.settleEnded(record), store.cancelTimers(record.account_id, record.id)]);
  }

  /**
   * Dispatches the session's digital human again, with the persona the session was created with, unless
   * LiveKit has a live job for it (never doubled).
   */
  private async ensureDispatch(record: SessionRecord): Promise<void> {
    const { rooms, store } = this.context;
    const persona = (await store.sessionPersona(record.id)) ?? this.stockPersonaOf(record);
    // A digital human whose persona was not kept and whose stock entry left the catalog is not replaced by another.
    if (persona === undefined) return;
    if (await rooms.hasLiveAgentJob(record.room_name, persona.agentName)) return;
    const agent = agentJobOf(record, persona, durationsFor(this.context.settings, record).maxDurationS);
    await rooms.dispatchAgent({ roomName: record.room_name, sessionId: record.id, accountId: record.account_id, agent });
    this.context.metrics?.agentRedispatched();
  }

  /** The session's stock digital human as the catalog has it now: for a session whose persona was not kept. */
  private stockPersonaOf(record: SessionRecord): Persona | undefined {
    const { catalog } = this.context;
    const entry = catalog.byIdAnyAccount(record.digital_human_id);
    return entry === undefined ? undefined : stockPersona(entry, catalog);
  }
}

/** The recording's timer a session's end sets, when it has one still to come or a file that may still arrive. */
function recordingDue(record: SessionRecord, now: Date, deliveryMs: number): ScheduledTimer[] {
  const { recording } = record;
  if (!recording || (recording.status !== "recording" && recording.status !== "deleted")) return [];
  // A file can come only from a job that started recording in the room.
  const started = record.digital_human_joined_at !== null && recording.participant_identity !== undefined;
  return [{ timer: "recording", atMs: now.getTime() + (started ? deliveryMs : 0) }];
}

/** What the digital human's job is told when it is dispatched to the session's room. */
export function agentJobOf(record: SessionRecord, persona: Persona, maxDurationS: number): AgentJob {
  return {
    agentName: persona.agentName,
    job: {
      digital_human: {
        id: persona.id,
        name: persona.name,
        appearance: persona.appearance,
        instructions: persona.instructions,
        greeting: persona.greeting,
        voice: persona.voice,
        language: persona.language,
        llm: { ...persona.llm },
        tools: persona.tools ?? [],
        ...(persona.knowledge?.document_ids.length ? { knowledge: { document_ids: [...persona.knowledge.document_ids] } } : {}),
      },
      participant_identity: record.participant_identity,
      ...(persona.participantMemory ? { participant_memory: { facts: [...persona.participantMemory] } } : {}),
      ...(persona.recording ? { recording: { audio: true } } : {}),
      max_duration_s: maxDurationS,
    },
  };
}

/**
 * The timer effects a transition lists before its first call outside the store, netted (a later one
 * wins), and the effects from that call on, in order. Those timers change with the session: an ended
 * session's room_deletion obligation exists from the moment the end is stored, never after it. An end's
 * cancelling of its life's timers (`ends`) waits until after the store gave its place back: should the
 * replica die in between, those timers are what settles the session when they fire (repairEnded).
 */
export function timerChangesFirst(effects: readonly Effect[], ends = false): { timers: TimerChanges; rest: Effect[] } {
  const due = new Map<TimerKind, number | null>();
  const after: Effect[] = [];
  let i = 0;
  for (; i < effects.length; i++) {
    const effect = effects[i] as Effect;
    if (effect.type === "schedule") due.set(effect.timer, effect.at);
    else if (effect.type === "cancel_timer") due.set(effect.timer, null);
    else if (effect.type === "cancel_timers" && ends) after.push(effect);
    else if (effect.type === "cancel_timers") for (const timer of LIFECYCLE_TIMERS) due.set(timer, null);
    else break;
  }
  const schedule: ScheduledTimer[] = [];
  const cancel: TimerKind[] = [];
  for (const [timer, atMs] of due) {
    if (atMs === null) cancel.push(timer);
    else schedule.push({ timer, atMs });
  }
  return { timers: { schedule, cancel }, rest: [...after, ...effects.slice(i)] };
}
