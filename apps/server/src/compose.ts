/**
 * The composition root: takes the stores from createStores (store/create-stores.ts), builds the LiveKit
 * adapters, the domain services and the Express app from a Config, and wires them. main.ts runs it;
 * integration tests build the same thing with their own configuration.
 */
import { randomUUID } from "node:crypto";
import type { RequestListener } from "node:http";
import type { Express } from "express";
import type { Logger } from "pino";
import { analysisOf } from "./compose-analysis.js";
import { knowledgeOf } from "./compose-knowledge.js";
import { type Recordings, recordingsOf } from "./compose-recordings.js";
import { operatorFilesReloader } from "./config/operator-files.js";
import type { Config, ConfigError } from "./config.js";
import { AddressPolicy, type Resolver } from "./customer-webhooks/address-policy.js";
import { UndiciToolCallSender } from "./customer-webhooks/tool-call-sender.js";
import { UndiciWebhookSender } from "./customer-webhooks/webhook-sender.js";
import { AccountLimits } from "./domain/accounts/account-limits.js";
import { AccountService } from "./domain/accounts/account-service.js";
import { ApiKeyRing } from "./domain/accounts/api-keys.js";
import type { AnalysisService } from "./domain/analysis/analysis-service.js";
import { SessionAnalyses } from "./domain/analysis/session-analyses.js";
import { ConversationChanges } from "./domain/conversation/conversation-changes.js";
import { ConversationService, type ConversationServiceDeps } from "./domain/conversation/conversation-service.js";
import { WebhookEndpointService } from "./domain/customer-webhooks/endpoint-service.js";
import type { WebhookSender, WebhookStore } from "./domain/customer-webhooks/ports.js";
import { RetrySchedule } from "./domain/customer-webhooks/retry-schedule.js";
import { DependencyFaultError, DependencyUnavailableError } from "./domain/dependency-errors.js";
import { DigitalHumanCatalog } from "./domain/digital-humans/digital-human-catalog.js";
import { DigitalHumanService } from "./domain/digital-humans/digital-human-service.js";
import { SessionKnowledge } from "./domain/knowledge/session-knowledge.js";
import { ParticipantMemories } from "./domain/memories/participant-memories.js";
import type { FeatureTimerHandlers } from "./domain/sessions/feature-timers.js";
import type { RoomService, SessionStore } from "./domain/sessions/ports.js";
import { maxDurationSOf } from "./domain/sessions/session-deps.js";
import { SessionService, type SessionSettings } from "./domain/sessions/session-service.js";
import { ToolCallService } from "./domain/tools/tool-call-service.js";
import { TranscriptService } from "./domain/transcripts/transcript-service.js";
import { createApp, MAX_BODY_BYTES } from "./http/app.js";
import { Cursors } from "./http/cursor.js";
import type { ErrorLogger } from "./http/error-handler.js";
import { livekitWebhookHandler } from "./http/livekit-webhook.js";
import { LiveKitCredentialCheck } from "./livekit/credential-check.js";
import { DigitalHumanTokens } from "./livekit/digital-human-token.js";
import { LiveKitEventReceiver } from "./livekit/event-receiver.js";
import { LiveKitRoomService } from "./livekit/room-service.js";
import { LiveKitTokenIssuer } from "./livekit/token-issuer.js";
import { Metrics } from "./metrics.js";
import { createStores, type Stores } from "./store/create-stores.js";
import type { Tracing } from "./tracing/tracing.js";
import { CustomerWebhookDispatcher } from "./workers/customer-webhook-dispatcher.js";
import type { DocumentProcessor } from "./workers/document-processor.js";
import { HistoryWriter } from "./workers/history-writer.js";
import { RoomReconciler } from "./workers/room-reconciler.js";
import { sessionTimers, TimerSweeper } from "./workers/timer-sweeper.js";

export interface Composed {
  /** The API (Express); `handler` serves it with LiveKit's webhooks ahead of it. */
  app: Express;
  /** What the HTTP server runs: LiveKit's webhooks on their own path, then the app. */
  handler: RequestListener;
  metrics: Metrics;
  store: SessionStore;
  sessions: SessionService;
  sweeper: TimerSweeper;
  /** Deletes rooms whose session is terminal or missing; main starts it beside the sweeper. */
  reconciler: RoomReconciler;
  webhookStore: WebhookStore;
  webhookEndpoints: WebhookEndpointService;
  accounts: AccountService;
  digitalHumans: DigitalHumanService;
  /** Delivers customer webhook events; main starts it beside the sweeper. */
  dispatcher: CustomerWebhookDispatcher;
  /** Writes ended sessions to the history database (on Redis and PostgreSQL); main starts it beside the sweeper. */
  historyWriter: HistoryWriter | undefined;
  /** Turns added documents into passages; main starts it beside the sweeper. */
  documentProcessor: DocumentProcessor;
  /** Sessions' recordings: serve starts their retention beside the sweeper and tells them the port. */
  recordings: Recordings;
  /** Sessions' analyses, run in the background when their timers fire. */
  analysis: AnalysisService;
  /**
   * Resolves once the store answers and holds this server's key layout (a fresh Redis is given it), or
   * after timeoutMs (false then; asked every pollMs). The store connects in the background and fails fast
   * while it cannot, so a process that listened at once would answer its first requests 503. Rejects with
   * a ConfigError when Redis holds another layout: nothing may be read or written then. Until the layout
   * is confirmed the replica is unready.
   */
  waitForStore(timeoutMs: number, pollMs?: number): Promise<boolean>;
  /**
   * Checks LiveKit's credentials with one cheap call. While LiveKit cannot be reached, the replica is
   * unready (GET /readyz 503) and the check is repeated every few seconds until it answers.
   */
  verifyLiveKit(): Promise<"ok" | "refused" | "unreachable">;
  /**
   * Reads the operator's files again (API keys with account limits, the digital human catalog) and swaps
   * them in at once; a file that does not pass keeps the old ones in force. Returns the error, if any.
   */
  reloadOperatorFiles(): ConfigError | undefined;
  /** Stops the sweeper, the reconciler and the dispatcher (waiting for work in flight) and closes the store. */
  close(): Promise<void>;
}

export interface ComposeOverrides {
  rooms?: RoomService;
  store?: SessionStore;
  /** Resolves webhook hosts (tests give names their own addresses, without DNS). */
  resolver?: Resolver;
  webhookSender?: WebhookSender;
  /** Spans (main.ts gives OpenTelemetry's when tracing is on); none by default. */
  tracing?: Tracing;
  /** The accounts' limits, instead of the configuration's (the bench seeds more sessions than any account may hold open). */
  accounts?: AccountLimits;
  /** The recordings' clock (tests move it past a recording's retention). */
  recordingClock?: () => Date;
  /** The webhook dispatcher's clock, by which deliveries fall due and endpoints fail (tests move it past a retry). */
  webhookClock?: () => number;
  /** The timer sweeper's clock, by which session timers fall due (tests move it past a timeout). */
  timerClock?: () => number;
}

export function compose(config: Config, logger: Logger, overrides: ComposeOverrides = {}): Composed {
  const metrics = new Metrics();
  const { tracing } = overrides;
  const stores = createStores(config, { logger, metrics, tracing, sessions: overrides.store });
  const { sessions: store, webhooks: webhookStore } = stores;
  // A test's own RoomService has no credentials to check.
  const livekit = overrides.rooms ? undefined : new LiveKitRoomService({ ...config.livekit }, config.redisKeyPrefix, tracing);
  const credentials = new LiveKitCredentialCheck(livekit, logger);

  const hooks = webhooksOf(config, logger, metrics, webhookStore, overrides);
  const apiKeys = new ApiKeyRing(config.apiKeys.records);
  const catalog = new DigitalHumanCatalog(config.digitalHumans.entries, config.digitalHumans.voices);
  const accounts =
    overrides.accounts ?? new AccountLimits(config.accountMaxOpenSessions, config.apiKeys.accounts, config.testMaxOpenSessions);
  const settings = sessionSettingsOf(config);
  const memories = new ParticipantMemories({
    store: stores.memories,
    digitalHumanExists: async (owner, id) => (await stores.digitalHumans.getDigitalHuman(owner, id)) !== undefined,
    retentionMs: config.memoryRetentionMs,
  });
  const digitalHumans = new DigitalHumanService({
    memories,
    store: stores.digitalHumans,
    catalog,
    limit: () => config.accountMaxDigitalHumans,
    maxSessionDurationS: (principal) => maxDurationSOf(settings, principal.accountId),
    idempotencyKeyTtlMs: settings.idempotencyKeyTtlMs,
    endpoints: webhookStore,
    documents: stores.knowledge,
  });
  const knowledge = knowledgeOf({
    store: stores.knowledge,
    digitalHumans,
    webhooks: webhookStore,
    eventRetainMs: hooks.eventRetainMs,
    idempotencyKeyTtlMs: settings.idempotencyKeyTtlMs,
    intervalMs: config.sweepIntervalMs * 10,
    logger,
    onEventQueued: (endpointId) => hooks.dispatcher.nudge(webhookStore.partitionOf(endpointId)),
  });
  const accountService = new AccountService({
    store,
    accounts,
    rateLimit: config.rateLimit.enabled ? { perSecond: config.rateLimit.perSecond, burst: config.rateLimit.burst } : undefined,
  });
  const conversationDeps: ConversationServiceDeps = {
    sessions: store,
    store: stores.conversations,
    // A test's own RoomService has no data channel: its jobs pull on their own.
    nudger: livekit,
    limits: config.conversation,
    durations: settings.durations,
    eventRetainMs: hooks.eventRetainMs,
    onEventsQueued: (sessionId) => hooks.dispatcher.nudge(webhookStore.partitionOf(sessionId)),
    onToolCallSettled: (call) => metrics.toolCallSettled(call.type, call.status, call.durationMs),
    onNudgeFailed: (err) =>
      logger.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, "conversation nudge failed"),
  };
  const conversation = new ConversationService(conversationDeps);
  const sessions = new SessionService({
    store,
    participantTurns: conversation,
    rooms: overrides.rooms ?? (livekit as LiveKitRoomService),
    tokens: new LiveKitTokenIssuer(config.livekit.apiKey, config.livekit.apiSecret),
    catalog,
    personas: digitalHumans,
    memories,
    accounts,
    settings: { ...settings, eventRetainMs: hooks.eventRetainMs },
    onBackgroundError: (err, what) => logger.warn({ err }, `background ${what} failed`),
    onEventsQueued: (sessionId) => hooks.dispatcher.nudge(webhookStore.partitionOf(sessionId)),
    metrics,
    ...(tracing ? { tracing } : {}),
  });
  const tools = new ToolCallService({
    sessions: store,
    store: stores.conversations,
    changes: new ConversationChanges(conversationDeps),
    endpoints: webhookStore,
    sender: hooks.toolCalls,
    history: stores.toolCallHistory,
    endSession: (session) => sessions.endByDigitalHuman(session.account_id, session.id),
    onSettled: (call) => metrics.toolCallSettled(call.type, call.status, call.durationMs),
  });
  const transcripts = new TranscriptService({
    sessions: store,
    transcripts: stores.transcripts,
    durations: settings.durations,
    graceMs: config.transcriptGraceS * 1000,
    eventRetainMs: hooks.eventRetainMs,
    onEventsQueued: (sessionId) => hooks.dispatcher.nudge(webhookStore.partitionOf(sessionId)),
    // What was derived from the transcript, and the recording of the same words.
    derived: {
      erase: async (accountId, sessionId) => {
        await analysis.erase(accountId, sessionId);
        await recordings.service.erase(accountId, sessionId);
      },
    },
  });
  const analysis = analysisOf(config.analysis, {
    memories,
    sessions: store,
    transcripts: stores.transcripts,
    durations: settings.durations,
    eventRetainMs: hooks.eventRetainMs,
    logger,
    onEventsQueued: (sessionId) => hooks.dispatcher.nudge(webhookStore.partitionOf(sessionId)),
    onSettled: (status, ms) => metrics.analysisSettled(status, ms),
  });
  const recordings = recordingsOf(config.recordings, config.port, {
    sessions: store,
    transcripts: stores.transcripts,
    expiries: stores.recordingExpiries,
    durations: settings.durations,
    eventRetainMs: hooks.eventRetainMs,
    secret: config.livekit.apiSecret,
    logger,
    ...(overrides.recordingClock ? { now: overrides.recordingClock } : {}),
    onEventsQueued: (sessionId) => hooks.dispatcher.nudge(webhookStore.partitionOf(sessionId)),
    onSettled: (outcome) => metrics.recordingSettled(outcome),
  });
  // Each feature's timer, fired by the feature that scheduled it; a kind without one does not compile.
  const featureTimers: FeatureTimerHandlers = {
    transcript_ready: (accountId, sessionId) => transcripts.settle(accountId, sessionId),
    conversation: (accountId, sessionId) => conversation.onTimer(accountId, sessionId),
    analysis: (accountId, sessionId) => analysis.onTimer(accountId, sessionId),
    ...recordings.timers,
  };
  const sweeper = new TimerSweeper(store, sessionTimers(sessions, featureTimers), {
    intervalMs: config.sweepIntervalMs,
    leaseMs: 30_000,
    batch: 100,
    ...(overrides.timerClock ? { now: overrides.timerClock } : {}),
    onError: (err, due) => {
      if (due === undefined) logger.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, "timer sweep failed");
    },
    onFailures: (failed) => {
      metrics.timerFailures(failed.byTimer);
      logger.warn(
        { failed: failed.count, timers: failed.byTimer, err: { message: failed.first.message }, session_id: failed.first.sessionId },
        "due timers failed in this sweep: each is tried again once its lease runs out",
      );
    },
  });
  const reconciler = new RoomReconciler(store, overrides.rooms ?? (livekit as LiveKitRoomService), {
    intervalMs: config.roomReconcileIntervalMs,
    graceMs: Math.max(60_000, 2 * config.idempotencyLockTtlS * 1000),
    holder: randomUUID(),
    onError: (err) => logger.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, "room reconciliation failed"),
    onDeleted: (reason) => {
      metrics.roomReconciled(reason);
      logger.info({ reason }, "room of an ended or missing session deleted by the reconciler");
    },
  });

  const historyWriter = historyWriterOf(config, stores, logger, metrics);

  const logError = requestErrorLogger(logger, metrics);
  const app = createApp({
    sessions,
    transcripts,
    conversation,
    tools,
    analyses: new SessionAnalyses(store, analysis, memories),
    memories,
    recordings: recordings.api,
    recordingJobs: recordings.jobs,
    recordingFiles: recordings.routes,
    digitalHumanTokens: new DigitalHumanTokens(config.livekit.apiKey, config.livekit.apiSecret),
    webhookEndpoints: hooks.endpoints,
    // Ready while the store answers (with its layout confirmed) and, once main asked for it, LiveKit
    // accepted our credentials.
    ready: async () => {
      await stores.connection.ready();
      if (!credentials.verified) throw new DependencyUnavailableError("livekit");
    },
    apiKeys,
    accounts: accountService,
    digitalHumans,
    documents: knowledge.documents,
    sessionKnowledge: new SessionKnowledge({ sessions: store, index: stores.knowledge }),
    // Every replica holds LiveKit's secret: the cursors' key is derived from it (a rotation of the
    // secret voids the cursors handed out before it, which callers then get again from the first page).
    cursors: new Cursors(config.livekit.apiSecret),
    rateLimiter: stores.rateLimiter,
    metrics,
    logger,
    logError,
    validateResponses: config.validateResponses,
  });
  // LiveKit's webhooks are answered ahead of Express (http/livekit-webhook.ts); everything else is the app's.
  const livekitWebhook = livekitWebhookHandler({
    receiver: new LiveKitEventReceiver(config.livekit.apiKey, config.livekit.apiSecret),
    sessions,
    maxBodyBytes: MAX_BODY_BYTES,
    metrics,
    logger,
    logError,
  });
  const handler: RequestListener = (req, res) => {
    if (!livekitWebhook(req, res)) app(req, res);
  };

  return {
    app,
    handler,
    metrics,
    store,
    sessions,
    sweeper,
    reconciler,
    webhookStore,
    webhookEndpoints: hooks.endpoints,
    accounts: accountService,
    digitalHumans,
    dispatcher: hooks.dispatcher,
    historyWriter,
    documentProcessor: knowledge.processor,
    analysis,
    recordings,
    waitForStore: (timeoutMs, pollMs = 50) => stores.connection.waitFor(timeoutMs, pollMs),
    verifyLiveKit: () => credentials.verify(),
    reloadOperatorFiles: operatorFilesReloader(
      { apiKeysFile: config.apiKeys.file, digitalHumansFile: config.digitalHumans.file },
      { apiKeys, accounts, catalog },
      logger,
    ),
    close: async () => {
      credentials.stop();
      await Promise.all([
        sweeper.stop(),
        reconciler.stop(),
        hooks.dispatcher.stop(),
        historyWriter?.stop(),
        knowledge.processor.stop(),
        analysis.stop(),
        recordings.retention.stop(),
      ]);
      recordings.close();
      await knowledge.close();
      await hooks.close();
      await livekit?.close();
      await stores.connection.close();
    },
  };
}

/** The history writer, when there is a history database; its queue's size is a metric. */
function historyWriterOf(config: Config, stores: Stores, logger: Logger, metrics: Metrics): HistoryWriter | undefined {
  if (!stores.history) return undefined;
  metrics.observeHistoryQueue(() => (stores.history as NonNullable<Stores["history"]>).queue.backlog());
  let lastError = "";
  return new HistoryWriter(
    { ...stores.history, leases: stores.sessions },
    {
      intervalMs: config.sweepIntervalMs,
      leaseMs: 30_000,
      batch: 500,
      keepMs: config.database.redisKeepMs,
      holder: randomUUID(),
      onWritten: (count) => {
        lastError = "";
        metrics.sessionsWritten(count);
      },
      onDropped: (partitions) => logger.info({ partitions }, "history past its retention dropped"),
      onRefused: (refused) => {
        metrics.sessionsRefused(refused.length);
        for (const { sessionId, accountId, error } of refused) {
          logger.error(
            { session_id: sessionId, account_id: accountId, err: { name: error.name, message: error.message } },
            "the history database refused an ended session: set aside (Redis keeps it until its retention; queued again each hour)",
          );
        }
      },
      onRequeued: (count) => logger.info({ sessions: count }, "set-aside sessions queued again for the history database"),
      // One line per distinct failure while the database is down, not one per pass.
      onError: (err) => {
        metrics.databaseError();
        const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
        const message = err instanceof Error ? `${err.message}${cause}` : String(err);
        if (message === lastError) return;
        lastError = message;
        logger.warn(
          { err: { message } },
          "history write failed; Redis keeps what it was to write (ended sessions, endpoints' changes) until it succeeds",
        );
      },
    },
  );
}

/** Customer webhooks: the endpoints' service and the dispatcher, on the store given. */
function webhooksOf(config: Config, logger: Logger, metrics: Metrics, store: WebhookStore, overrides: ComposeOverrides) {
  const { webhooks } = config;
  const policy = new AddressPolicy({
    allowHttp: !config.production,
    allowPrivate: webhooks.allowPrivateUrls,
    ...(overrides.resolver ? { resolve: overrides.resolver } : {}),
  });
  const undici = overrides.webhookSender ? undefined : new UndiciWebhookSender(policy, webhooks.attemptTimeoutMs);
  const toolCalls = new UndiciToolCallSender(policy);
  const schedule = new RetrySchedule(webhooks.retryDelaysS);
  // Kept a day past the last possible attempt.
  const eventRetainMs = schedule.horizonMs(webhooks.attemptTimeoutMs) + 86_400_000;
  const dispatcher = new CustomerWebhookDispatcher(store, overrides.webhookSender ?? (undici as UndiciWebhookSender), {
    intervalMs: config.sweepIntervalMs,
    reconcileIntervalMs: config.sweepIntervalMs * 30,
    concurrency: webhooks.concurrency,
    attemptTimeoutMs: webhooks.attemptTimeoutMs,
    disableAfterMs: webhooks.disableAfterMs,
    schedule,
    metrics,
    ...(overrides.webhookClock ? { now: overrides.webhookClock } : {}),
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
    ...(overrides.tracing ? { tracing: overrides.tracing } : {}),
  });
  const endpoints = new WebhookEndpointService({
    store,
    urls: policy,
    settings: { eventRetainMs },
    ...(overrides.tracing ? { tracing: overrides.tracing } : {}),
    onQueued: (endpointId) => dispatcher.nudge(store.partitionOf(endpointId)),
  });
  return {
    dispatcher,
    endpoints,
    toolCalls,
    eventRetainMs,
    close: async () => {
      await Promise.all([undici?.close(), toolCalls.close()]);
    },
  };
}

function sessionSettingsOf(config: Config): Omit<SessionSettings, "eventRetainMs"> {
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

/** Logs a failed request once: an outage as a warning, a fault or a bug as an error, each counted. */
function requestErrorLogger(logger: Logger, metrics: Metrics): ErrorLogger {
  return (err, requestId) => {
    if (err instanceof DependencyUnavailableError) {
      if (err.dependency === "store") metrics.redisError();
      const cause = err.cause instanceof Error ? err.cause.message : String(err.cause);
      logger.warn({ request_id: requestId, dependency: err.dependency, cause }, "dependency unavailable");
    } else if (err instanceof DependencyFaultError) {
      // Not an outage that passes: a misconfiguration or a bug, named for whoever is on call.
      metrics.dependencyFault(err.dependency);
      logger.error({ request_id: requestId, dependency: err.dependency, cause: err.message }, "dependency fault");
    } else {
      logger.error({ err, request_id: requestId }, "request failed");
    }
  };
}
