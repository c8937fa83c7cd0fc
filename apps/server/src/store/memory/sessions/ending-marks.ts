/** endSession's marks in memory (EndingMarks): session id -> when the mark expires, read with the session. */
import type { EndingMarks } from "../../../domain/sessions/ports.js";
import type { MemorySessionState } from "./state.js";

export class MemoryEndingMarks implements EndingMarks {
  constructor(private readonly state: MemorySessionState) {}

  async markEnding(_accountId: string, sessionId: string, ttlMs: number): Promise<void> {
    this.state.ending.set(sessionId, this.state.now() + ttlMs);
  }

  async clearEnding(_accountId: string, sessionId: string): Promise<void> {
    this.state.ending.delete(sessionId);
  }
}
