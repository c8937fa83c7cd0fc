/**
 * What digital humans remember about participants (getParticipantMemory, deleteParticipantMemory): HTTP
 * to ParticipantMemories calls and back.
 */
import type { ParticipantMemories } from "../../domain/memories/participant-memories.js";
import type { OperationHandlers } from "../operations.js";

export function memoryOperations(
  memories: ParticipantMemories,
): Pick<OperationHandlers, "getParticipantMemory" | "deleteParticipantMemory"> {
  return {
    // GET /v1/digital-humans/{digital_human_id}/memories/{participant_identity}
    getParticipantMemory: async ({ path }, principal) => ({
      body: await memories.read(principal, path.digital_human_id, path.participant_identity),
    }),

    // DELETE /v1/digital-humans/{digital_human_id}/memories/{participant_identity}
    deleteParticipantMemory: async ({ path }, principal) => ({
      body: await memories.delete(principal, path.digital_human_id, path.participant_identity),
    }),
  };
}
