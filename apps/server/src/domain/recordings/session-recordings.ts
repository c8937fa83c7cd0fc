/**
 * The recording operations of API keys (getSessionRecording, deleteSessionRecording), each on the
 * caller's own session only: another account's, or the other mode's, is a 404 like one that does not
 * exist, and its file's key is never reached.
 */
import type { SessionRecording } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { findOwnSession } from "../sessions/session-reader.js";
import type { RecordingService } from "./recording-service.js";

export class SessionRecordings {
  constructor(private readonly service: RecordingService) {}

  async read(principal: Principal, sessionId: string): Promise<SessionRecording> {
    return this.service.view(await findOwnSession(this.service.deps.sessions, principal, sessionId));
  }

  /** Erases it whatever its state; a session that does not record is answered as it is. */
  async delete(principal: Principal, sessionId: string): Promise<SessionRecording> {
    const record = await findOwnSession(this.service.deps.sessions, principal, sessionId);
    if (!record.recording) return this.service.view(record);
    await this.service.erase(record.account_id, record.id);
    return this.service.view(await findOwnSession(this.service.deps.sessions, principal, sessionId));
  }
}
