/**
 * Prometheus metrics (prom-client), one registry per process, served as text at GET /metrics on a port of
 * its own (http/metrics-server.ts). Here, what every request and session shares: request counts and
 * latency by route, method and status; sessions created and ended by status and end reason; errors of
 * Redis, PostgreSQL and the process; LiveKit's webhook events; timers that failed; connections refused at
 * the cap; and Node's own process metrics. A feature's own (tool calls, analyses, recordings, customer
 * webhooks, the history) are made by its module in src/features, on this registry.
 */

import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import type { Dependency } from "./domain/dependency-errors.js";
import type { TimerKind } from "./domain/sessions/feature-timers.js";
import type { SessionMetrics } from "./domain/sessions/ports.js";
import type { SkippedStep } from "./store/skipped-steps.js";

export class Metrics implements SessionMetrics {
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

  /** A property, so it can be handed to the server as its drop listener. */
  readonly connectionDropped = (): void => {
    this.connectionsDropped.inc();
  };

  webhook(event: string, outcome: "applied" | "ignored" | "rejected"): void {
    this.webhookEvents.inc({ event, outcome });
  }
}
