/**
 * The accounts' usage counters in PostgreSQL (UsageHistory): `usage_counts` per account, day and field,
 * added to by moves of Redis's counters, each applied once (`usage_moves` records it in the same
 * statement). Kept USAGE_RETENTION_DAYS, as Redis kept them.
 */
import type { UsageHistory, UsageMove } from "../../domain/sessions/history-ports.js";
import { USAGE_RETENTION_DAYS } from "../../domain/sessions/usage.js";
import { type Database, guardDatabase, transaction } from "./database.js";

// The moves not applied before are recorded, and only their counts added (summed per row first: one
// statement may not change a row twice).
const APPLY = `
WITH applied AS (
  INSERT INTO usage_moves (move_id, account_id, day, moved_at_us, counts)
  SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $9::bigint[], $10::jsonb[])
  ON CONFLICT (move_id) DO NOTHING
  RETURNING move_id
)
INSERT INTO usage_counts (account_id, day, field, count)
SELECT c.account_id, c.day, c.field, sum(c.count) FROM unnest($4::text[], $5::text[], $6::date[], $7::text[], $8::bigint[])
  AS c(move_id, account_id, day, field, count)
WHERE c.move_id IN (SELECT move_id FROM applied)
GROUP BY c.account_id, c.day, c.field
ON CONFLICT (account_id, day, field) DO UPDATE SET count = usage_counts.count + EXCLUDED.count`;

const COUNTS = "SELECT to_char(day, 'YYYY-MM-DD') AS day, field, count FROM usage_counts WHERE account_id = $1 AND day = ANY($2::date[])";
const APPLIED = "SELECT move_id FROM usage_moves WHERE move_id = ANY($1::text[])";
const MOVED_AFTER = `
SELECT to_char(day, 'YYYY-MM-DD') AS day, counts FROM usage_moves
WHERE account_id = $1 AND day = ANY($2::date[]) AND moved_at_us > $3`;
const DROP_COUNTS = "DELETE FROM usage_counts WHERE day < $1";
const DROP_MOVES = "DELETE FROM usage_moves WHERE day < $1";

export class PostgresUsageHistory implements UsageHistory {
  constructor(private readonly db: Database) {}

  async applyUsageMoves(moves: readonly UsageMove[]): Promise<void> {
    if (moves.length === 0) return;
    const counts = moves.flatMap((move) => Object.entries(move.counts).map(([field, count]) => ({ move, field, count })));
    await guardDatabase(() =>
      this.db.query({
        name: "history-apply-usage",
        text: APPLY,
        values: [
          moves.map((m) => m.id),
          moves.map((m) => m.accountId),
          moves.map((m) => m.day),
          counts.map((c) => c.move.id),
          counts.map((c) => c.move.accountId),
          counts.map((c) => c.move.day),
          counts.map((c) => c.field),
          counts.map((c) => c.count),
          moves.map((m) => m.movedAtUs),
          moves.map((m) => JSON.stringify(m.counts)),
        ],
      }),
    );
  }

  /** One read-only transaction, so the counters and the moves are of one moment. */
  async usage(
    accountId: string,
    days: readonly string[],
    moveIds: readonly string[],
    afterUs: number,
  ): Promise<{ counts: Record<string, number>[]; applied: Set<string>; movedAfter: Record<string, number>[] }> {
    const [counts, applied, later] = await guardDatabase(() =>
      transaction(this.db, async (client) => {
        await client.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
        return [
          await client.query<{ day: string; field: string; count: string }>({
            name: "history-usage",
            text: COUNTS,
            values: [accountId, days],
          }),
          await client.query<{ move_id: string }>({ name: "history-usage-applied", text: APPLIED, values: [moveIds] }),
          await client.query<{ day: string; counts: Record<string, number> }>({
            name: "history-usage-moved-after",
            text: MOVED_AFTER,
            values: [accountId, days, afterUs],
          }),
        ] as const;
      }),
    );
    const byDay = () => days.map(() => ({}) as Record<string, number>);
    const totals = byDay();
    for (const row of counts.rows) {
      const day = totals[days.indexOf(row.day)];
      if (day) day[row.field] = Number(row.count);
    }
    const movedAfter = byDay();
    for (const row of later.rows) {
      const day = movedAfter[days.indexOf(row.day)];
      if (day) for (const [field, n] of Object.entries(row.counts)) day[field] = (day[field] ?? 0) + n;
    }
    return { counts: totals, applied: new Set(applied.rows.map((row) => row.move_id)), movedAfter };
  }

  async dropExpiredUsage(nowMs: number): Promise<void> {
    const oldest = new Date(nowMs - USAGE_RETENTION_DAYS * 86_400_000).toISOString().slice(0, 10);
    await guardDatabase(async () => {
      await this.db.query({ name: "history-drop-usage", text: DROP_COUNTS, values: [oldest] });
      await this.db.query({ name: "history-drop-usage-moves", text: DROP_MOVES, values: [oldest] });
    });
  }
}
