/**
 * Delivers customer webhook events (contract guide, "Webhooks"). Every replica runs one. The store hands
 * out accounts with deliveries due, then each due delivery to one replica at a time (claimed with a
 * lease, so a replica that dies only delays its deliveries until the lease ends). Each attempt is
 * signed and posted by the sender; its outcome, the next attempt's time and the endpoint's health are
 * written back in one atomic step of the store.
 *
 * Bounded: at most `concurrency` attempts in flight per replica, and at most a quarter of them to any one
 * endpoint, so a slow or dead endpoint cannot hold up anybody else's deliveries.
 */

import type {
  AttemptRecord,
  ClaimedDelivery,
  DeliveryResolution,
  EndpointHealth,
  SendResult,
  WebhookMetrics,
  WebhookSender,
  WebhookStore,
} from "../domain/customer-webhooks/ports.js";
import type { RetrySchedule } from "../domain/customer-webhooks/retry-schedule.js";
import { type ActiveSpan, NO_TRACING, type Tracing } from "../tracing/tracing.js";

export interface DispatcherOptions {
  /** How often each replica looks for due deliveries (it also looks at once when told an event was queued). */
  intervalMs: number;
  /** How often the queue is reconciled and measured. */
  reconcileIntervalMs: number;
  concurrency: number;
  attemptTimeoutMs: number;
  /** An endpoint whose every attempt failed for this long is disabled. */
  disableAfterMs: number;
  schedule: RetrySchedule;
  now?: () => number;
  metrics?: WebhookMetrics;
  onAttempt?: (attempt: AttemptLog) => void;
  onError?: (error: unknown, what: string) => void;
  /** A span per attempt, in a trace of its own linked to the change that caused the event. */
  tracing?: Tracing;
}

/** One line of the log per attempt: never the secret or the payload. */
export interface AttemptLog {
  accountId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  nextAttemptAt: string | null;
}

const ACCOUNT_LEASE_MS = 10_000;
// A replica that stays full frees a place with every attempt that ends; it looks beyond the accounts it
// is busy with at most this often (a look everywhere asks every shard of the store).
const EVERYWHERE_GAP_MS = 100;
const ACCOUNTS_PER_CLAIM = 20;
// An attempt holds its delivery for its timeout and this much more (the store's round trips around it).
const DELIVERY_LEASE_MARGIN_MS = 30_000;

export class CustomerWebhookDispatcher {
  private readonly now: () => number;
  private readonly inFlight = new Set<Promise<void>>();
  /** In-flight attempts per `account|endpoint`. */
  private readonly perEndpoint = new Map<string, number>();
  private readonly perEndpointMax: number;
  private sweepTimer: NodeJS.Timeout | undefined;
  private reconcileTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private again = false;
  /** What the next sweep looks at: everywhere, or only in these partitions of the queue. */
  private everywhere = false;
  private readonly near = new Set<number>();
  private lookedEverywhereAt = Number.NEGATIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly store: WebhookStore,
    private readonly sender: WebhookSender,
    private readonly options: DispatcherOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.perEndpointMax = Math.max(1, Math.floor(options.concurrency / 4));
  }

  start(): void {
    this.stopped = false;
    this.sweepTimer = setInterval(() => this.nudge(), this.options.intervalMs);
    this.sweepTimer.unref();
    this.reconcileTimer = setInterval(() => void this.reconcile(), this.options.reconcileIntervalMs);
    this.reconcileTimer.unref();
    // At once: deliveries whose hint a crash lost are found without waiting a whole interval.
    void this.reconcile();
  }

  /**
   * Looks for due deliveries now: in one partition of the queue (an event was queued there, or an
   * attempt from it finished), or everywhere (the interval's sweep, a place freed while the replica was full).
   */
  nudge(partition?: number): void {
    if (this.stopped) return;
    if (partition === undefined) this.everywhere = true;
    else this.near.add(partition);
    this.startSweep();
  }

  /** Sweeps where the nudges since the last sweep asked; once more after it if nudged meanwhile. */
  private startSweep(): void {
    if (this.sweeping) {
      this.again = true;
      return;
    }
    // A sweep is woken by a request's change but serves everyone's deliveries: no trace of that request.
    const tracing = this.options.tracing ?? NO_TRACING;
    this.sweeping = tracing
      .outside(() => this.sweep())
      .catch((error: unknown) => this.options.onError?.(error, "webhook sweep"))
      .finally(() => {
        this.sweeping = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          this.startSweep();
        }
      });
  }

  /** Stops looking for deliveries and waits for the attempts in flight (each bounded by its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    clearInterval(this.reconcileTimer);
    await this.sweeping;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Resolves once nothing is in flight (tests). */
  async idle(): Promise<void> {
    while (this.sweeping || this.inFlight.size > 0) await Promise.allSettled([this.sweeping, ...this.inFlight]);
  }

  async reconcile(): Promise<void> {
    try {
      const stats = await this.store.reconcile(this.now());
      this.options.metrics?.queue(stats, this.now());
      this.nudge();
    } catch (error) {
      this.options.onError?.(error, "webhook queue reconcile");
    }
  }

  /** One pass: claims and starts every due delivery there is room for. */
  private async sweep(): Promise<void> {
    const { concurrency, attemptTimeoutMs } = this.options;
    const near = this.everywhere ? undefined : [...this.near];
    if (this.everywhere) this.lookedEverywhereAt = this.now();
    this.everywhere = false;
    this.near.clear();
    while (!this.stopped && this.inFlight.size < concurrency) {
      const accounts = await this.store.claimDueAccounts(this.now(), ACCOUNT_LEASE_MS, ACCOUNTS_PER_CLAIM, near);
      let started = 0;
      for (const account of accounts) {
        const prefix = `${account.accountId}|`;
        const busy = new Map(
          [...this.perEndpoint].filter(([key]) => key.startsWith(prefix)).map(([key, count]) => [key.slice(prefix.length), count]),
        );
        const claims = await this.store.claimDeliveries(account, this.now(), attemptTimeoutMs + DELIVERY_LEASE_MARGIN_MS, {
          max: Math.max(0, concurrency - this.inFlight.size),
          perEndpoint: this.perEndpointMax,
          busy,
        });
        for (const claim of claims) this.launch(claim);
        started += claims.length;
      }
      if (accounts.length < ACCOUNTS_PER_CLAIM || started === 0) return;
    }
  }

  private launch(claim: ClaimedDelivery): void {
    const key = `${claim.accountId}|${claim.endpointId}`;
    const full = () => this.inFlight.size >= this.options.concurrency;
    this.perEndpoint.set(key, (this.perEndpoint.get(key) ?? 0) + 1);
    const running: Promise<void> = this.deliver(claim)
      .catch((error: unknown) => this.options.onError?.(error, "webhook delivery"))
      .finally(() => {
        const wasFull = full();
        this.inFlight.delete(running);
        const left = (this.perEndpoint.get(key) ?? 1) - 1;
        if (left === 0) this.perEndpoint.delete(key);
        else this.perEndpoint.set(key, left);
        // The account's next deliveries may be due now; a replica that was full may take anyone's.
        const anyone = wasFull && this.now() - this.lookedEverywhereAt >= EVERYWHERE_GAP_MS;
        this.nudge(anyone ? undefined : claim.partition);
      });
    this.inFlight.add(running);
  }

  private deliver(claim: ClaimedDelivery): Promise<void> {
    const tracing = this.options.tracing ?? NO_TRACING;
    return tracing.span(
      "webhook.attempt",
      { "dhs.account.id": claim.accountId, "dhs.webhook.endpoint_id": claim.endpointId, "dhs.webhook.event_id": claim.eventId },
      (span) => this.attempt(claim, span, tracing),
      { root: true, kind: "client" },
    );
  }

  private async attempt(claim: ClaimedDelivery, span: ActiveSpan, tracing: Tracing): Promise<void> {
    const { store, sender, options } = this;
    const { metrics } = options;
    const context = await store.loadDelivery(claim);
    const { endpoint, body } = context;
    const eventType = body === undefined ? "unknown" : (JSON.parse(body) as { type: string }).type;
    span.link(context.traceparent);
    span.setAttributes({ "dhs.webhook.event_type": eventType });
    // Deleted, or disabled (a test event still goes, so a fixed receiver can be checked before enabling it).
    if (!endpoint || body === undefined || (endpoint.status === "disabled" && eventType !== "webhook.test")) {
      await store.finishDelivery(claim, { kind: "done" }, null, "unchanged", this.now());
      metrics?.delivery(eventType, "dropped");
      span.setAttributes({ "dhs.webhook.outcome": "dropped" });
      return;
    }

    const attempt = context.attemptsMade + 1;
    const startedAt = this.now();
    const secrets = endpoint.secrets.filter((s) => s.expiresAtMs === null || s.expiresAtMs > startedAt).map((s) => s.secret);
    const result = await sender.send({ url: endpoint.url, eventId: claim.eventId, body, secrets, traceparent: tracing.traceparent() });
    const now = this.now();
    const succeeded = result.kind === "answered" && result.status >= 200 && result.status < 300;
    const enabled = endpoint.status === "enabled";

    let resolution: DeliveryResolution = { kind: "done" };
    let health: EndpointHealth;
    let outcome: "delivered" | "given_up" | "disabled" | undefined;
    if (succeeded) {
      health = "succeeded";
      outcome = "delivered";
    } else if (result.kind === "answered" && result.status === 410) {
      health = enabled ? { disable: "gone" } : "unchanged";
      outcome = "disabled";
    } else if (enabled && now - (endpoint.failingSinceMs ?? now) >= options.disableAfterMs) {
      health = { disable: "failing" };
      outcome = "disabled";
    } else {
      health = "failed";
      const delay = options.schedule.nextDelayMs(attempt, retryAfterOf(result));
      if (delay === null) outcome = "given_up";
      else resolution = { kind: "retry", atMs: now + delay };
    }

    const record: AttemptRecord = {
      event_id: claim.eventId,
      event_type: eventType as AttemptRecord["event_type"],
      attempt,
      attempted_at: new Date(startedAt).toISOString(),
      outcome: succeeded ? "succeeded" : "failed",
      status_code: result.kind === "answered" ? result.status : null,
      error: result.kind === "failed" ? result.error : null,
      duration_ms: Math.round(result.durationMs),
      next_attempt_at: resolution.kind === "retry" ? new Date(resolution.atMs).toISOString() : null,
    };
    span.setAttributes({
      "dhs.webhook.attempt": attempt,
      "dhs.webhook.outcome": outcome ?? "retry",
      "http.response.status_code": record.status_code ?? undefined,
      "error.type": succeeded ? undefined : (record.error ?? String(record.status_code)),
    });
    const held = await store.finishDelivery(claim, resolution, record, health, now);
    metrics?.attempt(eventType, record.outcome, result.durationMs / 1000);
    if (held && outcome !== undefined) metrics?.delivery(eventType, outcome);
    options.onAttempt?.({
      accountId: claim.accountId,
      endpointId: claim.endpointId,
      eventId: claim.eventId,
      eventType,
      attempt,
      statusCode: record.status_code,
      error: record.error,
      durationMs: record.duration_ms,
      nextAttemptAt: record.next_attempt_at,
    });
  }
}

/** A Retry-After counts with 429 and 503 only. */
function retryAfterOf(result: SendResult): number | null {
  return result.kind === "answered" && (result.status === 429 || result.status === 503) ? result.retryAfterMs : null;
}
