import type { DigitalHumanAnalysis, Tool } from "@dhs/contract";
import type { ListPosition } from "../list-order.js";
/**
 * What the account's own digital humans need from a store (Redis or memory): created once per
 * Idempotency-Key and within the account's limit in one step, read, listed newest first, replaced by
 * compare-and-set, deleted. Each is kept under its owner (an account, or its test side), so another
 * owner's is never found.
 */

/** One of an account's own digital humans, as stored; the contract's DigitalHuman less what is derived. */
export interface DigitalHumanRecord {
  id: string;
  /** The data owner: the account of the key that made it, or that account's test side. */
  owner: string;
  name: string;
  description: string | null;
  appearance: string;
  instructions: string | null;
  greeting: string | null;
  voice: string;
  language: string;
  llm: { model: string | null; temperature: number | null };
  max_session_duration_s: number | null;
  metadata: Record<string, string>;
  /** Its tools, defaults filled (tool-definitions.ts); absent from records stored before tools existed. */
  tools?: Tool[];
  /** The documents it answers from; absent from records stored before knowledge existed. */
  knowledge?: { document_ids: string[] };
  /** What its sessions are analysed for once they end (null: nothing); absent from records stored before analysis existed. */
  analysis?: DigitalHumanAnalysis | null;
  /** Whether it remembers returning participants; absent from records stored before memory existed (off). */
  memory?: { enabled: boolean };
  /** Whether its sessions are recorded; absent from records stored before recordings existed (off). */
  recording?: { audio: boolean };
  created_at: string;
  updated_at: string;
}

declare const digitalHumanVersion: unique symbol;
/** What a store compares a digital human with when it is replaced: opaque, handed back unchanged. */
export type DigitalHumanVersion = { readonly [digitalHumanVersion]: true };

export interface StoredDigitalHuman {
  record: DigitalHumanRecord;
  version: DigitalHumanVersion;
}

export interface DigitalHumanCreation {
  record: DigitalHumanRecord;
  idempotencyKey: string;
  /** The request body's fingerprint: the same key with another body is refused. */
  fingerprint: string;
  /** How long the key is remembered (ms). */
  keyTtlMs: number;
  /** The most digital humans the owner may have. */
  limit: number;
}

/**
 * `created`: stored. `replay`: the key made one already (its id), for the same body. `reused`: the key
 * was used with another body. `limit`: the owner has `limit` already; nothing is recorded for the key.
 */
/**
 * What a create did: `created` with the record as stored (the first answer of its key: one a dead first
 * try left half made is finished and answered as made now), `replay` of what the key made and answered
 * before, `reused` with another body, `limit`, or `in_progress` while the key's first request still runs.
 */
export type DigitalHumanCreateOutcome =
  | { kind: "created"; record: DigitalHumanRecord }
  | { kind: "replay"; id: string }
  | { kind: "reused" }
  | { kind: "limit" }
  | { kind: "in_progress" };

export interface DigitalHumanStore {
  /** Stores the record and remembers the key for its body, in one step, unless the key or the limit says otherwise. */
  createDigitalHuman(creation: DigitalHumanCreation): Promise<DigitalHumanCreateOutcome>;
  getDigitalHuman(owner: string, id: string): Promise<StoredDigitalHuman | undefined>;
  /** Newest first (creation time, then id), after the position; one more than `limit` tells of a next page. */
  listDigitalHumans(owner: string, query: { limit: number; after?: ListPosition | undefined }): Promise<DigitalHumanRecord[]>;
  /** Replaces the record if it is still at `version`; false when another writer got there first, or it is gone. */
  replaceDigitalHuman(record: DigitalHumanRecord, version: DigitalHumanVersion): Promise<boolean>;
  /** False when there was none. */
  deleteDigitalHuman(owner: string, id: string): Promise<boolean>;
}
