/**
 * Ended sessions in PostgreSQL (SessionHistory): one row per session in the `sessions` table, partitioned
 * by creation day, its record as jsonb in the live store's format (session-format.ts). A write is one
 * statement for a whole batch (unnest of arrays), inserting or replacing rows; reads keep to the
 * retention by the row's end, as Redis's expiry does, whether or not its day's partition is dropped yet.
 */
import type { SessionHistory } from "../../domain/sessions/history-ports.js";
import type { ListQuery } from "../../domain/sessions/ports.js";
import type { SessionRecord } from "../../domain/sessions/session.js";
import { decodeStoredSession, encodeSession } from "../session-format.js";
import { type Database, guardDatabase } from "./database.js";
import { Partitions, utcDayOf } from "./partitions.js";

export interface SessionHistoryOptions {
  /** How long a session is kept after its end (ms). */
  retentionMs: number;
  /** The longest a session can run, from its creation to its end (ms). */
  maxLifeMs: number;
  now?: () => number;
}

const WRITE = `
INSERT INTO sessions (account_id, created_at, id, status, ended_at, record)
SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::uuid[], $4::text[], $5::timestamptz[], $6::jsonb[])
ON CONFLICT (account_id, created_at, id) DO UPDATE
  SET status = EXCLUDED.status, ended_at = EXCLUDED.ended_at, record = EXCLUDED.record, written_at = now()
  WHERE sessions.record IS DISTINCT FROM EXCLUDED.record`;

const FIND = "SELECT id, record FROM sessions WHERE id = $1 AND ended_at > $2";

// Newest first from the cursor (created_at, id), within the retention; `LIST_STATUS` with one status.
const LIST_WHERE = "account_id = $1 AND created_at >= $2 AND ended_at > $3 AND (created_at, id) < ($4, $5)";
const LIST_ORDER = "ORDER BY created_at DESC, id DESC LIMIT $6";
const LIST = `SELECT id, record FROM sessions WHERE ${LIST_WHERE} ${LIST_ORDER}`;
const LIST_STATUS = `SELECT id, record FROM sessions WHERE ${LIST_WHERE} AND status = $7 ${LIST_ORDER}`;

/** Past every session id: a list without a cursor starts here (with created_at < infinity). */
const LAST_ID = "ffffffff-ffff-ffff-ffff-ffffffffffff";

type Row = { id: string; record: object };

export class PostgresSessionHistory implements SessionHistory {
  private readonly partitions: Partitions;
  private readonly now: () => number;

  constructor(
    private readonly db: Database,
    private readonly options: SessionHistoryOptions,
  ) {
    this.partitions = new Partitions(db);
    this.now = options.now ?? Date.now;
  }

  async writeSessions(records: readonly SessionRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.partitions.ensure(records.map((record) => utcDayOf(Date.parse(record.created_at))));
    await guardDatabase(() =>
      this.db.query({
        name: "history-write-sessions",
        text: WRITE,
        values: [
          records.map((r) => r.account_id),
          records.map((r) => r.created_at),
          records.map((r) => r.id),
          records.map((r) => r.status),
          records.map((r) => r.ended_at),
          records.map((r) => encodeSession(r)),
        ],
      }),
    );
  }

  async findSession(sessionId: string): Promise<SessionRecord | undefined> {
    const result = await guardDatabase(() =>
      this.db.query<Row>({ name: "history-find-session", text: FIND, values: [sessionId, this.keptSince()] }),
    );
    const row = result.rows[0];
    return row ? decodeStoredSession(row.record, row.id) : undefined;
  }

  async listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]> {
    const after = query.after;
    const values: unknown[] = [
      accountId,
      new Date(query.oldestCreatedMs),
      this.keptSince(),
      after ? new Date(after.createdAtMs) : "infinity",
      after ? after.id : LAST_ID,
      query.limit + 1,
    ];
    const statement =
      query.status === undefined
        ? { name: "history-list-sessions", text: LIST, values }
        : { name: "history-list-sessions-status", text: LIST_STATUS, values: [...values, query.status] };
    const result = await guardDatabase(() => this.db.query<Row>(statement));
    return result.rows.map((row) => decodeStoredSession(row.record, row.id));
  }

  /** Days whose every session is past its retention: created before the day of now less both bounds. */
  dropExpired(nowMs: number): Promise<string[]> {
    return this.partitions.dropBefore(utcDayOf(nowMs - this.options.maxLifeMs - this.options.retentionMs));
  }

  private keptSince(): Date {
    return new Date(this.now() - this.options.retentionMs);
  }
}
