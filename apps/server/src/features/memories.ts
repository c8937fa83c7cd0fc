/**
 * Participant memory as a feature: what a digital human remembers about the participants it spoke with
 * (kept in PostgreSQL, or memory in development), read and deleted by API keys, written by analyses.
 */
import type { DigitalHumanStore } from "../domain/digital-humans/ports.js";
import { ParticipantMemories } from "../domain/memories/participant-memories.js";
import type { MemoryStore } from "../domain/memories/ports.js";
import { memoryOperations } from "../http/routes/memories.js";
import type { Feature } from "./feature.js";

export function memoriesOf(options: { store: MemoryStore; digitalHumans: DigitalHumanStore; retentionMs: number }) {
  const memories = new ParticipantMemories({
    store: options.store,
    digitalHumanExists: async (owner, id) => (await options.digitalHumans.getDigitalHuman(owner, id)) !== undefined,
    retentionMs: options.retentionMs,
  });
  return { memories, feature: { name: "memories", operations: memoryOperations(memories) } satisfies Feature };
}
