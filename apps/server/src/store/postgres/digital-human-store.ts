/**
 * The accounts' own digital humans with the PostgreSQL history database (DigitalHumanStore): PostgreSQL
 * is their record, written first (a write answers 503 while it is down); Redis keeps the Idempotency-Keys
 * of their creates (the design card puts idempotency there) and a copy of each, written after the
 * database, read only while the database cannot be, so a session create with one of them goes on.
 *
 * A create claims its key in Redis with the new id (SET NX, pending), then inserts the row, the owner's
 * limit checked under a lock of that owner, marks the key done and copies the row; a retry with the key
 * finds the id: done (or pending with the row there) is a replay, pending without a row continues the
 * create (its first try died on the way) with the same id. A create past the limit gives the key back, so
 * nothing is recorded for it.
 */
import type { Cluster, Redis } from "ioredis";
import { DependencyUnavailableError } from "../../domain/dependency-errors.js";
import type {
  DigitalHumanCreateOutcome,
  DigitalHumanCreation,
  DigitalHumanRecord,
  DigitalHumanStore,
  DigitalHumanVersion,
  StoredDigitalHuman,
} from "../../domain/digital-humans/ports.js";
import type { ListPosition } from "../../domain/sessions/ports.js";
import { guard } from "../redis/guard.js";
import { type Keyspace, keyspace } from "../redis/keys.js";
import { type Database, guardDatabase, transaction } from "./database.js";

const INSERT = `
INSERT INTO digital_humans (owner, id, created_at, record) VALUES ($1, $2, $3, $4)
ON CONFLICT (owner, id) DO NOTHING`;
const COUNT = "SELECT count(*)::int AS n FROM digital_humans WHERE owner = $1";
const LOCK_OWNER = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))";
const GET = "SELECT record, version FROM digital_humans WHERE owner = $1 AND id = $2";
const LIST = `
SELECT record FROM digital_humans WHERE owner = $1 AND (created_at, id) < ($2, $3)
ORDER BY created_at DESC, id DESC LIMIT $4`;
const REPLACE =
  "UPDATE digital_humans SET record = $3, version = version + 1 WHERE owner = $1 AND id = $2 AND version = $4 RETURNING version";
const DELETE = "DELETE FROM digital_humans WHERE owner = $1 AND id = $2";

/** Past every id: a list without a cursor starts here (with created_at < infinity). */
const LAST_ID = "ffffffff-ffff-ffff-ffff-ffffffffffff";

type Row = { record: DigitalHumanRecord; version: string };

/** The version of a digital human read from Redis's copy. */
const REDIS_COPY = "redis-copy";

export class PostgresDigitalHumanStore implements DigitalHumanStore {
  private readonly keys: Keyspace;

  constructor(
    private readonly db: Database,
    private readonly redis: Redis | Cluster,
    prefix: string,
  ) {
    this.keys = keyspace(prefix);
  }

  async createDigitalHuman(creation: DigitalHumanCreation): Promise<DigitalHumanCreateOutcome> {
    const { record, idempotencyKey, fingerprint, keyTtlMs, limit } = creation;
    const key = this.keys.digitalHumanKey(record.owner, idempotencyKey);
    const claimed = await guard(() => this.redis.set(key, `p|${fingerprint}|${record.id}`, "PX", keyTtlMs, "NX"));
    let id = record.id;
    if (claimed === null) {
      const recorded = await guard(() => this.redis.get(key));
      // Gone meanwhile (expired): a new create, as the key no longer says otherwise.
      if (recorded === null) return this.createDigitalHuman(creation);
      const { pending, print, id: made } = parseKey(recorded);
      if (print !== fingerprint) return { kind: "reused" };
      id = made;
      // Made (and perhaps deleted since: the replay then finds none, never a second one).
      if (!pending || (await this.exists(record.owner, id))) return { kind: "replay", id };
    }
    const made = { ...record, id };
    const inserted = await guardDatabase(() =>
      transaction(this.db, async (client) => {
        await client.query({ name: "dh-lock-owner", text: LOCK_OWNER, values: [made.owner] });
        const { rows } = await client.query<{ n: number }>({ name: "dh-count", text: COUNT, values: [made.owner] });
        if ((rows[0]?.n ?? 0) >= limit) return false;
        await client.query({ name: "dh-insert", text: INSERT, values: [made.owner, made.id, made.created_at, made] });
        return true;
      }),
    );
    if (!inserted) {
      // Nothing is recorded for a key refused at the limit (unless another create took it meanwhile).
      await guard(async () => {
        if ((await this.redis.get(key)) === `p|${fingerprint}|${id}`) await this.redis.del(key);
      });
      return { kind: "limit" };
    }
    // The key is done: a replay after a delete finds none, rather than making it again.
    await guard(() => this.redis.set(key, `${fingerprint}|${id}`, "KEEPTTL", "XX")).catch(() => undefined);
    await this.copy(made).catch(() => undefined);
    return id === record.id ? { kind: "created" } : { kind: "replay", id };
  }

  /** The database's row; while the database cannot be reached, Redis's copy. */
  async getDigitalHuman(owner: string, id: string): Promise<StoredDigitalHuman | undefined> {
    try {
      const { rows } = await guardDatabase(() => this.db.query<Row>({ name: "dh-get", text: GET, values: [owner, id] }));
      const row = rows[0];
      return row ? { record: row.record, version: row.version as unknown as DigitalHumanVersion } : undefined;
    } catch (error) {
      if (!(error instanceof DependencyUnavailableError)) throw error;
      const json = await guard(() => this.redis.hget(this.keys.digitalHumans(owner), id));
      // A version no database row has: a change made from it is refused as the database being down.
      return json === null
        ? undefined
        : { record: JSON.parse(json) as DigitalHumanRecord, version: REDIS_COPY as unknown as DigitalHumanVersion };
    }
  }

  async listDigitalHumans(owner: string, query: { limit: number; after?: ListPosition | undefined }): Promise<DigitalHumanRecord[]> {
    const { after } = query;
    const values = [owner, after ? new Date(after.createdAtMs) : "infinity", after ? after.id : LAST_ID, query.limit + 1];
    const { rows } = await guardDatabase(() => this.db.query<Row>({ name: "dh-list", text: LIST, values }));
    return rows.map((row) => row.record);
  }

  async replaceDigitalHuman(record: DigitalHumanRecord, version: DigitalHumanVersion): Promise<boolean> {
    const expected = version as unknown as string;
    // Read from Redis's copy: the database could not be reached a moment ago.
    if (expected === REDIS_COPY) throw new DependencyUnavailableError("database");
    const { rows } = await guardDatabase(() =>
      this.db.query({ name: "dh-replace", text: REPLACE, values: [record.owner, record.id, record, expected] }),
    );
    if (rows.length === 0) return false;
    await this.copy(record).catch(() => undefined);
    return true;
  }

  async deleteDigitalHuman(owner: string, id: string): Promise<boolean> {
    const { rowCount } = await guardDatabase(() => this.db.query({ name: "dh-delete", text: DELETE, values: [owner, id] }));
    await guard(async () => {
      await this.redis.multi().hdel(this.keys.digitalHumans(owner), id).zrem(this.keys.digitalHumanOrder(owner), id).exec();
    }).catch(() => undefined);
    return (rowCount ?? 0) > 0;
  }

  private async exists(owner: string, id: string): Promise<boolean> {
    const { rows } = await guardDatabase(() => this.db.query<Row>({ name: "dh-get", text: GET, values: [owner, id] }));
    return rows.length > 0;
  }

  /** Redis's copy (what a session create reads while the database is down), in the owner's slot. */
  private copy(record: DigitalHumanRecord): Promise<void> {
    return guard(async () => {
      await this.redis
        .multi()
        .hset(this.keys.digitalHumans(record.owner), record.id, JSON.stringify(record))
        .zadd(this.keys.digitalHumanOrder(record.owner), Date.parse(record.created_at), record.id)
        .exec();
    });
  }
}

/** A create's key: `p|<fingerprint>|<id>` while it is being made, `<fingerprint>|<id>` once made. */
function parseKey(recorded: string): { pending: boolean; print: string; id: string } {
  const pending = recorded.startsWith("p|");
  const rest = pending ? recorded.slice(2) : recorded;
  const at = rest.lastIndexOf("|");
  return { pending, print: rest.slice(0, at), id: rest.slice(at + 1) };
}
