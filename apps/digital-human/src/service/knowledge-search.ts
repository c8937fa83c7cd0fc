/**
 * Where the job searches its session's documents (conversation/turn-knowledge.ts): the service's
 * searchSessionKnowledge, with the job's token. A search changes nothing, so a lost answer is asked
 * again once, quickly; anything slower is the turn's deadline's to cut (it then has no passages).
 */
import type { Room } from "@livekit/rtc-node";
import type { SearchKnowledge } from "../conversation/turn-knowledge.js";
import { type ServiceAccess, ServiceClient } from "./service-client.js";

/** Passages a turn is given at most (the service's own bound too). */
const PASSAGES_PER_TURN = 3;

export function knowledgeSearch(options: { service: ServiceAccess; room: Room; onError?: (problem: string) => void }): SearchKnowledge {
  const api = new ServiceClient(options.service, () => options.room.localParticipant?.identity ?? "");
  return async (query) => {
    const answer = await api.searchKnowledge(
      { query: query.slice(0, 1000), limit: PASSAGES_PER_TURN },
      { attempts: 2, baseMs: 50, attemptTimeoutMs: 1_000 },
    );
    if (answer.ok) return answer.data.results;
    options.onError?.(answer.problem);
    return undefined;
  };
}
