/**
 * Customer webhooks on Redis (or Redis Cluster): endpoints and delivery logs in each account's slot; an
 * account's deliveries in the shard of the session that caused them (its queue has a part in each shard,
 * the "partition" of the port), with the shard's accounts due beside them. Every step that must not
 * interleave is one script (customer-webhook-scripts.ts). Errors are sorted as every Redis store sorts
 * them (guard.ts).
 */
import type { WebhookDelivery } from "@dhs/contract";
import type { Cluster, Redis } from "ioredis";
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
import type { Tracing } from "../../tracing/tracing.js";
import { deliveryMember, HOOK_LOG_MAX, parseDeliveryMember } from "../webhook-log.js";
import { decodeEndpoint, endpointFields } from "./customer-webhook-endpoint-hash.js";
import { guard } from "./guard.js";
import { type Keyspace, keyspace, routeOf, SHARDS, shardOf } from "./keys.js";
import { RedisScripts } from "./scripts.js";

export class RedisWebhookStore implements WebhookStore {
  private readonly keys: Keyspace;
  private readonly scripts: RedisScripts;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix = "dhs",
    tracing?: Tracing,
    /** With the PostgreSQL history: each change of an endpoint's log or health is marked for copying there. */
    private readonly copied = false,
  ) {
    this.keys = keyspace(prefix);
    this.scripts = new RedisScripts(redis, tracing);
  }

  createEndpoint(endpoint: WebhookEndpointRecord, max: number): Promise<boolean> {
    const k = this.keys;
    const { accountId, id } = endpoint;
    return guard(async () => {
      // First, so that the reconciliation knows every account that may ever have deliveries.
      await this.redis.sadd(k.hookAccounts, accountId);
      const fields = endpointFields(endpoint);
      const stored = await this.scripts.run("createEndpoint", {
        ids: k.hookEndpoints(accountId),
        endpoint: k.hookEndpoint(accountId, id),
        routes: k.hookRoutes(accountId),
        id,
        createdMs: endpoint.createdAtMs,
        max,
        fields,
        types: routeOf(endpoint.eventTypes),
      });
      return stored === 1;
    });
  }

  listEndpoints(accountId: string): Promise<WebhookEndpointRecord[]> {
    return guard(async () => {
      const ids = await this.redis.zrange(this.keys.hookEndpoints(accountId), "0", "-1");
      const hashes = await Promise.all(ids.map((id) => this.redis.hgetall(this.keys.hookEndpoint(accountId, id))));
      return ids.flatMap((id, i) => {
        const hash = hashes[i];
        return hash && Object.keys(hash).length > 0 ? [decodeEndpoint(accountId, id, hash)] : [];
      });
    });
  }

  getEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpointRecord | undefined> {
    return guard(async () => {
      const hash = await this.redis.hgetall(this.keys.hookEndpoint(accountId, endpointId));
      return Object.keys(hash).length === 0 ? undefined : decodeEndpoint(accountId, endpointId, hash);
    });
  }

  deleteEndpoint(accountId: string, endpointId: string): Promise<boolean> {
    const k = this.keys;
    return guard(async () => {
      const deleted = await this.scripts.run("deleteEndpoint", {
        ids: k.hookEndpoints(accountId),
        endpoint: k.hookEndpoint(accountId, endpointId),
        routes: k.hookRoutes(accountId),
        log: k.hookLog(accountId, endpointId),
        id: endpointId,
      });
      return deleted === 1;
    });
  }

  replaceSecrets(accountId: string, endpointId: string, expected: EndpointSecret[], secrets: EndpointSecret[]): Promise<boolean> {
    return guard(async () => {
      const replaced = await this.scripts.run("replaceSecrets", {
        endpoint: this.keys.hookEndpoint(accountId, endpointId),
        expected: JSON.stringify(expected),
        secrets: JSON.stringify(secrets),
      });
      return replaced === 1;
    });
  }

  enableEndpoint(accountId: string, endpointId: string): Promise<boolean> {
    return guard(async () => {
      const enabled = await this.scripts.run("enableEndpoint", {
        endpoint: this.keys.hookEndpoint(accountId, endpointId),
        routes: this.keys.hookRoutes(accountId),
        id: endpointId,
      });
      return enabled === 1;
    });
  }

  partitionOf(subjectId: string): number {
    return shardOf(subjectId);
  }

  /** A test event is queued in its endpoint's shard (a deletion meanwhile drops it when it comes due). */
  enqueueFor(accountId: string, endpointId: string, event: OutboundEvent): Promise<boolean> {
    const k = this.keys;
    const shard = shardOf(endpointId);
    return guard(async () => {
      if ((await this.redis.exists(k.hookEndpoint(accountId, endpointId))) === 0) return false;
      await this.scripts.run("enqueueFor", {
        due: k.hookDue(accountId, shard),
        pending: k.hookPending(accountId, shard),
        accountsDue: k.hookAccountsDue(shard),
        event: k.hookEvent(accountId, shard, event.id),
        member: deliveryMember(endpointId, event.id),
        account: accountId,
        event_: event,
      });
      return true;
    });
  }

  claimDueAccounts(nowMs: number, leaseMs: number, max: number, near?: readonly number[]): Promise<ClaimedAccount[]> {
    return guard(async () => {
      const leaseUntilMs = nowMs + leaseMs;
      // The shards named, or every shard at once (one round trip, spread over the masters).
      const shards = near ? [...new Set(near)] : Array.from({ length: SHARDS }, (_, shard) => shard);
      const perShard = Math.ceil(max / shards.length);
      const claimed = await Promise.all(
        shards.map(async (partition) => {
          const accounts = await this.scripts.run("claimDue", {
            set: this.keys.hookAccountsDue(partition),
            nowMs,
            leaseUntilMs,
            max: perShard,
          });
          return accounts.map((accountId) => ({ accountId, partition, claimedUntil: leaseUntilMs }));
        }),
      );
      return claimed.flat();
    });
  }

  claimDeliveries(
    account: ClaimedAccount,
    nowMs: number,
    leaseMs: number,
    limits: { max: number; perEndpoint: number; busy: ReadonlyMap<string, number> },
  ): Promise<ClaimedDelivery[]> {
    const { accountId, partition } = account;
    return guard(async () => {
      const leaseUntilMs = nowMs + leaseMs;
      const [next = "", ...members] = await this.scripts.run("claimDeliveries", {
        due: this.keys.hookDue(accountId, partition),
        nowMs,
        leaseUntilMs,
        max: limits.max,
        perEndpoint: limits.perEndpoint,
        busy: [...limits.busy].flat(),
      });
      await this.scripts.run("releaseAccount", {
        accounts: this.keys.hookAccountsDue(partition),
        account: accountId,
        claimedUntil: account.claimedUntil,
        next,
      });
      return members.map((member) => ({ accountId, partition, ...parseDeliveryMember(member), claimedUntil: leaseUntilMs }));
    });
  }

  loadDelivery(delivery: ClaimedDelivery): Promise<DeliveryContext> {
    const { accountId, partition, endpointId, eventId } = delivery;
    const k = this.keys;
    return guard(async () => {
      const [hash, [body, attempts, traceparent]] = await Promise.all([
        this.redis.hgetall(k.hookEndpoint(accountId, endpointId)),
        this.scripts.run("loadQueued", {
          event: k.hookEvent(accountId, partition, eventId),
          attempts: k.hookAttempts(accountId, partition),
          member: deliveryMember(endpointId, eventId),
        }),
      ]);
      return {
        endpoint: Object.keys(hash).length === 0 ? undefined : decodeEndpoint(accountId, endpointId, hash),
        body: body ?? undefined,
        attemptsMade: attempts === null ? 0 : Number(attempts),
        traceparent: traceparent ?? undefined,
      };
    });
  }

  finishDelivery(
    delivery: ClaimedDelivery,
    resolution: DeliveryResolution,
    attempt: AttemptRecord | null,
    health: EndpointHealth,
    nowMs: number,
  ): Promise<boolean> {
    const { accountId, partition, endpointId, eventId } = delivery;
    const k = this.keys;
    return guard(async () => {
      const resolved = await this.scripts.run("resolveDelivery", {
        due: k.hookDue(accountId, partition),
        pending: k.hookPending(accountId, partition),
        attempts: k.hookAttempts(accountId, partition),
        event: k.hookEvent(accountId, partition, eventId),
        accountsDue: k.hookAccountsDue(partition),
        member: deliveryMember(endpointId, eventId),
        lease: delivery.claimedUntil,
        resolution: resolution.kind,
        retryAtMs: resolution.kind === "retry" ? resolution.atMs : 0,
        attemptsMade: attempt?.attempt ?? 0,
        account: accountId,
      });
      if (resolved !== 1) return false;
      if (attempt !== null || health !== "unchanged") {
        await this.scripts.run("recordAttempt", {
          log: k.hookLog(accountId, endpointId),
          endpoint: k.hookEndpoint(accountId, endpointId),
          routes: k.hookRoutes(accountId),
          unsynced: k.hookUnsynced(accountId),
          entry: attempt === null ? "" : JSON.stringify(attempt),
          logMax: HOOK_LOG_MAX,
          health: typeof health === "string" ? health : health.disable,
          nowMs,
          endpointId,
          copied: this.copied,
        });
      }
      return true;
    });
  }

  listDeliveries(accountId: string, endpointId: string, limit: number, after: string | undefined): Promise<DeliveryLogPage> {
    return guard(async () => {
      const entries = await this.redis.xrevrange(
        this.keys.hookLog(accountId, endpointId),
        after === undefined ? "+" : `(${after}`,
        "-",
        "COUNT",
        limit + 1,
      );
      const page = entries.slice(0, limit);
      return {
        items: page.map(([id, fields]) => toDelivery(id, fields[1] as string)),
        next: entries.length > limit ? (page.at(-1)?.[0] ?? null) : null,
      };
    });
  }

  reconcile(_nowMs: number): Promise<QueueStats> {
    const k = this.keys;
    return guard(async () => {
      let pending = 0;
      let oldest: number | null = null;
      let cursor = "0";
      do {
        const [nextCursor, accounts] = await this.redis.sscan(k.hookAccounts, cursor, "COUNT", 200);
        cursor = nextCursor;
        for (const accountId of accounts) {
          // The account's queue in every shard at once.
          await Promise.all(
            Array.from({ length: SHARDS }, async (_, shard) => {
              const [next, size, first] = await this.scripts.run("queueState", {
                due: k.hookDue(accountId, shard),
                pending: k.hookPending(accountId, shard),
              });
              pending += Number(size);
              if (first !== "") oldest = Math.min(oldest ?? Number.POSITIVE_INFINITY, Number(first));
              // A claimed delivery's lease end counts as its due time, so one whose holder died comes back.
              if (next !== "") await this.redis.zadd(k.hookAccountsDue(shard), "LT", Number(next), accountId);
            }),
          );
        }
      } while (cursor !== "0");
      return { pending, oldestCreatedAtMs: oldest };
    });
  }
}

/** A log entry as the contract shows it: the stream entry's id is the attempt's. */
export function toDelivery(id: string, entry: string): WebhookDelivery {
  return { id: `att_${id}`, ...(JSON.parse(entry) as AttemptRecord) };
}
