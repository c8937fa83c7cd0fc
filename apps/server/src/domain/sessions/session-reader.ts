/** Finds a caller's session (another account's is not found) and shows it as the contract's Session. */
import type { Session } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import type { SessionRecords } from "./ports.js";
import { isConnectable, type SessionRecord, toSessionView } from "./session.js";
import type { SessionContext } from "./session-deps.js";

export class SessionReader {
  constructor(private readonly context: SessionContext) {}

  find(principal: Principal, sessionId: string): Promise<SessionRecord> {
    return findOwnSession(this.context.store, principal, sessionId);
  }

  /** The Session as the caller sees it, with a freshly minted token while it is connectable. */
  async view(record: SessionRecord): Promise<Session> {
    const { tokens, settings } = this.context;
    const token = isConnectable(record.status)
      ? await tokens.mint({ identity: record.participant_identity, roomName: record.room_name, ttlSeconds: settings.participantTokenTtlS })
      : null;
    return toSessionView(record, settings.rtcUrl, token);
  }
}

/** The caller's session (sessions and transcripts alike); another account's is not found, like none. */
export async function findOwnSession(
  store: Pick<SessionRecords, "getSession">,
  principal: Principal,
  sessionId: string,
): Promise<SessionRecord> {
  // UUIDs are case-insensitive; ours are stored in lower case.
  const record = await store.getSession(principal.accountId, sessionId.toLowerCase());
  // Another account's session is indistinguishable from one that does not exist.
  if (!record) throw new AppError("not_found", `No session ${sessionId}.`);
  return record;
}
