/**
 * Redis's side of the webhook endpoints when PostgreSQL is their record: whether an account's copy is
 * whole (and copying it in when not), the accounts and endpoints whose log or health changed since
 * PostgreSQL has them (the dispatcher marks them; the history writer copies them), and what changed.
 */
import type { Cluster, Redis } from "ioredis";
import type { WebhookEndpointRecord } from "../../domain/customer-webhooks/ports.js";
import { type EndpointHealthState, type EntryPosition, entryPosition, HOOK_LOG_MAX, type LoggedAttempt } from "../webhook-log.js";
import type { EndpointCopy } from "./customer-webhook-copy-scripts.js";
import { decodeEndpoint, endpointFields } from "./customer-webhook-endpoint-hash.js";
import { guard } from "./guard.js";
import { type Keyspace, keyspace, routeOf } from "./keys.js";
import { RedisScripts } from "./scripts.js";

/** An endpoint to copy, with how many changes it had when read. */
export interface UnsyncedEndpoint {
  id: string;
  changes: number;
}

/** What changed of an endpoint since PostgreSQL last took it: its health now, and its log's new entries. */
export interface EndpointChanges {
  /** Undefined when Redis no longer holds the endpoint. */
  health: EndpointHealthState | undefined;
  entries: LoggedAttempt[];
  /** When Redis's log is full: its oldest entry, before which the record keeps nothing either. */
  oldestKept: EntryPosition | undefined;
}

export class RedisWebhookCopy {
  private readonly keys: Keyspace;
  private readonly scripts: RedisScripts;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
  ) {
    this.keys = keyspace(prefix);
    this.scripts = new RedisScripts(redis);
  }

  /** Whether Redis holds every endpoint of the account (it does not after losing its data). */
  async whole(accountId: string): Promise<boolean> {
    return guard(async () => (await this.redis.exists(this.keys.hookCopied(accountId))) === 1);
  }

  /** Copies the account's endpoints in (as PostgreSQL has them), unless its copy is whole. */
  copyAccount(accountId: string, endpoints: readonly WebhookEndpointRecord[]): Promise<boolean> {
    const k = this.keys;
    const copies = endpoints.map(endpointCopy);
    return guard(async () => {
      // First, so that the reconciliation knows the account (as createEndpoint does).
      await this.redis.sadd(k.hookAccounts, accountId);
      const copied = await this.scripts.run("copyEndpoints", {
        copied: k.hookCopied(accountId),
        ids: k.hookEndpoints(accountId),
        routes: k.hookRoutes(accountId),
        endpoints: endpoints.map((e) => k.hookEndpoint(accountId, e.id)),
        copies,
      });
      return copied === 1;
    });
  }

  /** Puts the endpoint back as the record has it (`record` undefined: the record has none, nor may the copy). */
  restoreEndpoint(accountId: string, endpointId: string, record: WebhookEndpointRecord | undefined): Promise<void> {
    const k = this.keys;
    return guard(async () => {
      await this.scripts.run("restoreEndpoint", {
        ids: k.hookEndpoints(accountId),
        routes: k.hookRoutes(accountId),
        endpoint: k.hookEndpoint(accountId, endpointId),
        log: k.hookLog(accountId, endpointId),
        id: endpointId,
        copy: record && endpointCopy(record),
      });
    });
  }

  /** Remembers an endpoint whose copy must be put back (restoreEndpoint) by a later pass. */
  async markRepair(accountId: string, endpointId: string): Promise<void> {
    await guard(() => this.redis.sadd(this.keys.hookRepairs, `${accountId} ${endpointId}`));
  }

  /** The endpoints whose copy must be put back, at most `max`. */
  async repairs(max: number): Promise<{ accountId: string; endpointId: string }[]> {
    const members = await guard(() => this.redis.srandmember(this.keys.hookRepairs, max));
    return members.map((member) => {
      const [accountId = "", endpointId = ""] = member.split(" ");
      return { accountId, endpointId };
    });
  }

  async repaired(accountId: string, endpointId: string): Promise<void> {
    await guard(() => this.redis.srem(this.keys.hookRepairs, `${accountId} ${endpointId}`));
  }

  /** Every account that has had endpoints in Redis, a page at a time. */
  async *accounts(): AsyncGenerator<string[]> {
    let cursor = "0";
    do {
      const [next, accounts] = await guard(() => this.redis.sscan(this.keys.hookAccounts, cursor, "COUNT", 200));
      cursor = next;
      if (accounts.length > 0) yield accounts;
    } while (cursor !== "0");
  }

  /** Whether every account's copy was made since Redis last lost its data. */
  async allCopied(): Promise<boolean> {
    return guard(async () => (await this.redis.exists(this.keys.hookAllCopied)) === 1);
  }

  async markAllCopied(): Promise<void> {
    await guard(() => this.redis.set(this.keys.hookAllCopied, "1"));
  }

  /** The account has endpoints to copy, due now (or sooner than it was). */
  async markDue(accountId: string, nowMs: number): Promise<void> {
    await guard(() => this.redis.zadd(this.keys.hookSyncDue, "LT", nowMs, accountId));
  }

  /** Claims up to `max` accounts due by nowMs until nowMs + leaseMs; each is due again at its lease's end. */
  claimDue(nowMs: number, leaseMs: number, max: number): Promise<{ accountId: string; claimedUntil: number }[]> {
    const leaseUntilMs = nowMs + leaseMs;
    return guard(async () => {
      const accounts = await this.scripts.run("claimDue", { set: this.keys.hookSyncDue, nowMs, leaseUntilMs, max });
      return accounts.map((accountId) => ({ accountId, claimedUntil: leaseUntilMs }));
    });
  }

  /**
   * Hands a claimed account back: due at `retryAtMs`, or forgotten (unless marked meanwhile); then, if
   * an endpoint of it was marked after it was read, due again now.
   */
  release(account: { accountId: string; claimedUntil: number }, nowMs: number, retryAtMs?: number): Promise<void> {
    const { accountId, claimedUntil } = account;
    return guard(async () => {
      const next = retryAtMs === undefined ? "" : String(retryAtMs);
      await this.scripts.run("releaseAccount", { accounts: this.keys.hookSyncDue, account: accountId, claimedUntil, next });
      if (retryAtMs === undefined && (await this.redis.zcard(this.keys.hookUnsynced(accountId))) > 0) await this.markDue(accountId, nowMs);
    });
  }

  async unsynced(accountId: string): Promise<UnsyncedEndpoint[]> {
    const flat = await guard(() => this.redis.zrange(this.keys.hookUnsynced(accountId), "0", "-1", "WITHSCORES"));
    const endpoints: UnsyncedEndpoint[] = [];
    for (let i = 0; i < flat.length; i += 2) endpoints.push({ id: flat[i] as string, changes: Number(flat[i + 1]) });
    return endpoints;
  }

  /** The endpoint's health now and its log's entries after the last one PostgreSQL took. */
  changes(accountId: string, endpointId: string): Promise<EndpointChanges> {
    const k = this.keys;
    return guard(async () => {
      const hash = await this.redis.hgetall(k.hookEndpoint(accountId, endpointId));
      if (Object.keys(hash).length === 0) return { health: undefined, entries: [], oldestKept: undefined };
      const { status, disabledReason, failingSinceMs } = decodeEndpoint(accountId, endpointId, hash);
      const log = k.hookLog(accountId, endpointId);
      const from = hash.log_synced === undefined ? "-" : `(${hash.log_synced}`;
      const [stream, length, oldest] = await Promise.all([
        this.redis.xrange(log, from, "+"),
        this.redis.xlen(log),
        this.redis.xrange(log, "-", "+", "COUNT", 1),
      ]);
      const entries = stream.map(([id, fields]) => ({ ...entryPosition(id), attempt: JSON.parse(fields[1] as string) }));
      const first = oldest[0]?.[0];
      const oldestKept = length >= HOOK_LOG_MAX && first !== undefined ? entryPosition(first) : undefined;
      return { health: { status, disabledReason, failingSinceMs }, entries, oldestKept };
    });
  }

  /** PostgreSQL has the endpoint's changes as read (its log up to `lastEntry`). */
  markCopied(accountId: string, endpoint: UnsyncedEndpoint, lastEntry: string | undefined): Promise<void> {
    const k = this.keys;
    return guard(async () => {
      await this.scripts.run("markCopied", {
        unsynced: k.hookUnsynced(accountId),
        endpoint: k.hookEndpoint(accountId, endpoint.id),
        id: endpoint.id,
        changes: endpoint.changes,
        lastEntry: lastEntry ?? "",
      });
    });
  }
}

function endpointCopy(e: WebhookEndpointRecord): EndpointCopy {
  return {
    id: e.id,
    created: String(e.createdAtMs),
    types: routeOf(e.eventTypes),
    enabled: e.status === "enabled",
    fields: endpointFields(e),
  };
}
