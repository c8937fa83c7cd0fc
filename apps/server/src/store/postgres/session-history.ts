/**
 * Ended sessions in PostgreSQL (SessionHistory): one row per session in the `sessions` table, partitioned
 * by creation day, its record as jsonb in the live store's format (session-format.ts), with its
 * transcript's state; its segments in `transcript_segments` (read by transcript-history.ts), its tool
 * calls in `tool_calls` (read by tool-call-history.ts). A write is
 * one transaction for a whole batch, a statement per table (unnest of arrays); reads keep to the
 * retention by the row's end, as Redis's expiry does, whether or not its day's partition is dropped yet.
 */
import type { HistoryEntry, SessionHistory } from "../../domain/sessions/history-ports.js";
import type { ListQuery } from "../../domain/sessions/ports.js";
import type { SessionRecord } from "../../domain/sessions/session.js";
import { decodeStoredSession, encodeSession } from "../session-format.js";
import { type Database, guardDatabase, transaction } from "./database.js";
import { Partitions, utcDayOf } from "./partitions.js";

export interface SessionHistoryOptions {
  /** How long a session is kept after its end (ms). */
  retentionMs: number;
  /** The longest a session can run, from its creation to its end (ms). */
  maxLifeMs: number;
  now?: () => number;
}

// A row written again takes the new record; a transcript deleted here stays deleted, whatever the live
// store held when it was read.
const WRITE_SESSIONS = `
INSERT INTO sessions AS s (account_id, created_at, id, status, ended_at, record,
  transcript_segment_count, transcript_final, transcript_deleted_at)
SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::uuid[], $4::text[], $5::timestamptz[], $6::jsonb[],
  $7::integer[], $8::boolean[], $9::timestamptz[])
ON CONFLICT (account_id, created_at, id) DO UPDATE SET
  status = EXCLUDED.status, ended_at = EXCLUDED.ended_at, record = EXCLUDED.record,
  transcript_segment_count = CASE WHEN s.transcript_deleted_at IS NULL AND EXCLUDED.transcript_deleted_at IS NULL
    THEN EXCLUDED.transcript_segment_count ELSE 0 END,
  transcript_final = s.transcript_final OR EXCLUDED.transcript_final,
  transcript_deleted_at = COALESCE(s.transcript_deleted_at, EXCLUDED.transcript_deleted_at),
  written_at = now()`;

// Segments are added once (their ids are unique in a transcript), and only to a transcript not deleted:
// the join reads the row this transaction just wrote, locked until it commits, so a deletion either
// waits for these rows (and deletes them) or came first (and none is added).
const WRITE_SEGMENTS = `
INSERT INTO transcript_segments (account_id, session_created_at, session_id, segment_id, speaker, text, started_at, ended_at)
SELECT u.* FROM unnest($1::text[], $2::timestamptz[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::timestamptz[],
  $8::timestamptz[]) AS u(account_id, session_created_at, session_id, segment_id, speaker, text, started_at, ended_at)
JOIN sessions s ON s.account_id = u.account_id AND s.created_at = u.session_created_at AND s.id = u.session_id
WHERE s.transcript_deleted_at IS NULL
ON CONFLICT DO NOTHING`;

// A call written again (it ended after its session's first write) takes its new outcome.
const WRITE_TOOL_CALLS = `
INSERT INTO tool_calls (account_id, session_created_at, session_id, call_id, position, record)
SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::uuid[], $4::text[], $5::integer[], $6::jsonb[])
ON CONFLICT (account_id, session_created_at, session_id, call_id) DO UPDATE SET record = EXCLUDED.record`;

const ERASE_SEGMENTS = `
DELETE FROM transcript_segments WHERE (account_id, session_created_at, session_id) IN
  (SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::uuid[]))`;

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

  /** One transaction: the sessions' rows, their transcripts' new segments, their tool calls, the segments of deleted ones erased. */
  async writeSessions(entries: readonly HistoryEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.partitions.ensure(entries.map(({ record }) => utcDayOf(Date.parse(record.created_at))));
    const records = entries.map((entry) => entry.record);
    const segments = entries.flatMap(({ record, transcript }) =>
      transcript.state.deletedAtMs === null ? transcript.segments.map((segment) => ({ record, segment })) : [],
    );
    const calls = entries.flatMap(({ record, toolCalls }) => toolCalls.map((call, position) => ({ record, call, position })));
    const deleted = entries.filter((entry) => entry.transcript.state.deletedAtMs !== null).map((entry) => entry.record);
    await guardDatabase(() =>
      transaction(this.db, async (client) => {
        await client.query({
          name: "history-write-sessions",
          text: WRITE_SESSIONS,
          values: [
            records.map((r) => r.account_id),
            records.map((r) => r.created_at),
            records.map((r) => r.id),
            records.map((r) => r.status),
            records.map((r) => r.ended_at),
            records.map((r) => encodeSession(r)),
            entries.map((e) => e.transcript.state.segmentCount),
            entries.map((e) => e.transcript.state.final),
            entries.map((e) => (e.transcript.state.deletedAtMs === null ? null : new Date(e.transcript.state.deletedAtMs))),
          ],
        });
        if (segments.length > 0) {
          await client.query({
            name: "history-write-segments",
            text: WRITE_SEGMENTS,
            values: [
              segments.map(({ record }) => record.account_id),
              segments.map(({ record }) => record.created_at),
              segments.map(({ record }) => record.id),
              segments.map(({ segment }) => segment.id),
              segments.map(({ segment }) => segment.speaker),
              segments.map(({ segment }) => segment.text),
              segments.map(({ segment }) => new Date(segment.startedAtMs)),
              segments.map(({ segment }) => new Date(segment.endedAtMs)),
            ],
          });
        }
        if (calls.length > 0) {
          await client.query({
            name: "history-write-tool-calls",
            text: WRITE_TOOL_CALLS,
            values: [
              calls.map(({ record }) => record.account_id),
              calls.map(({ record }) => record.created_at),
              calls.map(({ record }) => record.id),
              calls.map(({ call }) => call.id),
              calls.map(({ position }) => position),
              calls.map(({ call }) => JSON.stringify(call)),
            ],
          });
        }
        if (deleted.length > 0) {
          await client.query({
            name: "history-erase-segments",
            text: ERASE_SEGMENTS,
            values: [deleted.map((r) => r.account_id), deleted.map((r) => r.created_at), deleted.map((r) => r.id)],
          });
        }
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
