/**
 * Participant memories in process memory (MemoryStore), for a deployment without Redis: one map per
 * owner and digital human, an expired memory dropped when it is next looked at.
 */
import type { KeptMemory, MemoryKey, MemoryStore, MemoryVersion, MemoryWrite } from "../../domain/memories/ports.js";

export class MemoryParticipantMemories implements MemoryStore {
  private readonly byDigitalHuman = new Map<string, Map<string, KeptMemory>>();

  constructor(private readonly now: () => number = Date.now) {}

  async readMemory(key: MemoryKey): Promise<KeptMemory | undefined> {
    const kept = this.live(key);
    return kept && { ...kept, facts: [...kept.facts] };
  }

  async recallMemory(key: MemoryKey, expiresAtMs: number): Promise<KeptMemory | undefined> {
    const kept = this.live(key);
    if (kept) kept.expiresAtMs = Math.max(kept.expiresAtMs, expiresAtMs);
    return kept && { ...kept, facts: [...kept.facts] };
  }

  async writeMemory(key: MemoryKey, memory: MemoryWrite, read: MemoryVersion | undefined): Promise<boolean> {
    const kept = this.live(key);
    if (kept?.revision !== read?.revision || kept?.generation !== read?.generation) return false;
    let memories = this.byDigitalHuman.get(groupOf(key.owner, key.digitalHumanId));
    if (!memories) {
      memories = new Map();
      this.byDigitalHuman.set(groupOf(key.owner, key.digitalHumanId), memories);
    }
    const { facts, updatedAtMs, expiresAtMs } = memory;
    memories.set(key.participantIdentity, {
      facts: [...facts],
      updatedAtMs,
      expiresAtMs,
      revision: (kept?.revision ?? 0) + 1,
      generation: kept?.generation ?? memory.generation,
    });
    return true;
  }

  async deleteMemory(key: MemoryKey): Promise<boolean> {
    const found = this.live(key) !== undefined;
    this.byDigitalHuman.get(groupOf(key.owner, key.digitalHumanId))?.delete(key.participantIdentity);
    return found;
  }

  async forgetDigitalHuman(owner: string, digitalHumanId: string): Promise<void> {
    this.byDigitalHuman.delete(groupOf(owner, digitalHumanId));
  }

  private live(key: MemoryKey): KeptMemory | undefined {
    const memories = this.byDigitalHuman.get(groupOf(key.owner, key.digitalHumanId));
    const kept = memories?.get(key.participantIdentity);
    if (kept && kept.expiresAtMs <= this.now()) {
      memories?.delete(key.participantIdentity);
      return undefined;
    }
    return kept;
  }
}

// Owners never hold a line feed (their pattern), so the pair cannot be confused with another.
const groupOf = (owner: string, digitalHumanId: string) => `${owner}\n${digitalHumanId}`;
