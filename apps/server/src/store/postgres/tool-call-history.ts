/**
 * Tool calls of ended sessions in PostgreSQL (ToolCallHistory), written with their session by
 * session-history.ts: found by the session's row (within the retention, as sessions are), then read from
 * its creation day's partition alone, in the order they started.
 */
import type { ToolCallHistory } from "../../domain/tools/ports.js";
import type { StoredToolCall } from "../../domain/tools/tool-call.js";
import { type Database, guardDatabase } from "./database.js";

const SESSION = "SELECT account_id, created_at FROM sessions WHERE id = $1 AND ended_at > $2";
const CALLS = `
SELECT record FROM tool_calls WHERE account_id = $1 AND session_created_at = $2 AND session_id = $3 ORDER BY position`;

export class PostgresToolCallHistory implements ToolCallHistory {
  constructor(
    private readonly db: Database,
    private readonly options: { retentionMs: number; now?: () => number },
  ) {}

  async listToolCalls(sessionId: string): Promise<StoredToolCall[] | undefined> {
    const now = this.options.now ?? Date.now;
    const found = await guardDatabase(() =>
      this.db.query<{ account_id: string; created_at: Date }>({
        name: "history-tool-call-session",
        text: SESSION,
        values: [sessionId, new Date(now() - this.options.retentionMs)],
      }),
    );
    const row = found.rows[0];
    if (!row) return undefined;
    const calls = await guardDatabase(() =>
      this.db.query<{ record: StoredToolCall }>({
        name: "history-tool-calls",
        text: CALLS,
        values: [row.account_id, row.created_at, sessionId],
      }),
    );
    return calls.rows.map((r) => r.record);
  }
}
