/**
 * Every change of a stored session: an event run through the state machine (transition) with
 * compare-and-set, so concurrent events (LiveKit's, timers, endSession, replicas) never overwrite each
 * other, then the transition's effects carried out: timers scheduled and cancelled, the digital human
 * dispatched again, the room deleted.
 */
import type { DigitalHuman } from "../digital-humans/digital-human-catalog.js";
import type { AgentJob, ScheduledTimer } from "./ports.js";
import { type SessionRecord, TERMINAL } from "./session.js";
import type { SessionContext } from "./session-deps.js";
import { sessionEvents } from "./session-events.js";
import { type Effect, LIFECYCLE_TIMERS, type SessionEvent, transition } from "./session-machine.js";
import { usageOf } from "./usage.js";

const TIMERS = new Set<string>([...LIFECYCLE_TIMERS, "room_deletion"]);

export class SessionTransitions {
  constructor(private readonly context: SessionContext) {}

  /**
   * Runs an event through the state machine with compare-and-set, so concurrent events (webhooks,
   * timers, replicas) never overwrite each other, then carries out the transition's effects.
   */
  async apply(
    accountId: string,
    sessionId: string,
    event: SessionEvent,
  ): Promise<{ session: SessionRecord; changed: boolean } | undefined> {
    const { store, settings } = this.context;
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await store.getVersioned(accountId, sessionId);
      if (!current) return undefined;
      const now = this.context.now();
      const result = transition(current.record, event, now, settings.durations);
      const events = result.changed ? sessionEvents(current.record, result.session, now, settings.eventRetainMs) : [];
      const usage = result.changed ? usageOf(current.record, result.session) : undefined;
      const { ended_at } = result.session;
      const expiresAtMs = ended_at === null ? undefined : Date.parse(ended_at) + settings.durations.retentionS * 1000;
      let effects = result.effects;
      const owed = effects.find((e) => e.type === "schedule" && e.timer === "room_deletion");
      if (result.changed && current.record.ended_at === null && owed?.type === "schedule") {
        // The room's deletion is owed from the moment the session ends: scheduled before the end is
        // stored, so a replica that dies right after storing it still leaves the obligation behind.
        await store.scheduleTimers(accountId, sessionId, [{ timer: owed.timer, atMs: owed.at }]);
        effects = effects.filter((e) => e !== owed);
      }
      if (
        result.changed &&
        !(await store.replaceSession(result.session, current.version, current.record.status, events, usage, expiresAtMs))
      ) {
        continue;
      }
      if (events.length > 0) this.context.onEventsQueued?.(sessionId);
      if (result.changed && result.session.end_reason !== null && current.record.end_reason === null) {
        this.context.metrics?.sessionEnded(result.session.status, result.session.end_reason);
      }
      if (!result.changed && TERMINAL.has(current.record.status) && TIMERS.has(event.type)) await this.repairEnded(current.record);
      await this.runEffects(result.session, effects);
      return { session: result.session, changed: result.changed };
    }
    throw new Error(`session ${sessionId}: too many concurrent updates`);
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

  /** Dispatches the session's digital human again unless LiveKit has a live job for it (never doubled). */
  private async ensureDispatch(record: SessionRecord): Promise<void> {
    const { rooms, catalog } = this.context;
    // A digital human removed from the catalog since is not replaced by another one.
    const digitalHuman = catalog.byIdAnyAccount(record.digital_human_id);
    if (digitalHuman === undefined) return;
    if (await rooms.hasLiveAgentJob(record.room_name, digitalHuman.agent_name)) return;
    const agent = agentJobOf(record, digitalHuman, this.context.settings.durations.maxDurationS);
    await rooms.dispatchAgent({ roomName: record.room_name, sessionId: record.id, accountId: record.account_id, agent });
    this.context.metrics?.agentRedispatched();
  }
}

/** What the digital human's job is told when it is dispatched to the session's room. */
export function agentJobOf(record: SessionRecord, digitalHuman: DigitalHuman, maxDurationS: number): AgentJob {
  return {
    agentName: digitalHuman.agent_name,
    digitalHuman: { id: digitalHuman.id, name: digitalHuman.name },
    participantIdentity: record.participant_identity,
    maxDurationS,
  };
}
