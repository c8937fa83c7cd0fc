/**
 * LiveKit's events about a session's room (its webhooks to us), de-duplicated on the event id, mapped to
 * the state machine's events: the participant, the digital human (a participant of kind AGENT), anyone
 * else, the room closing.
 */
import type { RoomEvent, SessionContext } from "./session-deps.js";
import { background } from "./session-deps.js";
import type { SessionEvent } from "./session-machine.js";
import type { SessionTransitions } from "./session-transitions.js";

export class LiveKitRoomEvents {
  constructor(
    private readonly context: SessionContext,
    private readonly transitions: SessionTransitions,
  ) {}

  /**
   * A LiveKit event about a session's room. Deliveries are de-duplicated on the event id; a delivery
   * that fails is forgotten again, so LiveKit's retry is processed.
   */
  async onLiveKitEvent(eventId: string, accountId: string, sessionId: string, event: RoomEvent): Promise<void> {
    const { store } = this.context;
    if (!(await store.markEventSeen(eventId, this.context.settings.livekitEventDedupeMs))) return;
    try {
      await this.onRoomEvent(accountId, sessionId, event);
    } catch (error) {
      background(this.context, store.forgetEvent(eventId), "forget failed LiveKit event");
      throw error;
    }
  }

  /** A LiveKit event in a session's room. Unknown sessions are ignored. */
  private async onRoomEvent(accountId: string, sessionId: string, event: RoomEvent): Promise<void> {
    const record = await this.context.store.getSession(accountId, sessionId);
    if (!record) return;
    let sessionEvent: SessionEvent;
    if (event.type === "room_finished") {
      sessionEvent = (await this.context.store.isEnding(accountId, sessionId)) ? { type: "end_requested" } : { type: "room_finished" };
    } else if (event.identity === record.participant_identity) sessionEvent = { type: event.type, sid: event.sid };
    else if (event.isAgent) sessionEvent = { type: event.type === "participant_joined" ? "digital_human_joined" : "digital_human_left" };
    else if (event.type === "participant_left") return;
    else sessionEvent = { type: "other_participant_joined" };
    await this.transitions.apply(accountId, sessionId, sessionEvent);
  }
}
