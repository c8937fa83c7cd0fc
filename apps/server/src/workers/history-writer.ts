/**
 * Writes ended sessions to the history database (README, "Storage"): every replica runs one; it claims
 * what the live store's queue holds due (with a lease, so one replica writes each and a replica that dies
 * mid-write only delays it until the lease ends), writes a batch in one statement, then takes the batch
 * off the queue. A session written but not taken off (a crash in between, a change meanwhile) is written
 * again: the write replaces its row, so nothing is written twice. While the database is down, passes fail
 * and the queue grows; it drains once the database is back. Once an hour one replica drops what is past
 * the retention.
 */
import type { HistoryQueue, SessionHistory } from "../domain/sessions/history-ports.js";
import type { Leases } from "../domain/sessions/ports.js";
import { RepeatingPass } from "./repeating-pass.js";

/** How soon a batch whose write failed is tried again. */
const RETRY_MS = 1000;

export interface HistoryWriterOptions {
  intervalMs: number;
  /** How long claimed sessions belong to this replica before another may take them. */
  leaseMs: number;
  /** Sessions per claim and per statement. */
  batch: number;
  /** How long the live store keeps a written session (ms). */
  keepMs: number;
  /** Who holds the retention's lease. */
  holder: string;
  retentionIntervalMs?: number;
  onWritten?: (sessions: number) => void;
  onDropped?: (partitions: readonly string[]) => void;
  onError?: (error: unknown) => void;
  now?: () => number;
}

export class HistoryWriter {
  private readonly repeating: RepeatingPass;
  private nextRetentionMs = 0;

  constructor(
    private readonly queue: HistoryQueue,
    private readonly history: SessionHistory,
    private readonly leases: Leases,
    private readonly options: HistoryWriterOptions,
  ) {
    this.repeating = new RepeatingPass(() => this.pass(), options.intervalMs, options.onError);
  }

  start(): void {
    this.repeating.start();
  }

  stop(): Promise<void> {
    return this.repeating.stop();
  }

  /** One pass: writes every session due now, then the retention if its hour came. Returns how many it wrote. */
  async pass(): Promise<number> {
    const written = await this.drain();
    await this.retention();
    return written;
  }

  /** Writes batches until fewer than a batch were due. */
  async drain(): Promise<number> {
    const { leaseMs, batch, keepMs, onWritten, now = Date.now } = this.options;
    let written = 0;
    for (;;) {
      const claims = await this.queue.claimDue(now(), leaseMs, batch);
      if (claims.length === 0) return written;
      const entries = claims.flatMap((claim) => (claim.entry ? [claim.entry] : []));
      try {
        await this.history.writeSessions(entries);
      } catch (error) {
        // Due again in a second rather than when the lease ends: the database may be back by then.
        await this.queue.release(claims, now() + RETRY_MS).catch(() => undefined);
        throw error;
      }
      await this.queue.complete(claims, keepMs);
      written += entries.length;
      onWritten?.(entries.length);
      // Each shard gives up to a batch: fewer than a batch in all means none is left due.
      if (claims.length < batch) return written;
    }
  }

  private async retention(): Promise<void> {
    const { holder, retentionIntervalMs = 3_600_000, onDropped, now = Date.now } = this.options;
    const at = now();
    if (at < this.nextRetentionMs) return;
    this.nextRetentionMs = at + retentionIntervalMs;
    if (!(await this.leases.acquireLease("history-retention", holder, retentionIntervalMs))) return;
    const dropped = await this.history.dropExpired(at);
    if (dropped.length > 0) onDropped?.(dropped);
  }
}
