/**
 * Participant memories in the history database (MemoryStore), their record when it is configured: they
 * outlive any session by months, which is the database's to keep, not Redis's. A row past its expiry
 * counts as absent at once and is deleted by the retention pass (dropExpiredMemories).
 */
import type { KeptMemory, MemoryKey, MemoryStore, MemoryVersion, MemoryWrite } from "../../domain/memories/ports.js";
import { type Database, guardDatabase } from "./database.js";

const KEY = "owner = $1 AND digital_human_id = $2 AND participant_identity = $3";
const READ = `SELECT facts, revision, generation, updated_at, expires_at FROM participant_memories WHERE ${KEY} AND expires_at > $4`;
const RECALL = `
UPDATE participant_memories SET expires_at = greatest(expires_at, $5) WHERE ${KEY} AND expires_at > $4
RETURNING facts, revision, generation, updated_at, expires_at`;
// The first revision takes the place of none kept, or of an expired one.
const CREATE = `
INSERT INTO participant_memories AS m (owner, digital_human_id, participant_identity, facts, revision, generation, updated_at, expires_at)
VALUES ($1, $2, $3, $4, 1, $7, $5, $6)
ON CONFLICT (owner, digital_human_id, participant_identity) DO UPDATE
SET facts = excluded.facts, revision = 1, generation = excluded.generation, updated_at = excluded.updated_at, expires_at = excluded.expires_at
WHERE m.expires_at <= excluded.updated_at
RETURNING 1`;
// A later one only while the memory read (its generation and revision) is still the one kept.
const REPLACE = `
UPDATE participant_memories SET facts = $5, revision = revision + 1, updated_at = $6, expires_at = $7
WHERE ${KEY} AND revision = $4 AND generation = $8 AND expires_at > $6
RETURNING 1`;
const DELETE = `DELETE FROM participant_memories WHERE ${KEY} AND expires_at > $4 RETURNING 1`;
const FORGET = "DELETE FROM participant_memories WHERE owner = $1 AND digital_human_id = $2";
const DROP_EXPIRED = `
DELETE FROM participant_memories WHERE ctid IN (SELECT ctid FROM participant_memories WHERE expires_at <= $1 LIMIT $2)`;
const DROP_BATCH = 5_000;

interface Row {
  facts: string[];
  revision: string;
  generation: string;
  updated_at: Date;
  expires_at: Date;
}

export class PostgresParticipantMemories implements MemoryStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  async readMemory(key: MemoryKey): Promise<KeptMemory | undefined> {
    return this.one("memory-read", READ, [...keyOf(key), new Date(this.now())]);
  }

  async recallMemory(key: MemoryKey, expiresAtMs: number): Promise<KeptMemory | undefined> {
    return this.one("memory-recall", RECALL, [...keyOf(key), new Date(this.now()), new Date(expiresAtMs)]);
  }

  async writeMemory(key: MemoryKey, memory: MemoryWrite, read: MemoryVersion | undefined): Promise<boolean> {
    const facts = JSON.stringify(memory.facts);
    const times = [new Date(memory.updatedAtMs), new Date(memory.expiresAtMs)];
    const query =
      read === undefined
        ? { name: "memory-create", text: CREATE, values: [...keyOf(key), facts, ...times, memory.generation] }
        : { name: "memory-replace", text: REPLACE, values: [...keyOf(key), read.revision, facts, ...times, read.generation] };
    const { rowCount } = await guardDatabase(() => this.db.query(query));
    return rowCount === 1;
  }

  async deleteMemory(key: MemoryKey): Promise<boolean> {
    const { rowCount } = await guardDatabase(() =>
      this.db.query({ name: "memory-delete", text: DELETE, values: [...keyOf(key), new Date(this.now())] }),
    );
    return rowCount === 1;
  }

  async forgetDigitalHuman(owner: string, digitalHumanId: string): Promise<void> {
    await guardDatabase(() => this.db.query({ name: "memory-forget", text: FORGET, values: [owner, digitalHumanId] }));
  }

  /** Deletes the memories expired by `nowMs`, in batches; returns how many. */
  async dropExpiredMemories(nowMs: number): Promise<number> {
    let dropped = 0;
    for (;;) {
      const { rowCount } = await guardDatabase(() =>
        this.db.query({ name: "memory-drop-expired", text: DROP_EXPIRED, values: [new Date(nowMs), DROP_BATCH] }),
      );
      dropped += rowCount ?? 0;
      if ((rowCount ?? 0) < DROP_BATCH) return dropped;
    }
  }

  private async one(name: string, text: string, values: unknown[]): Promise<KeptMemory | undefined> {
    const { rows } = await guardDatabase(() => this.db.query<Row>({ name, text, values }));
    const row = rows[0];
    return (
      row && {
        facts: row.facts,
        revision: Number(row.revision),
        generation: row.generation,
        updatedAtMs: row.updated_at.getTime(),
        expiresAtMs: row.expires_at.getTime(),
      }
    );
  }
}

const keyOf = (key: MemoryKey) => [key.owner, key.digitalHumanId, key.participantIdentity];
