/**
 * Customer webhooks in process memory, for the in-memory development store: the Redis store's semantics
 * (the same suites run against both), for one process. The memory session store calls `record` in the
 * same synchronous step as the change of a session, which makes the two atomic here too.
 */
import type { WebhookDelivery } from "@dhs/contract";
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
import { deliveryMember, HOOK_LOG_MAX, parseDeliveryMember } from "../webhook-log.js";
import { claimDue, entry } from "./maps.js";

interface AccountQueue {
  /** delivery -> due time (ms; a claimed one: its lease's end). */
  due: Map<string, number>;
  /** delivery -> its event's creation time (ms). */
  pending: Map<string, number>;
  attempts: Map<string, number>;
  /** event id -> body and deliveries pending. */
  events: Map<string, { body: string; refs: number; expiresAt: number; traceparent: string | undefined }>;
}

export class MemoryWebhookStore implements WebhookStore {
  /** account -> endpoint id -> endpoint (stored as JSON, so callers never share an object). */
  private readonly endpoints = new Map<string, Map<string, string>>();
  private readonly queues = new Map<string, AccountQueue>();
  private readonly logs = new Map<string, { id: string; entry: string }[]>();
  private readonly accountsDue = new Map<string, number>();
  private lastLogMs = 0;
  private logSeq = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Queues events for the account's enabled endpoints that take them; how many deliveries. */
  record(accountId: string, events: readonly OutboundEvent[]): number {
    let recorded = 0;
    for (const event of events) {
      let refs = 0;
      for (const endpoint of this.endpointsOf(accountId).values()) {
        const e = JSON.parse(endpoint) as WebhookEndpointRecord;
        const types: readonly string[] = e.eventTypes;
        if (e.status !== "enabled" || !(types.includes("*") || types.includes(event.type))) continue;
        this.queue(accountId, e.id, event);
        refs++;
      }
      if (refs > 0) this.queueOf(accountId).events.set(event.id, this.stored(event, refs));
      recorded += refs;
    }
    if (recorded > 0) this.hint(accountId, Math.min(...events.map((e) => e.createdAtMs)));
    return recorded;
  }

  /** Whether an enabled endpoint of the account takes any of these event types (by name or `*`). */
  takesAny(accountId: string, types: readonly string[]): boolean {
    for (const json of this.endpointsOf(accountId).values()) {
      const endpoint = JSON.parse(json) as WebhookEndpointRecord;
      const taken: readonly string[] = endpoint.eventTypes;
      if (endpoint.status === "enabled" && (taken.includes("*") || types.some((type) => taken.includes(type)))) return true;
    }
    return false;
  }

  async createEndpoint(endpoint: WebhookEndpointRecord, max: number): Promise<boolean> {
    const endpoints = this.endpointsOf(endpoint.accountId);
    if (endpoints.size >= max) return false;
    endpoints.set(endpoint.id, JSON.stringify(endpoint));
    return true;
  }

  async listEndpoints(accountId: string): Promise<WebhookEndpointRecord[]> {
    return [...this.endpointsOf(accountId).values()].map((json) => JSON.parse(json) as WebhookEndpointRecord);
  }

  async getEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpointRecord | undefined> {
    const json = this.endpointsOf(accountId).get(endpointId);
    return json === undefined ? undefined : (JSON.parse(json) as WebhookEndpointRecord);
  }

  async deleteEndpoint(accountId: string, endpointId: string): Promise<boolean> {
    this.logs.delete(`${accountId}|${endpointId}`);
    return this.endpointsOf(accountId).delete(endpointId);
  }

  async replaceSecrets(accountId: string, endpointId: string, expected: EndpointSecret[], secrets: EndpointSecret[]): Promise<boolean> {
    return this.update(accountId, endpointId, (e) => {
      if (JSON.stringify(e.secrets) !== JSON.stringify(expected)) return false;
      e.secrets = secrets;
      return true;
    });
  }

  async enableEndpoint(accountId: string, endpointId: string): Promise<boolean> {
    return this.update(accountId, endpointId, (e) => {
      Object.assign(e, { status: "enabled", disabledReason: null, failingSinceMs: null });
      return true;
    });
  }

  async enqueueFor(accountId: string, endpointId: string, event: OutboundEvent): Promise<boolean> {
    if (!this.endpointsOf(accountId).has(endpointId)) return false;
    this.queue(accountId, endpointId, event);
    this.queueOf(accountId).events.set(event.id, this.stored(event, 1));
    this.hint(accountId, event.createdAtMs);
    return true;
  }

  /** One process keeps each account's deliveries in one place: one partition, 0. */
  partitionOf(_subjectId: string): number {
    return 0;
  }

  /** `near` narrows nothing here: there is one partition. */
  async claimDueAccounts(nowMs: number, leaseMs: number, max: number, _near?: readonly number[]): Promise<ClaimedAccount[]> {
    return claimDue(this.accountsDue, nowMs, leaseMs, max).map((accountId) => ({ accountId, partition: 0, claimedUntil: nowMs + leaseMs }));
  }

  async claimDeliveries(
    account: ClaimedAccount,
    nowMs: number,
    leaseMs: number,
    limits: { max: number; perEndpoint: number; busy: ReadonlyMap<string, number> },
  ): Promise<ClaimedDelivery[]> {
    const queue = this.queueOf(account.accountId);
    const taken = new Map(limits.busy);
    const claimed: string[] = [];
    for (const [member] of [...queue.due].filter(([, at]) => at <= nowMs).sort(([, a], [, b]) => a - b)) {
      if (claimed.length >= limits.max) break;
      const { endpointId } = parseDeliveryMember(member);
      const count = taken.get(endpointId) ?? 0;
      if (count >= limits.perEndpoint) continue;
      taken.set(endpointId, count + 1);
      claimed.push(member);
    }
    for (const member of claimed) queue.due.set(member, nowMs + leaseMs);
    const next = Math.min(...queue.due.values());
    if (this.accountsDue.get(account.accountId) === account.claimedUntil || !this.accountsDue.has(account.accountId)) {
      if (queue.due.size === 0) this.accountsDue.delete(account.accountId);
      else this.accountsDue.set(account.accountId, next);
    }
    return claimed.map((member) => ({
      accountId: account.accountId,
      partition: 0,
      ...parseDeliveryMember(member),
      claimedUntil: nowMs + leaseMs,
    }));
  }

  async loadDelivery(delivery: ClaimedDelivery): Promise<DeliveryContext> {
    const queue = this.queueOf(delivery.accountId);
    const stored = queue.events.get(delivery.eventId);
    const event = stored && stored.expiresAt > this.now() ? stored : undefined;
    return {
      endpoint: await this.getEndpoint(delivery.accountId, delivery.endpointId),
      body: event?.body,
      attemptsMade: queue.attempts.get(deliveryMember(delivery.endpointId, delivery.eventId)) ?? 0,
      traceparent: event?.traceparent,
    };
  }

  async finishDelivery(
    delivery: ClaimedDelivery,
    resolution: DeliveryResolution,
    attempt: AttemptRecord | null,
    health: EndpointHealth,
    nowMs: number,
  ): Promise<boolean> {
    const { accountId, endpointId, eventId } = delivery;
    const queue = this.queueOf(accountId);
    const member = deliveryMember(endpointId, eventId);
    if (queue.due.get(member) !== delivery.claimedUntil) return false;
    const exists = this.endpointsOf(accountId).has(endpointId);
    if (attempt !== null && exists) this.appendLog(accountId, endpointId, JSON.stringify(attempt), nowMs);
    if (resolution.kind === "retry") {
      queue.due.set(member, resolution.atMs);
      queue.attempts.set(member, attempt?.attempt ?? 0);
      this.hint(accountId, resolution.atMs);
    } else {
      queue.due.delete(member);
      queue.pending.delete(member);
      queue.attempts.delete(member);
      const event = queue.events.get(eventId);
      if (event && --event.refs <= 0) queue.events.delete(eventId);
    }
    if (exists && health !== "unchanged") {
      this.update(accountId, endpointId, (e) => {
        if (health === "succeeded") e.failingSinceMs = null;
        else if (health === "failed") e.failingSinceMs ??= nowMs;
        else Object.assign(e, { status: "disabled", disabledReason: health.disable, failingSinceMs: null });
        return true;
      });
    }
    return true;
  }

  async listDeliveries(accountId: string, endpointId: string, limit: number, after: string | undefined): Promise<DeliveryLogPage> {
    const log = this.logs.get(`${accountId}|${endpointId}`) ?? [];
    const newestFirst = [...log].reverse();
    const start = after === undefined ? 0 : newestFirst.findIndex((entry) => compareIds(entry.id, after) < 0);
    const rest = start < 0 ? [] : newestFirst.slice(start);
    const page = rest.slice(0, limit);
    return {
      items: page.map(({ id, entry }): WebhookDelivery => ({ id: `att_${id}`, ...(JSON.parse(entry) as AttemptRecord) })),
      next: rest.length > limit ? (page.at(-1)?.id ?? null) : null,
    };
  }

  async reconcile(nowMs: number): Promise<QueueStats> {
    let pending = 0;
    let oldest: number | null = null;
    for (const [accountId, queue] of this.queues) {
      for (const [id, event] of queue.events) if (event.expiresAt <= nowMs) queue.events.delete(id);
      pending += queue.pending.size;
      for (const at of queue.pending.values()) oldest = Math.min(oldest ?? at, at);
      if (queue.due.size > 0) this.hint(accountId, Math.min(...queue.due.values()));
    }
    return { pending, oldestCreatedAtMs: oldest };
  }

  private queue(accountId: string, endpointId: string, event: OutboundEvent): void {
    const queue = this.queueOf(accountId);
    const member = deliveryMember(endpointId, event.id);
    queue.due.set(member, event.createdAtMs);
    queue.pending.set(member, event.createdAtMs);
  }

  /** As ZADD LT: due at `atMs` unless due sooner already. */
  private hint(accountId: string, atMs: number): void {
    const current = this.accountsDue.get(accountId);
    if (current === undefined || atMs < current) this.accountsDue.set(accountId, atMs);
  }

  private appendLog(accountId: string, endpointId: string, entry: string, nowMs: number): void {
    // Ids as a Redis stream gives them: time-sequence, increasing.
    if (nowMs > this.lastLogMs) {
      this.lastLogMs = nowMs;
      this.logSeq = 0;
    } else this.logSeq++;
    const key = `${accountId}|${endpointId}`;
    const log = this.logs.get(key) ?? [];
    log.push({ id: `${this.lastLogMs}-${this.logSeq}`, entry });
    if (log.length > HOOK_LOG_MAX) log.splice(0, log.length - HOOK_LOG_MAX);
    this.logs.set(key, log);
  }

  private update(accountId: string, endpointId: string, change: (endpoint: WebhookEndpointRecord) => boolean): boolean {
    const endpoints = this.endpointsOf(accountId);
    const json = endpoints.get(endpointId);
    if (json === undefined) return false;
    const endpoint = JSON.parse(json) as WebhookEndpointRecord;
    if (!change(endpoint)) return false;
    endpoints.set(endpointId, JSON.stringify(endpoint));
    return true;
  }

  private endpointsOf(accountId: string): Map<string, string> {
    return entry(this.endpoints, accountId, () => new Map());
  }

  private stored(event: OutboundEvent, refs: number) {
    return { body: event.body, refs, expiresAt: this.now() + event.retainMs, traceparent: event.traceparent };
  }

  private queueOf(accountId: string): AccountQueue {
    return entry(this.queues, accountId, () => ({ due: new Map(), pending: new Map(), attempts: new Map(), events: new Map() }));
  }
}

/** Orders `ms-seq` ids as Redis orders stream ids. */
function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split("-").map(Number);
  const [bm = 0, bs = 0] = b.split("-").map(Number);
  return am - bm || as - bs;
}
