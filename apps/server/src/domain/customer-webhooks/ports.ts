/**
 * What customer webhooks need from the outside (contract guide, "Webhooks"): a store for endpoints and
 * the delivery queue (Redis or memory), a sender that posts a signed event to an endpoint, and a policy
 * that says which URLs may be registered. Adapters live in store/ and customer-webhooks/.
 */
import type { WebhookDelivery, WebhookEventSelector, WebhookEventType } from "@dhs/contract";

/**
 * An event to deliver, recorded in the same atomic step as the change that causes it. `body` is the
 * payload exactly as it will be posted (and signed), so every attempt sends the same bytes.
 */
export interface OutboundEvent {
  id: string;
  type: WebhookEventType;
  createdAtMs: number;
  body: string;
  /** How long the event is kept while deliveries of it are pending (the retry schedule, with margin). */
  retainMs: number;
  /** The trace of the change that caused it (tracing on): each delivery attempt's span links to it. */
  traceparent?: string;
}

export interface EndpointSecret {
  secret: string;
  /** When a rotated-out secret stops signing; null for the current one. */
  expiresAtMs: number | null;
}

export type DisabledReason = "gone" | "failing";

export interface WebhookEndpointRecord {
  id: string;
  accountId: string;
  url: string;
  eventTypes: WebhookEventSelector[];
  description: string | null;
  status: "enabled" | "disabled";
  disabledReason: DisabledReason | null;
  createdAtMs: number;
  /** The current secret first. */
  secrets: EndpointSecret[];
  /** Since when every attempt has failed (null after a success). */
  failingSinceMs: number | null;
}

/** A delivery (one event to one endpoint) this replica holds until `claimedUntil` (ms). */
export interface ClaimedDelivery {
  accountId: string;
  /** The store's part of the account's queue that holds it (a shard of sessions; one part in memory). */
  partition: number;
  endpointId: string;
  eventId: string;
  claimedUntil: number;
}

/** What an attempt needs: the endpoint as it is now, the event's body, and the attempts made so far. */
export interface DeliveryContext {
  endpoint: WebhookEndpointRecord | undefined;
  body: string | undefined;
  attemptsMade: number;
  /** The event's traceparent, when it was recorded with one. */
  traceparent?: string | undefined;
}

/** An attempt as the deliveries log keeps it (its id is given by the log). */
export type AttemptRecord = Omit<WebhookDelivery, "id">;

/** What becomes of a delivery after an attempt (or instead of one). */
export type DeliveryResolution =
  /** Done: delivered, given up after the last attempt, or dropped (endpoint deleted or disabled). */
  | { kind: "done" }
  /** Try again at `atMs`. */
  | { kind: "retry"; atMs: number };

/** What an attempt says about the endpoint's health. */
export type EndpointHealth = "succeeded" | "failed" | { disable: DisabledReason } | "unchanged";

/** An account's queue in one partition, claimed so that one replica looks at it at a time. */
export interface ClaimedAccount {
  accountId: string;
  partition: number;
  claimedUntil: number;
}

export interface QueueStats {
  /** Deliveries waiting (due or scheduled for a retry). */
  pending: number;
  /** Creation time (ms) of the oldest event still pending, or null. */
  oldestCreatedAtMs: number | null;
}

export interface DeliveryLogPage {
  items: WebhookDelivery[];
  /** The id of the last item when there are more. */
  next: string | null;
}

export interface WebhookStore {
  /** Stores a new endpoint unless the account has `max` already (false then). */
  createEndpoint(endpoint: WebhookEndpointRecord, max: number): Promise<boolean>;
  listEndpoints(accountId: string): Promise<WebhookEndpointRecord[]>;
  getEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpointRecord | undefined>;
  /** Deletes the endpoint and its log; its pending deliveries are dropped when they come due. */
  deleteEndpoint(accountId: string, endpointId: string): Promise<boolean>;
  /** Replaces the secrets if they are still `expected` (compare-and-set); false otherwise. */
  replaceSecrets(accountId: string, endpointId: string, expected: EndpointSecret[], secrets: EndpointSecret[]): Promise<boolean>;
  /** Enables the endpoint (clears its disabled reason and failure streak); false when it does not exist. */
  enableEndpoint(accountId: string, endpointId: string): Promise<boolean>;
  /**
   * Where the deliveries caused by a session's change (or an endpoint's test event) are queued: the
   * partition of that session's (or endpoint's) id.
   */
  partitionOf(subjectId: string): number;
  /** Queues an event for one endpoint only (webhook.test); false when the endpoint does not exist. */
  enqueueFor(accountId: string, endpointId: string, event: OutboundEvent): Promise<boolean>;

  /**
   * Claims, for leaseMs, up to `max` accounts' queues that have deliveries due by nowMs; with `near`, the
   * store may look only in those partitions (they just had events queued), which costs less.
   */
  claimDueAccounts(nowMs: number, leaseMs: number, max: number, near?: readonly number[]): Promise<ClaimedAccount[]>;
  /**
   * Claims, for leaseMs, up to `max` of the account's deliveries in the partition due by nowMs, at most `perEndpoint` to
   * any endpoint counting the attempts this replica has in flight to it (`busy`: endpoint id -> count),
   * and hands the account back: due again at its next pending delivery (a claimed one at its lease's
   * end), or forgotten when it has none.
   */
  claimDeliveries(
    account: ClaimedAccount,
    nowMs: number,
    leaseMs: number,
    limits: { max: number; perEndpoint: number; busy: ReadonlyMap<string, number> },
  ): Promise<ClaimedDelivery[]>;
  loadDelivery(delivery: ClaimedDelivery): Promise<DeliveryContext>;
  /**
   * If this replica still holds the delivery: resolves it, then logs the attempt (if any) and records the
   * endpoint's health. False when the lease was lost (nothing is written). The log and the health live
   * with the endpoint, apart from the queue: a crash between the two loses the attempt's log entry only.
   */
  finishDelivery(
    delivery: ClaimedDelivery,
    resolution: DeliveryResolution,
    attempt: AttemptRecord | null,
    health: EndpointHealth,
    nowMs: number,
  ): Promise<boolean>;
  /** The account's delivery log for one endpoint, newest first, after the attempt `after` (an id). */
  listDeliveries(accountId: string, endpointId: string, limit: number, after: string | undefined): Promise<DeliveryLogPage>;
  /**
   * Makes sure every account's queue with pending deliveries is due at its next one (one whose claimer
   * died), and reports the queue's size.
   */
  reconcile(nowMs: number): Promise<QueueStats>;
}

/**
 * With the PostgreSQL history, where the endpoints' record and their logs are kept: what the history
 * writer does each pass to keep it and Redis's copy in step.
 */
export interface WebhookRecordSync {
  /** Copies to the record what changed in Redis (the logs, the endpoints' health) for the accounts due; how many endpoints. */
  copyDue(nowMs: number): Promise<number>;
  /**
   * Copies the endpoints of every account whose copy Redis lost back into it (at once when Redis lost
   * everything; with `sweep`, every account is looked at, and one with changes not copied is made due).
   * Returns how many accounts it copied.
   */
  restore(sweep: boolean): Promise<number>;
}

/** The answer of one attempt to post an event. */
export type SendResult =
  | { kind: "answered"; status: number; retryAfterMs: number | null; durationMs: number }
  | { kind: "failed"; error: NonNullable<WebhookDelivery["error"]>; durationMs: number };

export interface WebhookSender {
  /** `traceparent` (tracing on): the attempt's span, sent along so the endpoint's own trace can continue it. */
  send(request: { url: string; eventId: string; body: string; secrets: string[]; traceparent?: string | undefined }): Promise<SendResult>;
}

/** Says whether a URL may be an endpoint: the reason it may not, or null. */
export interface UrlPolicy {
  refusal(url: string): Promise<string | null>;
}

/** What the webhooks report for metrics. */
export interface WebhookMetrics {
  attempt(eventType: string, outcome: "succeeded" | "failed", seconds: number): void;
  delivery(eventType: string, outcome: "delivered" | "given_up" | "dropped" | "disabled"): void;
  queue(stats: QueueStats, nowMs: number): void;
}
