/**
 * Keeps the webhook endpoints' record (PostgreSQL) and Redis's copy of it in step, from the history
 * writer's passes (WebhookRecordSync). Deliveries change an endpoint's health and log in Redis, which
 * marks the endpoint (in the same script) and then its account due; a pass claims due accounts (a lease,
 * as the history queue's sessions) and, under the account's lock, writes what changed: the health as
 * Redis has it now, the log entries after the last one copied (each once: the copy remembers the last,
 * and a repeated one is not added twice). An endpoint marked again meanwhile stays marked.
 *
 * After Redis lost its data (no "all copied" mark), a pass copies every account's endpoints back into
 * it (and on the first start with DATABASE_URL, the record takes the endpoints Redis held before); the hourly sweep does it for any account whose copy is not whole (one Redis Cluster master lost)
 * and makes due any account whose endpoints were marked but the account not (a replica died between).
 * Each pass first puts back the copies of endpoints whose write failed at its commit (repairPending).
 */
import type { WebhookRecordSync } from "../../domain/customer-webhooks/ports.js";
import { type Database, guardDatabase, transaction } from "../postgres/database.js";
import { webhookEndpointTable as table } from "../postgres/webhook-endpoint-table.js";
import type { RedisWebhookCopy, UnsyncedEndpoint } from "../redis/customer-webhook-copy.js";
import type { RedisWebhookStore } from "../redis/customer-webhook-store.js";
import { entryId, HOOK_LOG_MAX } from "../webhook-log.js";
import type { HistoryWebhookStore } from "./history-webhook-store.js";

export interface WebhookRecordCopierOptions {
  /** How long a pass holds an account it claimed (ms). */
  leaseMs: number;
  /** Accounts claimed at once. */
  batch: number;
  /** When an account whose copy failed is tried again (ms from then). */
  retryMs: number;
  now?: () => number;
}

/** Accounts read from the record at a time while restoring. */
const ACCOUNT_PAGE = 500;

export class WebhookRecordCopier implements WebhookRecordSync {
  private readonly now: () => number;

  private readonly store: HistoryWebhookStore;
  private readonly live: RedisWebhookStore;
  private readonly copy: RedisWebhookCopy;
  private readonly db: Database;

  constructor(
    parts: { store: HistoryWebhookStore; live: RedisWebhookStore; copy: RedisWebhookCopy; db: Database },
    private readonly options: WebhookRecordCopierOptions,
  ) {
    ({ store: this.store, live: this.live, copy: this.copy, db: this.db } = parts);
    this.now = options.now ?? Date.now;
  }

  async copyDue(nowMs: number): Promise<number> {
    const { leaseMs, batch, retryMs } = this.options;
    const accounts = await this.copy.claimDue(nowMs, leaseMs, batch);
    let copied = 0;
    for (const [i, account] of accounts.entries()) {
      try {
        copied += await this.copyAccount(account.accountId);
      } catch (error) {
        // This one and those not tried yet come back when the database may be back; should a release fail
        // too, that account's lease ends and it is due then. The copy's error is what is thrown.
        const retryAt = this.now() + retryMs;
        await Promise.all(accounts.slice(i).map((rest) => this.copy.release(rest, this.now(), retryAt))).catch(() => undefined);
        throw error;
      }
      await this.copy.release(account, this.now());
    }
    return copied;
  }

  async restore(sweep: boolean): Promise<number> {
    await this.store.repairPending();
    if (!sweep && (await this.copy.allCopied())) return 0;
    await this.importHeld(sweep);
    let restored = 0;
    let after = "";
    for (;;) {
      const accounts = await guardDatabase(() => table.accounts(this.db, after, ACCOUNT_PAGE));
      for (const accountId of accounts) {
        if (!(await this.copy.whole(accountId))) {
          await this.store.makeWhole(accountId);
          restored++;
        }
        if (sweep && (await this.copy.unsynced(accountId)).length > 0) await this.copy.markDue(accountId, this.now());
      }
      if (accounts.length < ACCOUNT_PAGE) break;
      after = accounts.at(-1) as string;
    }
    await this.copy.markAllCopied();
    return restored;
  }

  /**
   * Endpoints Redis holds for an account whose copy was never whole: made before DATABASE_URL was set.
   * The record takes them (one it has already keeps its own), and the copy is made whole from it. The
   * sweep also holds each whole copy against the record (an endpoint or secret only one of them has).
   */
  private async importHeld(sweep: boolean): Promise<void> {
    for await (const accounts of this.copy.accounts()) {
      for (const accountId of accounts) {
        if (!(await this.copy.whole(accountId))) await this.store.makeWhole(accountId, await this.live.listEndpoints(accountId));
        else if (sweep) await this.store.reconcileCopy(accountId);
      }
    }
  }

  /** One transaction for the account's marked endpoints; then each is unmarked unless marked again since. */
  private async copyAccount(accountId: string): Promise<number> {
    const endpoints = await this.copy.unsynced(accountId);
    if (endpoints.length === 0) return 0;
    const copied: [UnsyncedEndpoint, string | undefined][] = [];
    await guardDatabase(() =>
      transaction(this.db, async (client) => {
        await table.lockAccount(client, accountId);
        for (const endpoint of endpoints) {
          const { health, entries, oldestKept } = await this.copy.changes(accountId, endpoint.id);
          // Deleted (from the record and the copy) since it was marked: nothing to keep.
          if (health && (await table.writeHealth(client, accountId, endpoint.id, health))) {
            await table.appendLog(client, accountId, endpoint.id, entries, HOOK_LOG_MAX, oldestKept);
          }
          const last = entries.at(-1);
          copied.push([endpoint, last ? entryId(last) : undefined]);
        }
      }),
    );
    for (const [endpoint, lastEntry] of copied) await this.copy.markCopied(accountId, endpoint, lastEntry);
    return endpoints.length;
  }
}
