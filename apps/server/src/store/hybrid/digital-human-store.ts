/**
 * The accounts' own digital humans with the PostgreSQL history database (DigitalHumanStore): PostgreSQL
 * is their record, written first (a write answers 503 while it is down); Redis keeps the Idempotency-Keys
 * of their creates (the design card puts idempotency there). No copy of them is in Redis: no script reads
 * one. What this process last read of each is kept in its memory, read only while the database cannot be
 * (last-read-digital-humans.ts), so a session create with one of them goes on.
 *
 * A create claims its key in Redis with the new id and a short lease (SET NX: `p|<fingerprint>|<id>|<lease
 * end>`), then inserts the row, the owner's limit checked under a lock of that owner, and marks the key
 * done (`<fingerprint>|<id>`) before it answers. Another request with the key finds: done, a replay of
 * what was answered; pending within its lease, `409 idempotency_request_in_progress` (the first one's
 * outcome will be the key's one answer); pending past its lease (its first try died, or failed with a 503
 * and gave its lease back), a takeover of that claim (compare-and-set) that finishes the create with the
 * same id: the row, if the dead try had inserted it, is answered as created, since nothing was answered
 * before. A create past the limit gives its own claim back, so nothing is recorded for it.
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
import type { ListPosition } from "../../domain/list-order.js";
import { type Database, guardDatabase, transaction } from "../postgres/database.js";
import { guard } from "../redis/guard.js";
import { type Keyspace, keyspace } from "../redis/keys.js";
import { RedisScripts } from "../redis/scripts.js";
import { type StepSkipped, skippable, warnStepSkipped } from "../skipped-steps.js";
import { LastReadDigitalHumans } from "./last-read-digital-humans.js";

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

/**
 * How long a create's claim of its key holds off other requests with it (ms): past it, the claim's
 * request is taken for dead. Well past a create's statement timeout and Redis's.
 */
const CLAIM_LEASE_MS = 15_000;

/** The version of a digital human served from what this process last read: no row has it. */
const LAST_READ = "last-read";

export class PostgresDigitalHumanStore implements DigitalHumanStore {
  private readonly keys: Keyspace;
  private readonly scripts: RedisScripts;

  constructor(
    private readonly db: Database,
    private readonly redis: Redis | Cluster,
    prefix: string,
    private readonly stepSkipped: StepSkipped = warnStepSkipped,
    private readonly lastRead = new LastReadDigitalHumans(),
  ) {
    this.keys = keyspace(prefix);
    this.scripts = new RedisScripts(redis);
  }

  async createDigitalHuman(creation: DigitalHumanCreation): Promise<DigitalHumanCreateOutcome> {
    const { record, idempotencyKey, fingerprint, keyTtlMs, limit } = creation;
    const key = this.keys.digitalHumanKey(record.owner, idempotencyKey);
    const claim = await this.claimKey(key, fingerprint, record.id, keyTtlMs);
    if (claim.kind !== "claimed") return claim;
    const made = { ...record, id: claim.id };
    let stored: DigitalHumanRecord | "limit";
    try {
      stored = await guardDatabase(() =>
        transaction(this.db, async (client) => {
          await client.query({ name: "dh-lock-owner", text: LOCK_OWNER, values: [made.owner] });
          // A dead first try of this key may have inserted it: finished, not made twice.
          const { rows: existing } = await client.query<Row>({ name: "dh-get", text: GET, values: [made.owner, made.id] });
          if (existing[0]) return existing[0].record;
          const { rows } = await client.query<{ n: number }>({ name: "dh-count", text: COUNT, values: [made.owner] });
          if ((rows[0]?.n ?? 0) >= limit) return "limit";
          await client.query({ name: "dh-insert", text: INSERT, values: [made.owner, made.id, made.created_at, made] });
          return made;
        }),
      );
    } catch (error) {
      // Nothing was answered: the next request with the key takes the claim over at once (or, should this
      // fail, once the claim's lease ends).
      await skippable(this.swap(key, claim.value, pending(fingerprint, claim.id, 0)), "digital_human_claim_release", this.stepSkipped);
      throw error;
    }
    if (stored === "limit") {
      // Nothing is recorded for a key refused at the limit (unless another request took it meanwhile).
      await this.swap(key, claim.value, "");
      return { kind: "limit" };
    }
    // The key is done before the answer: a request after this one replays it.
    await this.swap(key, claim.value, `${fingerprint}|${claim.id}`);
    this.lastRead.remember(stored);
    return { kind: "created", record: stored };
  }

  /** The key claimed for this request (its id: the key's own when taken over), or what the key says instead. */
  private async claimKey(
    key: string,
    fingerprint: string,
    id: string,
    keyTtlMs: number,
  ): Promise<{ kind: "claimed"; id: string; value: string } | Exclude<DigitalHumanCreateOutcome, { kind: "created" | "limit" }>> {
    for (;;) {
      const value = pending(fingerprint, id, Date.now() + CLAIM_LEASE_MS);
      if ((await guard(() => this.redis.set(key, value, "PX", keyTtlMs, "NX"))) !== null) return { kind: "claimed", id, value };
      const recorded = await guard(() => this.redis.get(key));
      // Gone meanwhile (expired): a new create, as the key no longer says otherwise.
      if (recorded === null) continue;
      const held = parseKey(recorded);
      if (held.print !== fingerprint) return { kind: "reused" };
      if (!held.pending) return { kind: "replay", id: held.id };
      if (held.leaseUntilMs > Date.now()) return { kind: "in_progress" };
      const taken = pending(fingerprint, held.id, Date.now() + CLAIM_LEASE_MS);
      if (await this.swap(key, recorded, taken)) return { kind: "claimed", id: held.id, value: taken };
    }
  }

  private async swap(key: string, expected: string, next: string): Promise<boolean> {
    return guard(async () => (await this.scripts.run("swapCreateKey", { key, expected, next })) === 1);
  }

  /** The database's row; while the database cannot be reached, what this process last read of it. */
  async getDigitalHuman(owner: string, id: string): Promise<StoredDigitalHuman | undefined> {
    let row: Row | undefined;
    try {
      ({
        rows: [row],
      } = await guardDatabase(() => this.db.query<Row>({ name: "dh-get", text: GET, values: [owner, id] })));
    } catch (error) {
      const known = error instanceof DependencyUnavailableError ? this.lastRead.recall(owner, id) : undefined;
      if (!known) throw error;
      // A version no row has: a change made from it is refused as the database being down.
      return { record: known, version: LAST_READ as unknown as DigitalHumanVersion };
    }
    if (!row) {
      this.lastRead.forget(owner, id);
      return undefined;
    }
    this.lastRead.remember(row.record);
    return { record: row.record, version: row.version as unknown as DigitalHumanVersion };
  }

  async listDigitalHumans(owner: string, query: { limit: number; after?: ListPosition | undefined }): Promise<DigitalHumanRecord[]> {
    const { after } = query;
    const values = [owner, after ? new Date(after.createdAtMs) : "infinity", after ? after.id : LAST_ID, query.limit + 1];
    const { rows } = await guardDatabase(() => this.db.query<Row>({ name: "dh-list", text: LIST, values }));
    return rows.map((row) => row.record);
  }

  async replaceDigitalHuman(record: DigitalHumanRecord, version: DigitalHumanVersion): Promise<boolean> {
    const expected = version as unknown as string;
    // Served from the last read: the database could not be reached a moment ago.
    if (expected === LAST_READ) throw new DependencyUnavailableError("database");
    const { rows } = await guardDatabase(() =>
      this.db.query({ name: "dh-replace", text: REPLACE, values: [record.owner, record.id, record, expected] }),
    );
    if (rows.length === 0) return false;
    this.lastRead.remember(record);
    return true;
  }

  async deleteDigitalHuman(owner: string, id: string): Promise<boolean> {
    const { rowCount } = await guardDatabase(() => this.db.query({ name: "dh-delete", text: DELETE, values: [owner, id] }));
    this.lastRead.forget(owner, id);
    return (rowCount ?? 0) > 0;
  }
}

/**
 * A create's key: `p|<fingerprint>|<id>|<lease end, ms>` while it is being made, `<fingerprint>|<id>`
 * once made. A pending key without a lease end (from an earlier server) is past its lease.
 */
function parseKey(recorded: string): { pending: boolean; print: string; id: string; leaseUntilMs: number } {
  if (!recorded.startsWith("p|")) {
    const at = recorded.lastIndexOf("|");
    return { pending: false, print: recorded.slice(0, at), id: recorded.slice(at + 1), leaseUntilMs: 0 };
  }
  const [print = "", id = "", lease = "0"] = recorded.slice(2).split("|");
  return { pending: true, print, id, leaseUntilMs: Number(lease) || 0 };
}

function pending(fingerprint: string, id: string, leaseUntilMs: number): string {
  return `p|${fingerprint}|${id}|${leaseUntilMs}`;
}
