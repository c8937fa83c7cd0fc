/**
 * Sessions as a feature: the session machine's use cases (create, get, refresh, list, end, LiveKit's
 * events, the test helpers) and their operations, and the room reconciler, the safety net under rooms
 * that outlive their sessions. The machine's own timers are fired by the sweeper compose.ts runs.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { SessionStore } from "../domain/sessions/ports.js";
import type { SessionServiceDeps } from "../domain/sessions/session-deps.js";
import { SessionService, type SessionSettings } from "../domain/sessions/session-service.js";
import type { Cursors } from "../http/cursor.js";
import { sessionOperations } from "../http/routes/sessions.js";
import type { Metrics } from "../metrics.js";
import { RoomReconciler } from "../workers/room-reconciler.js";
import type { Feature } from "./feature.js";

export interface SessionOptions {
  config: Config;
  cursors: Cursors;
  logger: Logger;
  metrics: Metrics;
}

export function sessionsOf(deps: SessionServiceDeps & { store: SessionStore }, options: SessionOptions) {
  const { config, logger, metrics } = options;
  const sessions = new SessionService(deps);
  const reconciler = new RoomReconciler(deps.store, deps.rooms, {
    intervalMs: config.roomReconcileIntervalMs,
    graceMs: Math.max(60_000, 2 * config.idempotencyLockTtlS * 1000),
    holder: randomUUID(),
    onError: (err) => logger.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, "room reconciliation failed"),
    onDeleted: (reason) => {
      metrics.roomReconciled(reason);
      logger.info({ reason }, "room of an ended or missing session deleted by the reconciler");
    },
  });
  return {
    sessions,
    reconciler,
    feature: { name: "sessions", operations: sessionOperations(sessions, options.cursors), background: [reconciler] } satisfies Feature,
  };
}

/** The sessions' settings from the configuration (their events' retention comes from the webhooks). */
export function sessionSettingsOf(config: Config): Omit<SessionSettings, "eventRetainMs"> {
  return {
    rtcUrl: config.livekit.url,
    participantTokenTtlS: config.participantTokenTtlS,
    idempotencyKeyTtlMs: config.idempotencyKeyTtlS * 1000,
    idempotencyLockTtlMs: config.idempotencyLockTtlS * 1000,
    livekitEventDedupeMs: config.livekit.webhookDedupeS * 1000,
    recordingDeliveryMs: config.recordings.deliveryTimeoutMs,
    testMaxDurationS: config.testSessionMaxDurationS,
    durations: {
      joinTimeoutS: config.sessionJoinTimeoutS,
      digitalHumanJoinTimeoutS: config.digitalHumanJoinTimeoutS,
      maxDurationS: config.sessionMaxDurationS,
      departureTimeoutS: config.sessionDepartureTimeoutS,
      redispatchS: config.digitalHumanRedispatchS,
      retentionS: config.sessionRetentionS,
    },
  };
}
