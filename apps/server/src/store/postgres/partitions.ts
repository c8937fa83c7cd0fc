/**
 * The history's tables are partitioned by creation day (UTC): a day's partition is made before the first
 * row of that day is written, and dropped whole once every session in it is past its retention, which is
 * the whole cost of retention (no DELETE, no vacuum of dead rows). Partition names are made here from a
 * checked day, the only SQL of this service built from values: DDL takes no parameters.
 */
import { type Database, guardDatabase } from "./database.js";

/** The partitioned tables, each by its own creation-day column. */
export const PARTITIONED_TABLES = ["sessions", "transcript_segments", "tool_calls"] as const;
type Table = (typeof PARTITIONED_TABLES)[number];

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** `sessions_p20261127`: the partition of `table` holding the rows of `day` (YYYY-MM-DD). */
export function partitionName(table: Table, day: string): string {
  if (!DAY.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) throw new Error(`not a day: ${day}`);
  return `${table}_p${day.replaceAll("-", "")}`;
}

/** The day a partition name holds (undefined for a name this service did not make). */
export function dayOfPartition(table: Table, name: string): string | undefined {
  const match = new RegExp(`^${table}_p(\\d{4})(\\d{2})(\\d{2})$`).exec(name);
  return match ? `${match[1]}-${match[2]}-${match[3]}` : undefined;
}

export class Partitions {
  /** `table|day` of the partitions this process has made or found. */
  private readonly known = new Set<string>();

  constructor(private readonly db: Database) {}

  /** Makes each table's partition of each day that lacks one (other replicas may be making them too). */
  async ensure(days: Iterable<string>): Promise<void> {
    for (const day of new Set(days)) {
      for (const table of PARTITIONED_TABLES) {
        if (this.known.has(`${table}|${day}`)) continue;
        await this.make(table, day);
        this.known.add(`${table}|${day}`);
      }
    }
  }

  /** Drops the partitions of the days before `day`; returns their names. */
  async dropBefore(day: string): Promise<string[]> {
    const dropped: string[] = [];
    for (const table of PARTITIONED_TABLES) {
      for (const name of await this.list(table)) {
        const held = dayOfPartition(table, name);
        if (held === undefined || held >= day) continue;
        await guardDatabase(() => this.db.query(`DROP TABLE IF EXISTS ${partitionName(table, held)}`));
        this.known.delete(`${table}|${held}`);
        dropped.push(name);
      }
    }
    return dropped;
  }

  /** The partitions of `table` that exist now. */
  async list(table: Table): Promise<string[]> {
    const result = await guardDatabase(() =>
      this.db.query<{ name: string }>({
        name: "partitions-of",
        text: `SELECT child.relname AS name FROM pg_inherits
               JOIN pg_class child ON child.oid = pg_inherits.inhrelid
               JOIN pg_class parent ON parent.oid = pg_inherits.inhparent
               WHERE parent.relname = $1 AND parent.relnamespace = to_regnamespace(current_schema())`,
        values: [table],
      }),
    );
    return result.rows.map((row) => row.name).sort();
  }

  private async make(table: Table, day: string): Promise<void> {
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
    const sql =
      `CREATE TABLE IF NOT EXISTS ${partitionName(table, day)} PARTITION OF ${table} ` +
      `FOR VALUES FROM ('${day} 00:00:00+00') TO ('${next} 00:00:00+00')`;
    try {
      await guardDatabase(() => this.db.query(sql));
    } catch (error) {
      // Two replicas making the same partition at once: the loser's IF NOT EXISTS can still collide.
      const code = ((error as Error).cause as { code?: string } | undefined)?.code;
      if (code !== "42P07" && code !== "23505") throw error;
    }
  }
}

/** The day (UTC) of a time in ms. */
export const utcDayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
