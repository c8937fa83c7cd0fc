/**
 * Customer webhooks with the PostgreSQL history (WebhookStore): PostgreSQL is the record of the
 * endpoints and their delivery logs, Redis keeps the delivery queue and a copy of each account's
 * endpoints, which the hot paths read (a session's change routes its events by it; the dispatcher signs
 * with its secrets).
 *
 * A create, delete, secret rotation or enable is written to PostgreSQL first, under a lock of the
 * account, and to Redis's copy before that transaction commits: a failure of either answers 503 and
 * changes neither. A commit that fails after Redis's write would leave Redis ahead (an endpoint that
 * does not exist taking events, a secret never shown signing them): the endpoint's copy is then put back
 * as PostgreSQL has it, under the lock, at once or, if that fails too, by the history writer's next pass
 * (repairPending); the hourly sweep compares every account's copy with the record (reconcile). The lock also orders
 * these writes with the history writer's copying (webhook-record-copier.ts). Reads take Redis's copy
 * while it is whole, PostgreSQL's rows otherwise (Redis lost them, until they are copied back); a
 * delivery log merges Redis's recent entries with PostgreSQL's (the entries keep Redis's stream ids).
 */

import type {
  AttemptRecord,
  ClaimedAccount,
  ClaimedDelivery,
  DeliveryContext,
  DeliveryLogPage,
  DeliveryResolution,
  EndpointHealth,
  EndpointSecret,
  OutboundEvent,
  QueueStats,
  WebhookEndpointRecord,
  WebhookStore,
} from "../../domain/customer-webhooks/ports.js";
import { DependencyUnavailableError } from "../../domain/dependency-errors.js";
import { type Database, guardDatabase, transaction } from "../postgres/database.js";
import { type PoolClient, webhookEndpointTable as table } from "../postgres/webhook-endpoint-table.js";
import type { RedisWebhookCopy } from "../redis/customer-webhook-copy.js";
import { type RedisWebhookStore, toDelivery } from "../redis/customer-webhook-store.js";
import { type StepSkipped, skippable, warnStepSkipped } from "../skipped-steps.js";
import { compareEntries, entryId, entryPosition } from "../webhook-log.js";

/** Past any endpoint limit: PostgreSQL counted already. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

export class HistoryWebhookStore implements WebhookStore {
  constructor(
    private readonly live: RedisWebhookStore,
    private readonly copy: RedisWebhookCopy,
    private readonly db: Database,
    private readonly now: () => number = Date.now,
    private readonly stepSkipped: StepSkipped = warnStepSkipped,
  ) {}

  createEndpoint(endpoint: WebhookEndpointRecord, max: number): Promise<boolean> {
    return this.write(
      endpoint.accountId,
      endpoint.id,
      async (client) => {
        if ((await table.count(client, endpoint.accountId)) >= max) return false;
        await table.insert(client, endpoint);
        return true;
      },
      async (created) => created && (await this.live.createEndpoint(endpoint, NO_LIMIT)),
    );
  }

  async listEndpoints(accountId: string): Promise<WebhookEndpointRecord[]> {
    if (await this.copy.whole(accountId)) return this.live.listEndpoints(accountId);
    return guardDatabase(() => table.endpoints(this.db, accountId));
  }

  async getEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpointRecord | undefined> {
    if (await this.copy.whole(accountId)) return this.live.getEndpoint(accountId, endpointId);
    return guardDatabase(() => table.endpoint(this.db, accountId, endpointId));
  }

  deleteEndpoint(accountId: string, endpointId: string): Promise<boolean> {
    return this.write(
      accountId,
      endpointId,
      (client) => table.delete(client, accountId, endpointId),
      // Redis's copy goes whatever the record said (a copy ahead of it is wrong either way).
      () => this.live.deleteEndpoint(accountId, endpointId),
    );
  }

  replaceSecrets(accountId: string, endpointId: string, expected: EndpointSecret[], secrets: EndpointSecret[]): Promise<boolean> {
    return this.write(
      accountId,
      endpointId,
      (client) => table.replaceSecrets(client, accountId, endpointId, expected, secrets),
      async (replaced) => {
        if (!replaced) return;
        // Under the account's lock no other write changes them: the copy's secrets, whatever they are, go.
        const held = await this.live.getEndpoint(accountId, endpointId);
        if (held) await this.live.replaceSecrets(accountId, endpointId, held.secrets, secrets);
      },
    );
  }

  enableEndpoint(accountId: string, endpointId: string): Promise<boolean> {
    return this.write(
      accountId,
      endpointId,
      (client) => table.enable(client, accountId, endpointId),
      async (enabled) => enabled && (await this.live.enableEndpoint(accountId, endpointId)),
    );
  }

  partitionOf(subjectId: string): number {
    return this.live.partitionOf(subjectId);
  }

  /** The endpoint must be in Redis's copy (a delivery reads it there): made whole first, if Redis lost it. */
  async enqueueFor(accountId: string, endpointId: string, event: OutboundEvent): Promise<boolean> {
    if (!(await this.copy.whole(accountId))) await this.makeWhole(accountId);
    return this.live.enqueueFor(accountId, endpointId, event);
  }

  /**
   * Makes Redis's copy of the account's endpoints whole from the record, unless it is, under the
   * account's lock; the record first takes `held` (endpoints Redis kept from before it had a record;
   * one it has already keeps its own).
   */
  makeWhole(accountId: string, held: readonly WebhookEndpointRecord[] = []): Promise<void> {
    return this.write(
      accountId,
      undefined,
      async (client) => {
        for (const endpoint of held) await table.insert(client, endpoint);
      },
      async () => undefined,
    );
  }

  claimDueAccounts(nowMs: number, leaseMs: number, max: number, near?: readonly number[]): Promise<ClaimedAccount[]> {
    return this.live.claimDueAccounts(nowMs, leaseMs, max, near);
  }

  claimDeliveries(
    account: ClaimedAccount,
    nowMs: number,
    leaseMs: number,
    limits: { max: number; perEndpoint: number; busy: ReadonlyMap<string, number> },
  ): Promise<ClaimedDelivery[]> {
    return this.live.claimDeliveries(account, nowMs, leaseMs, limits);
  }

  loadDelivery(delivery: ClaimedDelivery): Promise<DeliveryContext> {
    return this.live.loadDelivery(delivery);
  }

  /** Redis logs the attempt and marks the endpoint for copying (one script); then the account is due. */
  async finishDelivery(
    delivery: ClaimedDelivery,
    resolution: DeliveryResolution,
    attempt: AttemptRecord | null,
    health: EndpointHealth,
    nowMs: number,
  ): Promise<boolean> {
    const finished = await this.live.finishDelivery(delivery, resolution, attempt, health, nowMs);
    if (finished && (attempt !== null || health !== "unchanged")) await this.copy.markDue(delivery.accountId, this.now());
    return finished;
  }

  /** Redis's entries and PostgreSQL's, newest first, each once; Redis's alone while PostgreSQL is down. */
  async listDeliveries(accountId: string, endpointId: string, limit: number, after: string | undefined): Promise<DeliveryLogPage> {
    const recent = await this.live.listDeliveries(accountId, endpointId, limit + 1, after);
    let kept: DeliveryLogPage["items"] = [];
    try {
      const before = after === undefined ? undefined : entryPosition(after);
      const rows = await guardDatabase(() => table.log(this.db, accountId, endpointId, limit + 1, before));
      kept = rows.map((row) => toDelivery(entryId(row), JSON.stringify(row.attempt)));
    } catch (error) {
      if (!(error instanceof DependencyUnavailableError)) throw error;
    }
    // Each once (by its stream id), newest first.
    const byEntry = new Map([...recent.items, ...kept].map((item) => [item.id.slice("att_".length), item]));
    const merged = [...byEntry.keys()].sort((a, b) => compareEntries(entryPosition(b), entryPosition(a)));
    const page = merged.slice(0, limit);
    return {
      items: page.map((id) => byEntry.get(id) as (typeof kept)[number]),
      next: merged.length > limit ? (page.at(-1) ?? null) : null,
    };
  }

  reconcile(nowMs: number): Promise<QueueStats> {
    return this.live.reconcile(nowMs);
  }

  /** Puts the endpoint's copy back as the record has it, under the account's lock. */
  repairEndpoint(accountId: string, endpointId: string): Promise<void> {
    return guardDatabase(() =>
      transaction(this.db, async (client) => {
        await table.lockAccount(client, accountId);
        await this.copy.restoreEndpoint(accountId, endpointId, await table.endpoint(client, accountId, endpointId));
      }),
    );
  }

  /** Puts back the copies a failed write could not put back at once; how many. */
  async repairPending(): Promise<number> {
    let repaired = 0;
    for (let batch = await this.copy.repairs(100); batch.length > 0; batch = await this.copy.repairs(100)) {
      for (const { accountId, endpointId } of batch) {
        await this.repairEndpoint(accountId, endpointId);
        await this.copy.repaired(accountId, endpointId);
        repaired++;
      }
    }
    return repaired;
  }

  /**
   * Compares a whole copy of the account's endpoints with the record and puts back each that differs (one
   * of them only, or their secrets: what only the API's writes change; the health deliveries change is
   * newer in the copy until copied), under the lock, where a difference is not a write in flight.
   * Returns how many it put back.
   */
  async reconcileCopy(accountId: string): Promise<number> {
    if (!(await this.copy.whole(accountId))) return 0;
    const differing = async (client: Pick<PoolClient, "query">) =>
      differences(await table.endpoints(client, accountId), await this.live.listEndpoints(accountId));
    if ((await guardDatabase(() => differing(this.db))).length === 0) return 0;
    return guardDatabase(() =>
      transaction(this.db, async (client) => {
        await table.lockAccount(client, accountId);
        const ids = await differing(client);
        for (const id of ids) await this.copy.restoreEndpoint(accountId, id, await table.endpoint(client, accountId, id));
        return ids.length;
      }),
    );
  }

  /**
   * A write of the account's endpoints (of `endpointId`, when it changes one): the record's part, then
   * (Redis's copy made whole first, from the record as this transaction sees it) the copy's part, then
   * the commit. Once the copy may have been touched, a failure puts the endpoint's copy back.
   */
  private async write<T>(
    accountId: string,
    endpointId: string | undefined,
    inRecord: (client: PoolClient) => Promise<T>,
    inCopy: (result: T) => Promise<unknown>,
  ): Promise<T> {
    let touched = false;
    try {
      return await guardDatabase(() =>
        transaction(this.db, async (client) => {
          await table.lockAccount(client, accountId);
          const result = await inRecord(client);
          touched = true;
          if (!(await this.copy.whole(accountId))) await this.copy.copyAccount(accountId, await table.endpoints(client, accountId));
          await inCopy(result);
          return result;
        }),
      );
    } catch (error) {
      if (touched && endpointId !== undefined) {
        // Unmarked, the copy of this endpoint may stay behind its record until the account's next write.
        await this.repairEndpoint(accountId, endpointId).catch(() =>
          skippable(this.copy.markRepair(accountId, endpointId), "webhook_copy_repair_mark", this.stepSkipped),
        );
      }
      throw error;
    }
  }
}

/** The ids of endpoints the record and the copy hold differently (absent from one, or other secrets). */
function differences(record: readonly WebhookEndpointRecord[], held: readonly WebhookEndpointRecord[]): string[] {
  const key = (e: WebhookEndpointRecord) => JSON.stringify(e.secrets.map((s) => s.secret));
  const inRecord = new Map(record.map((e) => [e.id, key(e)]));
  const inCopy = new Map(held.map((e) => [e.id, key(e)]));
  return [...new Set([...inRecord.keys(), ...inCopy.keys()])].filter((id) => inRecord.get(id) !== inCopy.get(id));
}
