/**
 * An account's own digital humans in memory (DigitalHumanStore), for development and tests: each owner's
 * by id, stored as JSON (so callers never share, and mutate, one object), with the Idempotency-Keys of its
 * creates; each step is synchronous, so atomic.
 */
import type {
  DigitalHumanCreateOutcome,
  DigitalHumanCreation,
  DigitalHumanRecord,
  DigitalHumanStore,
  DigitalHumanVersion,
  StoredDigitalHuman,
} from "../../domain/digital-humans/ports.js";
import { isAfterCursor, type ListPosition, newestFirst } from "../../domain/list-order.js";
import { entry } from "./maps.js";

interface Owned {
  /** id -> JSON */
  all: Map<string, string>;
  /** Idempotency-Key -> what it made, and until when it is remembered (ms). */
  keys: Map<string, { fingerprint: string; id: string; expiresAt: number }>;
}

export class MemoryDigitalHumanStore implements DigitalHumanStore {
  private readonly owners = new Map<string, Owned>();

  constructor(private readonly now: () => number = Date.now) {}

  async createDigitalHuman({
    record,
    idempotencyKey,
    fingerprint,
    keyTtlMs,
    limit,
  }: DigitalHumanCreation): Promise<DigitalHumanCreateOutcome> {
    const owned = this.owned(record.owner);
    const recorded = owned.keys.get(idempotencyKey);
    if (recorded !== undefined && recorded.expiresAt > this.now()) {
      return recorded.fingerprint === fingerprint ? { kind: "replay", id: recorded.id } : { kind: "reused" };
    }
    if (owned.all.size >= limit) return { kind: "limit" };
    owned.all.set(record.id, JSON.stringify(record));
    owned.keys.set(idempotencyKey, { fingerprint, id: record.id, expiresAt: this.now() + keyTtlMs });
    return { kind: "created", record };
  }

  async getDigitalHuman(owner: string, id: string): Promise<StoredDigitalHuman | undefined> {
    const json = this.owners.get(owner)?.all.get(id);
    return json === undefined
      ? undefined
      : { record: JSON.parse(json) as DigitalHumanRecord, version: json as unknown as DigitalHumanVersion };
  }

  async listDigitalHumans(owner: string, query: { limit: number; after?: ListPosition | undefined }): Promise<DigitalHumanRecord[]> {
    const records = [...(this.owners.get(owner)?.all.values() ?? [])].map((json) => JSON.parse(json) as DigitalHumanRecord);
    const position = (record: DigitalHumanRecord): ListPosition => ({ createdAtMs: Date.parse(record.created_at), id: record.id });
    return records
      .filter((record) => isAfterCursor(position(record), query.after))
      .sort((a, b) => newestFirst(position(a), position(b)))
      .slice(0, query.limit + 1);
  }

  async replaceDigitalHuman(record: DigitalHumanRecord, version: DigitalHumanVersion): Promise<boolean> {
    const owned = this.owners.get(record.owner);
    if (owned?.all.get(record.id) !== (version as unknown as string)) return false;
    owned.all.set(record.id, JSON.stringify(record));
    return true;
  }

  async deleteDigitalHuman(owner: string, id: string): Promise<boolean> {
    return this.owners.get(owner)?.all.delete(id) ?? false;
  }

  private owned(owner: string): Owned {
    const owned = entry(this.owners, owner, () => ({ all: new Map(), keys: new Map() }));
    for (const [key, recorded] of owned.keys) if (recorded.expiresAt <= this.now()) owned.keys.delete(key);
    return owned;
  }
}
