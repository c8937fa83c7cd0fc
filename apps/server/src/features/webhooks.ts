/**
 * Customer webhooks as a feature: the endpoints' service and their operations, the dispatcher that
 * delivers each event (every replica runs one), and the senders of webhooks and webhook tools, which share
 * the address policy that keeps them off the operator's own network.
 */
import type { Logger } from "pino";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Config } from "../config.js";
import { AddressPolicy, type Resolver } from "../customer-webhooks/address-policy.js";
import { UndiciToolCallSender } from "../customer-webhooks/tool-call-sender.js";
import { UndiciWebhookSender } from "../customer-webhooks/webhook-sender.js";
import { WebhookEndpointService } from "../domain/customer-webhooks/endpoint-service.js";
import type { WebhookMetrics, WebhookSender, WebhookStore } from "../domain/customer-webhooks/ports.js";
import { RetrySchedule } from "../domain/customer-webhooks/retry-schedule.js";
import type { Cursors } from "../http/cursor.js";
import { webhookEndpointOperations } from "../http/routes/webhook-endpoints.js";
import type { Tracing } from "../tracing/tracing.js";
import { CustomerWebhookDispatcher } from "../workers/customer-webhook-dispatcher.js";
import type { Feature } from "./feature.js";

export interface WebhookOptions {
  store: WebhookStore;
  cursors: Cursors;
  logger: Logger;
  /** The process's metrics registry, where the feature's own are counted. */
  registry: Registry;
  /** Resolves webhook hosts (tests give names their own addresses, without DNS). */
  resolver?: Resolver | undefined;
  /** Instead of undici's (tests and the bench). */
  sender?: WebhookSender | undefined;
  /** The dispatcher's clock, by which deliveries fall due and endpoints fail. */
  now?: (() => number) | undefined;
  tracing?: Tracing | undefined;
}

export function webhooksOf(config: Config, options: WebhookOptions) {
  const { webhooks } = config;
  const { store, logger, tracing } = options;
  const policy = new AddressPolicy({
    allowHttp: !config.production,
    allowPrivate: webhooks.allowPrivateUrls,
    ...(options.resolver ? { resolve: options.resolver } : {}),
  });
  const undici = options.sender ? undefined : new UndiciWebhookSender(policy, webhooks.attemptTimeoutMs);
  const toolCalls = new UndiciToolCallSender(policy);
  const schedule = new RetrySchedule(webhooks.retryDelaysS);
  // Kept a day past the last possible attempt.
  const eventRetainMs = schedule.horizonMs(webhooks.attemptTimeoutMs) + 86_400_000;
  const dispatcher = new CustomerWebhookDispatcher(store, options.sender ?? (undici as UndiciWebhookSender), {
    intervalMs: config.sweepIntervalMs,
    reconcileIntervalMs: config.sweepIntervalMs * 30,
    concurrency: webhooks.concurrency,
    attemptTimeoutMs: webhooks.attemptTimeoutMs,
    disableAfterMs: webhooks.disableAfterMs,
    schedule,
    metrics: webhookMetricsOf(options.registry),
    ...(options.now ? { now: options.now } : {}),
    onAttempt: (a) =>
      logger.info(
        {
          endpoint_id: a.endpointId,
          event_id: a.eventId,
          event_type: a.eventType,
          attempt: a.attempt,
          status: a.statusCode,
          error: a.error,
          duration_ms: a.durationMs,
          next_attempt_at: a.nextAttemptAt,
        },
        "webhook attempt",
      ),
    onError: (err, what) => logger.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, `${what} failed`),
    ...(tracing ? { tracing } : {}),
  });
  /** Events were queued for a session or an endpoint: its partition's deliveries start now, not at the next sweep. */
  const nudge = (id: string) => dispatcher.nudge(store.partitionOf(id));
  const endpoints = new WebhookEndpointService({
    store,
    urls: policy,
    settings: { eventRetainMs },
    ...(tracing ? { tracing } : {}),
    onQueued: nudge,
  });
  return {
    dispatcher,
    endpoints,
    toolCalls,
    eventRetainMs,
    nudge,
    feature: {
      name: "webhooks",
      operations: webhookEndpointOperations(endpoints, options.cursors),
      background: [dispatcher],
      close: async () => {
        await Promise.all([undici?.close(), toolCalls.close()]);
      },
    } satisfies Feature,
  };
}

/** The deliveries' attempts and outcomes, and the queue as of this replica's last reconciliation. */
function webhookMetricsOf(registry: Registry): WebhookMetrics {
  const attempts = new Histogram({
    name: "dhs_customer_webhook_attempt_duration_seconds",
    help: "Attempts to deliver a customer webhook event, by event type and outcome (succeeded, failed), and how long they took.",
    labelNames: ["event_type", "outcome"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: "dhs_customer_webhook_deliveries_total",
    help: "Customer webhook deliveries that ended, by event type and outcome (delivered, given_up, dropped, disabled).",
    labelNames: ["event_type", "outcome"] as const,
    registers: [registry],
  });
  const depth = new Gauge({
    name: "dhs_customer_webhook_queue_depth",
    help: "Customer webhook deliveries pending (due or waiting for a retry), as of this replica's last reconciliation.",
    registers: [registry],
  });
  const oldest = new Gauge({
    name: "dhs_customer_webhook_oldest_pending_seconds",
    help: "Age of the oldest customer webhook event still pending (0 when none), as of this replica's last reconciliation.",
    registers: [registry],
  });
  return {
    attempt: (eventType, outcome, seconds) => attempts.observe({ event_type: eventType, outcome }, seconds),
    delivery: (eventType, outcome) => deliveries.inc({ event_type: eventType, outcome }),
    queue: (stats, nowMs) => {
      depth.set(stats.pending);
      oldest.set(stats.oldestCreatedAtMs === null ? 0 : Math.max(0, (nowMs - stats.oldestCreatedAtMs) / 1000));
    },
  };
}
