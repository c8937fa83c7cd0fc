/**
 * What digital humans remember about returning participants (contract guide, "Memory"): recalled when a
 * session of the participant is created (which keeps the memory for another retention period), kept from
 * a session's analysis, read and forgotten by the customer, forgotten with the digital human. A write
 * that lost a race with another is merged with it (memory-merge.ts), never lost, and never brings back
 * what was deleted meanwhile.
 */
import { randomUUID } from "node:crypto";
import type { ParticipantMemory, ParticipantMemoryDeleted } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { keptFacts } from "../analysis/analysis-answer.js";
import { AppError } from "../app-error.js";
import { type ContentionOptions, untilWritten } from "../contention.js";
import { mergedFacts } from "./memory-merge.js";
import type { KeptMemory, MemoryKey, MemoryStore } from "./ports.js";

export interface ParticipantMemoriesDeps {
  store: MemoryStore;
  /** Whether the owner still has the digital human: a deleted one's memories are not written again. */
  digitalHumanExists(owner: string, digitalHumanId: string): Promise<boolean>;
  /** How long a memory is kept after the participant's last session or its last change (ms). */
  retentionMs: number;
  now?: () => number;
  /** The waits between writes that lost (tests give their own). */
  contention?: ContentionOptions;
}

export class ParticipantMemories {
  private readonly now: () => number;

  constructor(private readonly deps: ParticipantMemoriesDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The facts a new session starts with ([] when none are kept), kept for another retention period. */
  async recall(key: MemoryKey): Promise<string[]> {
    const kept = await this.deps.store.recallMemory(key, this.now() + this.deps.retentionMs);
    return kept?.facts ?? [];
  }

  /** What an analysis is given to update: the kept facts and their revision. */
  base(key: MemoryKey): Promise<KeptMemory | undefined> {
    return this.deps.store.readMemory(key);
  }

  /**
   * Keeps `facts`, the list an analysis made from `base`, merged with any write since. Returns the facts
   * kept, or undefined when the digital human is gone.
   */
  async keep(key: MemoryKey, base: KeptMemory | undefined, facts: readonly string[]): Promise<string[] | undefined> {
    if (!(await this.deps.digitalHumanExists(key.owner, key.digitalHumanId))) return undefined;
    let next = keptFacts(facts);
    let read: KeptMemory | undefined = base;
    // Many analyses of one participant at once each lose to the others: tried again after growing random
    // waits, and after the last, `429 concurrent_changes` (a retry for an analysis), never a 500.
    return untilWritten(
      `Participant ${key.participantIdentity}'s memory`,
      async () => {
        const nowMs = this.now();
        const write = { facts: next, updatedAtMs: nowMs, expiresAtMs: nowMs + this.deps.retentionMs, generation: randomUUID() };
        if (await this.deps.store.writeMemory(key, write, read)) return { won: true, value: next };
        const theirs = await this.deps.store.readMemory(key);
        // The base gone, or another in its place: it was deleted (or expired) meanwhile, which wins.
        const forgotten = base !== undefined && theirs?.generation !== base.generation;
        next = mergedFacts(base?.facts ?? [], facts, theirs?.facts ?? [], forgotten);
        read = theirs;
        return { won: false };
      },
      this.deps.contention,
    );
  }

  async read(principal: Principal, digitalHumanId: string, participantIdentity: string): Promise<ParticipantMemory> {
    const key = keyOf(principal, digitalHumanId, participantIdentity);
    const kept = await this.deps.store.readMemory(key);
    if (!kept) throw notFound(key);
    return {
      digital_human_id: key.digitalHumanId,
      participant_identity: participantIdentity,
      facts: kept.facts,
      updated_at: new Date(kept.updatedAtMs).toISOString(),
      expires_at: new Date(kept.expiresAtMs).toISOString(),
    };
  }

  async delete(principal: Principal, digitalHumanId: string, participantIdentity: string): Promise<ParticipantMemoryDeleted> {
    const key = keyOf(principal, digitalHumanId, participantIdentity);
    if (!(await this.deps.store.deleteMemory(key))) throw notFound(key);
    return { digital_human_id: key.digitalHumanId, participant_identity: participantIdentity, deleted: true };
  }

  forgetDigitalHuman(owner: string, digitalHumanId: string): Promise<void> {
    return this.deps.store.forgetDigitalHuman(owner, digitalHumanId);
  }
}

// Keyed by the key's data owner: another account's, or the other mode's, is simply not there.
const keyOf = (principal: Principal, digitalHumanId: string, participantIdentity: string): MemoryKey => ({
  owner: principal.accountId,
  digitalHumanId: digitalHumanId.toLowerCase(),
  participantIdentity,
});

const notFound = (key: MemoryKey) =>
  new AppError("not_found", `Digital human ${key.digitalHumanId} keeps nothing about participant ${key.participantIdentity}.`);
