import { participantMemoryStoreContract } from "../../../test/contract/participant-memory-store.contract.js";
import { MemoryParticipantMemories } from "./participant-memory-store.js";

participantMemoryStoreContract("memory", async () => {
  let now = Date.now();
  return { store: new MemoryParticipantMemories(() => now), setNow: (ms) => (now = ms), close: async () => {} };
});
