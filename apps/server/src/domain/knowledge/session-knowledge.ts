/**
 * A session's knowledge, as its digital human searches it on each of the participant's turns
 * (searchSessionKnowledge): the documents the session was created with (its persona keeps their ids, as
 * it keeps the rest), searched among those still there and ready, under the session's account and mode.
 * The answer is searchKnowledge's for the same text, so a backend can see what a turn was given.
 */
import type { KnowledgeSearch, KnowledgeSearchResults } from "@dhs/contract";
import { AppError } from "../app-error.js";
import { sessionEnded } from "../conversation/conversation-changes.js";
import type { SessionRecords } from "../sessions/ports.js";
import { TERMINAL } from "../sessions/session.js";
import { PASSAGES_PER_TURN, turnResults } from "./document-service.js";
import type { PassageIndex } from "./ports.js";

export interface SessionKnowledgeDeps {
  sessions: Pick<SessionRecords, "findSession" | "sessionPersona">;
  index: PassageIndex;
}

export class SessionKnowledge {
  constructor(private readonly deps: SessionKnowledgeDeps) {}

  async search(sessionId: string, body: KnowledgeSearch): Promise<KnowledgeSearchResults> {
    const session = await this.deps.sessions.findSession(sessionId);
    if (!session) throw new AppError("not_found", `No session ${sessionId}.`);
    if (TERMINAL.has(session.status)) throw sessionEnded(session);
    // A session's persona goes with its end: one that ended since it was read is answered as ended.
    const persona = await this.deps.sessions.sessionPersona(sessionId);
    if (!persona) throw sessionEnded((await this.deps.sessions.findSession(sessionId)) ?? session);
    const documentIds = persona.knowledge?.document_ids ?? [];
    if (documentIds.length === 0) return { results: [] };
    const limit = body.limit ?? PASSAGES_PER_TURN;
    const passages = await this.deps.index.search({ owner: session.account_id, documentIds, text: body.query, limit });
    return turnResults(passages, limit);
  }
}
