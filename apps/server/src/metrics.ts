/**
 * Prometheus metrics (prom-client), one registry per process: request counts and latency by route,
 * method and status; sessions created and ended by status and end reason; Redis errors; LiveKit webhook
 * events; connections refused at the cap; customer webhook attempts, deliveries and queue; and Node's own
 * process metrics. Served as text at GET /metrics
 * on a port of its own (http/metrics-server.ts).
 */

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { QueueStats, WebhookMetrics } from "./domain/customer-webhooks/ports.js";
import type { Dependency } from "./domain/dependency-errors.js";
import type { TimerKind } from "./domain/sessions/feature-timers.js";
import type { HistoryBacklog } from "./domain/sessions/history-ports.js";
import type { SessionMetrics } from "./domain/sessions/ports.js";
import type { SkippedStep } from "./store/skipped-steps.js";

export class Metrics implements SessionMetrics, WebhookMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: "dhs_http_requests_total",
    help: "HTTP requests answered, by route, method and status.",
    labelNames: ["route", "method", "status"] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: "dhs_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by route, method and status.",
    labelNames: ["route", "method", "status"] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  private readonly sessionsCreated = new Counter({
    name: "dhs_sessions_created_total",
    help: "Sessions created.",
    registers: [this.registry],
  });
  private readonly sessionsEnded = new Counter({
    name: "dhs_sessions_ended_total",
    help: "Sessions that became terminal, by status and end reason.",
    labelNames: ["status", "end_reason"] as const,
    registers: [this.registry],
  });
  private readonly uncaughtErrors = new Counter({
    name: "dhs_uncaught_errors_total",
    help: "Errors nobody handled, by origin (uncaughtException, unhandledRejection): the process stops in order and exits 1 after each.",
    labelNames: ["origin"] as const,
    registers: [this.registry],
  });
  private readonly redisErrors = new Counter({
    name: "dhs_redis_errors_total",
    help: "Redis connection errors and requests that failed because Redis did not answer.",
    registers: [this.registry],
  });
  private readonly databaseErrors = new Counter({
    name: "dhs_database_errors_total",
    help: "PostgreSQL (history) connection errors and requests or history writes that failed because it did not answer.",
    registers: [this.registry],
  });
  private readonly storeStepsSkipped = new Counter({
    name: "dhs_store_steps_skipped_total",
    help: "Steps a store left to a repair because they failed (a session's place among the open ones, Redis's copy of a digital human or webhook endpoint), by step: a rising rate means Redis or PostgreSQL is failing under the requests that still succeed.",
    labelNames: ["step"] as const,
    registers: [this.registry],
  });
  private readonly timersFailed = new Counter({
    name: "dhs_timer_failures_total",
    help: "Due session timers whose effects failed, by timer: each is tried again once its 30 s lease runs out, so a steady rate means a dependency (LiveKit, PostgreSQL) is failing them.",
    labelNames: ["timer"] as const,
    registers: [this.registry],
  });
  private readonly historyWritten = new Counter({
    name: "dhs_history_sessions_written_total",
    help: "Ended sessions written to the history database (a session changed after its end is written again).",
    registers: [this.registry],
  });
  private readonly historyRefused = new Counter({
    name: "dhs_history_sessions_refused_total",
    help: "Ended sessions the history database refused to take (or whose record could not be read), set aside: alert on any.",
    registers: [this.registry],
  });
  private readonly webhookEvents = new Counter({
    name: "dhs_webhook_events_total",
    help: "LiveKit webhook deliveries, by event and outcome (applied, ignored, rejected).",
    labelNames: ["event", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly agentRedispatches = new Counter({
    name: "dhs_agent_redispatches_total",
    help: "Digital humans dispatched again because LiveKit had no live job for a session that lacked one.",
    registers: [this.registry],
  });
  private readonly roomsReconciled = new Counter({
    name: "dhs_rooms_reconciled_total",
    help: "Rooms of this service the reconciler deleted because their session was terminal or missing, by reason.",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });
  private readonly dependencyFaults = new Counter({
    name: "dhs_dependency_faults_total",
    help: "Requests failed 500 because a dependency answered wrongly (LiveKit refusing our credentials or request, Redis refusing a command or holding an unreadable record), by dependency.",
    labelNames: ["dependency"] as const,
    registers: [this.registry],
  });
  private readonly connectionsDropped = new Counter({
    name: "dhs_connections_dropped_total",
    help: "Connections closed at accept because MAX_CONNECTIONS were open.",
    registers: [this.registry],
  });

  private readonly hookAttempts = new Histogram({
    name: "dhs_customer_webhook_attempt_duration_seconds",
    help: "Attempts to deliver a customer webhook event, by event type and outcome (succeeded, failed), and how long they took.",
    labelNames: ["event_type", "outcome"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly toolCalls = new Histogram({
    name: "dhs_tool_call_duration_seconds",
    help: "Tool calls that ended, by tool type (webhook, client, end_session) and status (succeeded, failed, timed_out), and how long they took.",
    labelNames: ["type", "status"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly recordings = new Counter({
    name: "dhs_recordings_settled_total",
    help: "Sessions' recordings settled, by outcome: ready, or the code they failed with (not_joined, not_started, interrupted, upload_failed, not_delivered).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  private readonly analyses = new Histogram({
    name: "dhs_analysis_duration_seconds",
    help: "Sessions' analyses that ended, by status (complete, failed), and how long their last attempt took, the LLM's time included.",
    labelNames: ["status"] as const,
    buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  private readonly hookDeliveries = new Counter({
    name: "dhs_customer_webhook_deliveries_total",
    help: "Customer webhook deliveries that ended, by event type and outcome (delivered, given_up, dropped, disabled).",
    labelNames: ["event_type", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly hookQueueDepth = new Gauge({
    name: "dhs_customer_webhook_queue_depth",
    help: "Customer webhook deliveries pending (due or waiting for a retry), as of this replica's last reconciliation.",
    registers: [this.registry],
  });
  private readonly hookOldestAge = new Gauge({
    name: "dhs_customer_webhook_oldest_pending_seconds",
    help: "Age of the oldest customer webhook event still pending (0 when none), as of this replica's last reconciliation.",
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A property, not a method, so it can be handed to the request logger as it is. */
  readonly request = (route: string, method: string, status: number, seconds: number): void => {
    const labels = { route, method, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  };

  sessionCreated(): void {
    this.sessionsCreated.inc();
  }

  sessionEnded(status: string, endReason: string): void {
    this.sessionsEnded.inc({ status, end_reason: endReason });
  }

  agentRedispatched(): void {
    this.agentRedispatches.inc();
  }

  roomReconciled(reason: "terminal" | "missing"): void {
    this.roomsReconciled.inc({ reason });
  }

  dependencyFault(dependency: Dependency): void {
    this.dependencyFaults.inc({ dependency });
  }

  uncaughtError(origin: string): void {
    this.uncaughtErrors.inc({ origin });
  }

  redisError(): void {
    this.redisErrors.inc();
  }

  databaseError(): void {
    this.databaseErrors.inc();
  }

  storeStepSkipped(step: SkippedStep): void {
    this.storeStepsSkipped.inc({ step });
  }

  timerFailures(byTimer: Partial<Record<TimerKind, number>>): void {
    for (const [timer, count] of Object.entries(byTimer)) this.timersFailed.inc({ timer }, count);
  }

  toolCallSettled(type: string, status: string, durationMs: number | null): void {
    this.toolCalls.observe({ type, status }, (durationMs ?? 0) / 1000);
  }

  recordingSettled(outcome: string): void {
    this.recordings.inc({ outcome });
  }

  analysisSettled(status: string, durationMs: number): void {
    this.analyses.observe({ status }, durationMs / 1000);
  }

  sessionsWritten(count: number): void {
    this.historyWritten.inc(count);
  }

  sessionsRefused(count: number): void {
    this.historyRefused.inc(count);
  }

  /**
   * The history queue's size and the age of its oldest entry, read when scraped: what grows while the
   * database is down, and drains when it is back.
   */
  observeHistoryQueue(backlog: () => Promise<HistoryBacklog>): void {
    let last = { size: 0, ageS: 0, setAside: 0 };
    const read = async () => {
      const { size, oldestMs, setAside } = await backlog();
      last = { size, ageS: oldestMs === undefined ? 0 : Math.max(0, (Date.now() - oldestMs) / 1000), setAside };
    };
    new Gauge({
      name: "dhs_history_queue_sessions",
      help: "Ended sessions waiting to be written to the history database.",
      registers: [this.registry],
      async collect() {
        // A backlog Redis did not answer shows its last reading; the failure is counted where it
        // happened (dhs_redis_errors_total), and a scrape must not fail for it.
        await read().catch(() => undefined);
        this.set(last.size);
      },
    });
    new Gauge({
      name: "dhs_history_queue_oldest_seconds",
      help: "How long the oldest session waiting to be written to the history database has waited, from when it was first due (however often it was claimed since).",
      registers: [this.registry],
      collect() {
        this.set(last.ageS);
      },
    });
    new Gauge({
      name: "dhs_history_sessions_set_aside",
      help: "Ended sessions the history database refused, set aside (kept in Redis until their retention, queued again each hour).",
      registers: [this.registry],
      collect() {
        this.set(last.setAside);
      },
    });
  }

  /** A property, so it can be handed to the server as its drop listener. */
  readonly connectionDropped = (): void => {
    this.connectionsDropped.inc();
  };

  webhook(event: string, outcome: "applied" | "ignored" | "rejected"): void {
    this.webhookEvents.inc({ event, outcome });
  }

  attempt(eventType: string, outcome: "succeeded" | "failed", seconds: number): void {
    this.hookAttempts.observe({ event_type: eventType, outcome }, seconds);
  }

  delivery(eventType: string, outcome: "delivered" | "given_up" | "dropped" | "disabled"): void {
    this.hookDeliveries.inc({ event_type: eventType, outcome });
  }

  queue(stats: QueueStats, nowMs: number): void {
    this.hookQueueDepth.set(stats.pending);
    this.hookOldestAge.set(stats.oldestCreatedAtMs === null ? 0 : Math.max(0, (nowMs - stats.oldestCreatedAtMs) / 1000));
  }
}
