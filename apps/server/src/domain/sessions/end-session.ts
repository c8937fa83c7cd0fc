/** POST /v1/sessions/{id}/end: the room is deleted first, then the session ends (user_ended). */
import type { Session } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { TERMINAL } from "./session.js";
import type { SessionContext } from "./session-deps.js";
import type { SessionReader } from "./session-reader.js";
import type { SessionTransitions } from "./session-transitions.js";

// Longer than an endSession can take (LiveKit's timeout plus the Redis calls around it).
const ENDING_MARK_MS = 60_000;

export class EndSession {
  constructor(
    private readonly context: SessionContext,
    private readonly reader: SessionReader,
    private readonly transitions: SessionTransitions,
  ) {}

  /**
   * POST /v1/sessions/{id}/end: deletes the room first (LiveKit down: 503 and the session is unchanged),
   * then ends the session. Ending a terminal session changes nothing.
   */
  async end(principal: Principal, sessionId: string): Promise<Session> {
    const record = await this.reader.find(principal, sessionId);
    if (TERMINAL.has(record.status)) return this.reader.view(record);
    // Deleting the room makes LiveKit send room_finished, which may be processed before this request
    // stores the end: the mark tells LiveKitRoomEvents that the room finished because of this endSession.
    const { store, rooms } = this.context;
    await store.markEnding(record.account_id, record.id, ENDING_MARK_MS);
    try {
      await rooms.deleteRoom(record.room_name);
    } catch (error) {
      // Unchanged, as the 503 says (the mark goes before the answer; should that fail too, it expires).
      await store
        .clearEnding(record.account_id, record.id)
        .catch((failure: unknown) => this.context.onBackgroundError?.(failure, "clear ending mark"));
      throw error;
    }
    const ended = await this.transitions.apply(record.account_id, record.id, { type: "end_requested" });
    return this.reader.view(ended?.session ?? record);
  }
}
