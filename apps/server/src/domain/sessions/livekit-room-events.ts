/**
 * LiveKit's events about a session's room (its webhooks to us), mapped to the state machine's events:
 * the participant, the digital human (a participant of kind AGENT), anyone else, the room closing. An
 * event that changes the session is remembered by its id with the change, so LiveKit's redelivery of it
 * changes nothing; one that fails before its change was stored is processed again when LiveKit retries.
 */
import type { SessionSnapshot } from "./ports.js";
import type { RoomEvent } from "./session-deps.js";
import type { SessionEvent } from "./session-machine.js";
import type { SessionTransitions } from "./session-transitions.js";

export type LiveKitEventOutcome = "changed" | "unchanged" | "unknown_session";

export class LiveKitRoomEvents {
  constructor(private readonly transitions: SessionTransitions) {}

  /**
   * A LiveKit event in a session's room: whether it changed the session (`unchanged`: a redelivery, or an
   * event that means nothing in the session's state). Unknown sessions are ignored.
   */
  async onLiveKitEvent(eventId: string, accountId: string, sessionId: string, event: RoomEvent): Promise<LiveKitEventOutcome> {
    const applied = await this.transitions.apply(accountId, sessionId, (read) => sessionEventOf(event, read), eventId);
    return applied === undefined ? "unknown_session" : applied.changed ? "changed" : "unchanged";
  }
}

/** What a LiveKit event means for the session as read; undefined when nothing (someone else leaving). */
function sessionEventOf(event: RoomEvent, { record, ending }: SessionSnapshot): SessionEvent | undefined {
  if (event.type === "room_finished") return ending ? { type: "end_requested" } : { type: "room_finished" };
  if (event.identity === record.participant_identity) return { type: event.type, sid: event.sid };
  if (event.isAgent) return { type: event.type === "participant_joined" ? "digital_human_joined" : "digital_human_left" };
  if (event.type === "participant_left") return undefined;
  return { type: "other_participant_joined" };
}
