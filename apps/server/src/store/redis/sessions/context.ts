/**
 * What the parts of the Redis session store share: the connection, the keyspace, the scripts registered
 * on it and the options the store was made with, and the reads and key lists more than one part makes.
 */
import type { Cluster, Redis } from "ioredis";
import type { OutboundEvent } from "../../../domain/customer-webhooks/ports.js";
import type { SessionHistory, UsageHistory } from "../../../domain/sessions/history-ports.js";
import type { SessionRecord } from "../../../domain/sessions/session.js";
import type { Tracing } from "../../../tracing/tracing.js";
import { decodeSession } from "../../session-format.js";
import { type StepSkipped, warnStepSkipped } from "../../skipped-steps.js";
import type { EventKeys } from "../customer-webhook-scripts.js";
import { type Keyspace, keyspace, shardOf } from "../keys.js";
import { RedisScripts } from "../scripts.js";

/** The steps of a create and of an end across slots, named for tests that stop the store between them. */
export type StoreStep = "create:claimed" | "create:completing" | "create:stored" | "end:replaced";

export interface RedisSessionStoreOptions {
  prefix?: string;
  /**
   * How long after its lock expired a create's claim is taken for dead (ms): more than replicas' clocks
   * may differ, since the create itself gives up at its lock's expiry by its own clock.
   */
  claimGraceMs?: number;
  /** The least time between two repairs of one account by this replica (ms). */
  repairIntervalMs?: number;
  /** Called after each step of a create or an end; a test's crash is thrown from it. */
  afterStep?: (step: StoreStep) => void | Promise<void>;
  /** Spans of its scripts, by name. */
  tracing?: Tracing;
  /**
   * The history database, when there is one: ended sessions are queued to be written there, and read from
   * there once Redis no longer holds them.
   */
  history?: { sessions: SessionHistory; usage: UsageHistory };
  /** Where a step left to the repair is reported when it fails (skipped-steps.ts); stderr if not given. */
  onStepSkipped?: StepSkipped;
}

export interface SessionStoreContext {
  redis: Redis | Cluster;
  keys: Keyspace;
  scripts: RedisScripts;
  claimGraceMs: number;
  repairIntervalMs: number;
  afterStep: (step: StoreStep) => void | Promise<void>;
  /** Ended sessions are queued for the history database (RedisSessionStoreOptions.history). */
  keepsHistory: boolean;
  stepSkipped: StepSkipped;
}

/** The context of a store on `redis` (a bare string is its key prefix). */
export function sessionStoreContext(redis: Redis | Cluster, options: RedisSessionStoreOptions | string = {}): SessionStoreContext {
  const {
    prefix = "dhs",
    claimGraceMs = 30_000,
    repairIntervalMs = 10_000,
    afterStep = () => {},
    tracing,
    history,
    onStepSkipped = warnStepSkipped,
  } = typeof options === "string" ? { prefix: options } : options;
  const scripts = new RedisScripts(redis, tracing);
  return {
    redis,
    keys: keyspace(prefix),
    scripts,
    claimGraceMs,
    repairIntervalMs,
    afterStep,
    keepsHistory: history !== undefined,
    stepSkipped: onStepSkipped,
  };
}

/** The JSON of each session (null when there is none), read by shard: one MGET per slot. */
export async function readSessions(context: SessionStoreContext, sessionIds: readonly string[]): Promise<(string | null)[]> {
  const byShard = new Map<number, number[]>();
  sessionIds.forEach((id, i) => {
    const shard = shardOf(id);
    const list = byShard.get(shard);
    if (list) list.push(i);
    else byShard.set(shard, [i]);
  });
  const found: (string | null)[] = new Array(sessionIds.length).fill(null);
  await Promise.all(
    [...byShard.values()].map(async (indexes) => {
      const jsons = await context.redis.mget(indexes.map((i) => context.keys.session(sessionIds[i] as string)));
      indexes.forEach((i, j) => {
        found[i] = jsons[j] ?? null;
      });
    }),
  );
  return found;
}

/** The stored session if it is the account's (another account's is not found). */
export function ownSession(json: string, accountId: string, sessionId: string): SessionRecord | undefined {
  const record = decodeSession(json, sessionId);
  return record.account_id === accountId ? record : undefined;
}

/** The keys and arguments with which a script that stores or changes a session records its events. */
export function eventKeys(
  keys: Keyspace,
  accountId: string,
  sessionId: string,
  routes: Readonly<Record<string, string>>,
  events: readonly OutboundEvent[],
): EventKeys {
  const shard = shardOf(sessionId);
  return {
    dueDeliveries: keys.hookDue(accountId, shard),
    pendingDeliveries: keys.hookPending(accountId, shard),
    accountsDue: keys.hookAccountsDue(shard),
    eventKeys: events.map((event) => keys.hookEvent(accountId, shard, event.id)),
    accountId,
    routes,
    events,
  };
}
