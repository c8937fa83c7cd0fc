/**
 * Writes ended sessions to the history database (docs/storage.md): every replica runs one; it claims
 * what the live store's queue holds due (with a lease, so one replica writes each and a replica that dies
 * mid-write only delays it until the lease ends), writes a batch in one statement, then takes the batch
 * off the queue. A session written but not taken off (a crash in between, a change meanwhile) is written
 * again: the write replaces its row, so nothing is written twice. The accounts' usage counters move with
 * their sessions (moveUsage). While the database is down, passes fail
 * and the queue grows; it drains once the database is back. A session whose values the database refuses
 * (a batch failing with a data exception) is found by writing the batch's sessions one by one, set aside
 * and reported, as is one whose record the live store could not read, and the rest are written: one bad
 * record never stops the others. The hourly pass queues the set-aside sessions again (a fix of the cause
 * then heals them). Each pass also copies what deliveries
 * changed of the webhook endpoints to their record (WebhookRecordSync). Once an hour one replica drops
 * what is past the retention and sweeps the endpoints' copy.
 */
import type { WebhookRecordSync } from "../domain/customer-webhooks/ports.js";
import { ValueRefusedError } from "../domain/dependency-errors.js";
import type {
  HistoryClaim,
  HistoryEntry,
  HistoryQueue,
  SessionHistory,
  UsageHistory,
  UsageMoves,
} from "../domain/sessions/history-ports.js";
import type { Leases } from "../domain/sessions/ports.js";
import { RepeatingPass } from "./repeating-pass.js";

/** How soon a batch whose write failed is tried again: a second, doubling while it keeps failing. */
const RETRY_MS = 1000;
const MAX_RETRY_MS = 5000;

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
  /** Sessions the database refused to take, set aside, each with why. */
  onRefused?: (refused: readonly RefusedSession[]) => void;
  /** Set-aside sessions the hourly pass queued again. */
  onRequeued?: (sessions: number) => void;
  onError?: (error: unknown) => void;
  now?: () => number;
}

/** What the writer moves between: the live store's queue and usage, the history's sessions and usage. */
export interface HistoryParts {
  queue: HistoryQueue;
  sessions: SessionHistory;
  usageMoves: UsageMoves;
  /** The webhook endpoints' record and Redis's copy of it, kept in step. */
  webhooks?: WebhookRecordSync | undefined;
  usage: UsageHistory;
  /** Participant memories kept in the history database: the retention pass deletes the expired ones. */
  memories?: { dropExpiredMemories(nowMs: number): Promise<number> } | undefined;
  leases: Leases;
}

/** A session the history database refused, and why. */
export interface RefusedSession {
  sessionId: string;
  /** Empty when its record could not be read. */
  accountId: string;
  error: Error;
}

/** The most days back an account's counters are moved with a session (its creation day to today). */
const MAX_USAGE_DAYS_MOVED = 8;
const DAY_MS = 86_400_000;

export class HistoryWriter {
  private readonly repeating: RepeatingPass;
  private readonly queue: HistoryQueue;
  private readonly history: SessionHistory;
  private nextRetentionMs = 0;
  /** While writes fail (the database is down), the next try waits: no pass reads the queue meanwhile. */
  private retryAtMs = 0;
  private retryMs = RETRY_MS;

  constructor(
    private readonly parts: HistoryParts,
    private readonly options: HistoryWriterOptions,
  ) {
    this.queue = parts.queue;
    this.history = parts.sessions;
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
    await this.copyWebhooks();
    await this.retention();
    return written;
  }

  /** Redis's copy of the endpoints restored if Redis lost it, then the changes due copied to the record. */
  private async copyWebhooks(): Promise<void> {
    const { webhooks } = this.parts;
    const { now = Date.now } = this.options;
    // While the sessions' writes fail, the database is down for these too (and the other way round).
    if (!webhooks || now() < this.retryAtMs) return;
    try {
      await webhooks.restore(false);
      await webhooks.copyDue(now());
      this.retryMs = RETRY_MS;
    } catch (error) {
      this.backOff(now());
      throw error;
    }
  }

  /** The next try waits a second, then twice as long each failure, up to five. */
  private backOff(nowMs: number): void {
    this.retryAtMs = nowMs + this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  /**
   * Writes batches until none is due. A batch whose write fails goes back to the queue due when the
   * next try is (not when its lease ends), and until then no pass reads the queue: while the database is
   * down, each try costs one batch, however long the queue has grown.
   */
  async drain(): Promise<number> {
    const { leaseMs, batch, keepMs, onWritten, onRefused, now = Date.now } = this.options;
    if (now() < this.retryAtMs) return 0;
    let written = 0;
    for (;;) {
      const claims = await this.queue.claimDue(now(), leaseMs, batch);
      if (claims.length === 0) return written;
      let refused: RefusedClaim[];
      let done: HistoryClaim[];
      try {
        refused = await this.write(claims);
        done = claims.filter((claim) => !refused.some((r) => r.claim === claim));
        await this.moveUsage(entriesOf(done), now());
      } catch (error) {
        this.backOff(now());
        // Not released, the claims are due again when their lease ends; the write's error is what counts
        // (databaseError via the caller), and backOff already holds the next try.
        await this.queue.release(claims, this.retryAtMs).catch(() => undefined);
        throw error;
      }
      this.retryMs = RETRY_MS;
      if (refused.length > 0) {
        await this.queue.setAside(
          refused.map(({ claim }) => claim),
          now(),
        );
        onRefused?.(refused.map(({ claim, error }) => ({ sessionId: claim.sessionId, accountId: accountOf(claim), error })));
      }
      await this.queue.complete(done, keepMs);
      const count = entriesOf(done).length;
      written += count;
      onWritten?.(count);
    }
  }

  /**
   * Writes the claims' sessions in one statement; when the database refuses a value in it, each alone,
   * to learn which it refuses. Returns those (any other failure is thrown: the batch goes back).
   */
  private async write(claims: readonly HistoryClaim[]): Promise<RefusedClaim[]> {
    const unreadable = claims.flatMap((claim) => (claim.unreadable ? [{ claim, error: claim.unreadable }] : []));
    try {
      await this.history.writeSessions(entriesOf(claims));
      return unreadable;
    } catch (error) {
      if (!(error instanceof ValueRefusedError)) throw error;
    }
    const refused: RefusedClaim[] = unreadable;
    for (const claim of claims) {
      if (!claim.entry) continue;
      try {
        await this.history.writeSessions([claim.entry]);
      } catch (error) {
        if (!(error instanceof ValueRefusedError)) throw error;
        refused.push({ claim, error });
      }
    }
    return refused;
  }

  /**
   * Moves the usage counters of the accounts just written, of every day from each session's creation to
   * today: whatever Redis counted then (other sessions' too) goes to the history, so Redis keeps counting
   * only what came since. A move that fails stays pending in Redis (reads count it) and is applied later.
   */
  private async moveUsage(entries: readonly HistoryEntry[], nowMs: number): Promise<void> {
    const days = new Map<string, Set<string>>();
    for (const { record } of entries) {
      const account = days.get(record.account_id) ?? new Set<string>();
      const from = Math.max(Date.parse(record.created_at), nowMs - (MAX_USAGE_DAYS_MOVED - 1) * DAY_MS);
      for (let at = Date.parse(new Date(from).toISOString().slice(0, 10)); at <= nowMs; at += DAY_MS) {
        account.add(new Date(at).toISOString().slice(0, 10));
      }
      days.set(record.account_id, account);
    }
    const { usageMoves, usage } = this.parts;
    const moves = await Promise.all([...days].map(([account, those]) => usageMoves.beginMoves(account, [...those])));
    await usage.applyUsageMoves(moves.flat());
    await Promise.all(
      [...days.keys()].map((account, i) =>
        usageMoves.endMoves(
          account,
          (moves[i] ?? []).map((move) => move.id),
        ),
      ),
    );
  }

  private async retention(): Promise<void> {
    const { holder, retentionIntervalMs = 3_600_000, onDropped, now = Date.now } = this.options;
    const at = now();
    if (at < this.nextRetentionMs) return;
    this.nextRetentionMs = at + retentionIntervalMs;
    if (!(await this.parts.leases.acquireLease("history-retention", holder, retentionIntervalMs))) return;
    const requeued = await this.queue.requeueSetAside(at);
    if (requeued > 0) this.options.onRequeued?.(requeued);
    const dropped = await this.history.dropExpired(at);
    await this.parts.usage.dropExpiredUsage(at);
    await this.parts.memories?.dropExpiredMemories(at);
    await this.parts.webhooks?.restore(true);
    if (dropped.length > 0) onDropped?.(dropped);
  }
}

type RefusedClaim = { claim: HistoryClaim; error: Error };

function entriesOf(claims: readonly HistoryClaim[]): HistoryEntry[] {
  return claims.flatMap((claim) => (claim.entry ? [claim.entry] : []));
}

function accountOf(claim: HistoryClaim): string {
  return claim.entry?.record.account_id ?? "";
}
