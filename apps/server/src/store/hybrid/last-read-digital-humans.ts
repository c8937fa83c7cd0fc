/**
 * The digital humans this process last read or wrote, kept in its memory for the one thing Redis's copy
 * of them did: a session create with one of them, and a read of one, go on while PostgreSQL cannot be
 * reached. No Redis script reads a digital human, so no copy of them need be in Redis; in memory it costs
 * no write per change, nothing to keep in step across a FLUSHALL, and no failure to report.
 *
 * Read only while the database is down: while it answers, every read is the database's, so a change made
 * by another process is seen at once. What this process knows is then at most `lifetimeMs` old (a change
 * made by another process within that time, during the outage, is not seen; a digital human it has not
 * read within it is a 503, as every configuration read is then). At most `capacity` of them, the least
 * recently used going first: a few kilobytes each (its instructions at most 10 000 characters), so the
 * default 10 000 (one account's most) is tens of MiB for usual ones.
 */
import type { DigitalHumanRecord } from "../../domain/digital-humans/ports.js";

export interface LastReadOptions {
  /** How long a digital human read from the database may be served while it is down (ms). */
  lifetimeMs: number;
  capacity: number;
  now?: () => number;
}

/** Fifteen minutes: outages beyond that are the operator's to fix; a session create then waits for them. */
export const LAST_READ_DEFAULTS: LastReadOptions = { lifetimeMs: 15 * 60_000, capacity: 10_000 };

export class LastReadDigitalHumans {
  private readonly entries = new Map<string, { record: DigitalHumanRecord; atMs: number }>();
  private readonly now: () => number;

  constructor(private readonly options: LastReadOptions = LAST_READ_DEFAULTS) {
    this.now = options.now ?? Date.now;
  }

  /** As the database has it now (read, created or changed). */
  remember(record: DigitalHumanRecord): void {
    const key = keyOf(record.owner, record.id);
    // Deleted first, so that the Map's order is the order of use: the oldest is the first key.
    this.entries.delete(key);
    this.entries.set(key, { record, atMs: this.now() });
    if (this.entries.size > this.options.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Deleted, or found missing by the database: never served from here again. */
  forget(owner: string, id: string): void {
    this.entries.delete(keyOf(owner, id));
  }

  /** What the database last said of it, if within the lifetime. */
  recall(owner: string, id: string): DigitalHumanRecord | undefined {
    const key = keyOf(owner, id);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.atMs > this.options.lifetimeMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.record;
  }

  get size(): number {
    return this.entries.size;
  }
}

// Owners and ids hold no newline (account ids and UUIDs), so the pair is one key.
const keyOf = (owner: string, id: string) => `${owner}\n${id}`;
