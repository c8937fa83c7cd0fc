import type { SessionRecord } from "../sessions/session.js";
import type { MemoryKey } from "./ports.js";

/** Whose memory a session recalls and its analysis keeps: its participant's, under its digital human and owner. */
export function memoryKeyOf(record: Pick<SessionRecord, "account_id" | "digital_human_id" | "participant_identity">): MemoryKey {
  return { owner: record.account_id, digitalHumanId: record.digital_human_id, participantIdentity: record.participant_identity };
}
