/**
 * What participant memories need from a store (memory, Redis, or PostgreSQL with the history database):
 * one participant's facts under a digital human and its owner (an account, or its test side), read,
 * written by compare-and-set of their generation and revision, kept longer by a new session, deleted one by one or all
 * of a digital human's at once, and gone by themselves once they expire.
 */

export interface MemoryKey {
  /** The digital human's owner: the session's account_id (a test session's ends with `#test`). */
  owner: string;
  digitalHumanId: string;
  participantIdentity: string;
}

export interface KeptMemory {
  facts: string[];
  updatedAtMs: number;
  expiresAtMs: number;
  /** Counts its writes: what a compare-and-set compares (1 for the first). */
  revision: number;
  /**
   * Names the memory from its first write until it is deleted or expires: one written again after a
   * deletion has another, so a writer that read it before can tell that it was forgotten in between.
   */
  generation: string;
}

/** Which write of which memory was read: what a compare-and-set compares. */
export type MemoryVersion = Pick<KeptMemory, "generation" | "revision">;

/** What a write keeps; `generation` is taken only by a first write. */
export interface MemoryWrite {
  facts: string[];
  updatedAtMs: number;
  expiresAtMs: number;
  generation: string;
}

export interface MemoryStore {
  /** Undefined when none is kept (or it has expired). */
  readMemory(key: MemoryKey): Promise<KeptMemory | undefined>;
  /** Reads it and keeps it until `expiresAtMs` if that is later (a new session); undefined when none is kept. */
  recallMemory(key: MemoryKey, expiresAtMs: number): Promise<KeptMemory | undefined>;
  /**
   * Writes the facts if the memory kept is still the one read (its generation and revision; undefined:
   * none is kept, an expired one counting as none); false when another write came first.
   */
  writeMemory(key: MemoryKey, memory: MemoryWrite, read: MemoryVersion | undefined): Promise<boolean>;
  /** False when none was kept. */
  deleteMemory(key: MemoryKey): Promise<boolean>;
  /** Every memory of the digital human (it was deleted). */
  forgetDigitalHuman(owner: string, digitalHumanId: string): Promise<void>;
}
