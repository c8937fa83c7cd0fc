/**
 * The composition root: takes the stores from createStores (store/create-stores.ts), builds the LiveKit
 * adapters and each feature (features/: its services, operations, timers and background work) in the
 * order they need each other, and assembles their list into the Express app, the timer sweeper, start
 * and close. main.ts runs it; integration tests build the same thing with their own configuration.
 */
import type { RequestListener } from "node:http";
import type { Express } from "express";
import type { Logger } from "pino";
import { operatorFilesReloader } from "./config/operator-files.js";
import type { Config, ConfigError } from "./config.js";
import type { Resolver } from "./customer-webhooks/address-policy.js";
import { AccountLimits } from "./domain/accounts/account-limits.js";
import type { AccountService } from "./domain/accounts/account-service.js";
import { ApiKeyRing } from "./domain/accounts/api-keys.js";
import type { AnalysisService } from "./domain/analysis/analysis-service.js";
import { ConversationChanges } from "./domain/conversation/conversation-changes.js";
import type { ConversationServiceDeps } from "./domain/conversation/conversation-service.js";
import type { WebhookEndpointService } from "./domain/customer-webhooks/endpoint-service.js";
import type { WebhookSender, WebhookStore } from "./domain/customer-webhooks/ports.js";
import { DependencyFaultError, DependencyUnavailableError } from "./domain/dependency-errors.js";
import { DigitalHumanCatalog } from "./domain/digital-humans/digital-human-catalog.js";
import type { DigitalHumanService } from "./domain/digital-humans/digital-human-service.js";
import type { RoomService, SessionStore } from "./domain/sessions/ports.js";
import { maxDurationSOf } from "./domain/sessions/session-deps.js";
import type { SessionService, SessionSettings } from "./domain/sessions/session-service.js";
import { accountsOf } from "./features/accounts.js";
import { analysisOf } from "./features/analysis.js";
import { conversationOf } from "./features/conversation.js";
import { digitalHumansOf } from "./features/digital-humans.js";
import { assembleFeatures } from "./features/feature.js";
import { historyOf } from "./features/history.js";
import { knowledgeOf } from "./features/knowledge.js";
import { memoriesOf } from "./features/memories.js";
import { type Recordings, recordingsOf } from "./features/recordings.js";
import { sessionsOf } from "./features/sessions.js";
import { toolsOf } from "./features/tools.js";
import { transcriptsOf } from "./features/transcripts.js";
import { webhooksOf } from "./features/webhooks.js";
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
import { createStores } from "./store/create-stores.js";
import type { Tracing } from "./tracing/tracing.js";
import type { CustomerWebhookDispatcher } from "./workers/customer-webhook-dispatcher.js";
import type { DocumentProcessor } from "./workers/document-processor.js";
import type { HistoryWriter } from "./workers/history-writer.js";
import type { RoomReconciler } from "./workers/room-reconciler.js";
import { sessionTimers, type TimerHandler, TimerSweeper } from "./workers/timer-sweeper.js";

export interface Composed {
  /** The API (Express); `handler` serves it with LiveKit's webhooks ahead of it. */
  app: Express;
  /** What the HTTP server runs: LiveKit's webhooks on their own path, then the app. */
  handler: RequestListener;
  metrics: Metrics;
  store: SessionStore;
  sessions: SessionService;
  sweeper: TimerSweeper;
  /** Deletes rooms whose session is terminal or missing. */
  reconciler: RoomReconciler;
  webhookStore: WebhookStore;
  webhookEndpoints: WebhookEndpointService;
  accounts: AccountService;
  digitalHumans: DigitalHumanService;
  /** Delivers customer webhook events. */
  dispatcher: CustomerWebhookDispatcher;
  /** Writes ended sessions to the history database (on Redis and PostgreSQL). */
  historyWriter: HistoryWriter | undefined;
  /** Turns added documents into passages. */
  documentProcessor: DocumentProcessor;
  /** Sessions' recordings: serve tells them the port it listens on. */
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
  /**
   * Starts the work every replica repeats (serve calls it once listening): the timer sweeper and each
   * feature's background work. Tests start the parts they drive, the handles above.
   */
  start(): void;
  /**
   * Stops the sweeper (no timer fires into a stopped feature), then every feature's background work
   * (waiting for work in flight), closes the features, LiveKit's client and the stores.
   */
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
  const rooms = overrides.rooms ?? (livekit as LiveKitRoomService);
  const credentials = new LiveKitCredentialCheck(livekit, logger);
  // Every replica holds LiveKit's secret: the cursors' key is derived from it (a rotation of the
  // secret voids the cursors handed out before it, which callers then get again from the first page).
  const cursors = new Cursors(config.livekit.apiSecret);

  const hooks = webhooksOf(config, {
    store: webhookStore,
    cursors,
    logger,
    registry: metrics.registry,
    resolver: overrides.resolver,
    sender: overrides.webhookSender,
    now: overrides.webhookClock,
    tracing,
  });
  const { eventRetainMs, nudge } = hooks;
  const apiKeys = new ApiKeyRing(config.apiKeys.records);
  const catalog = new DigitalHumanCatalog(config.digitalHumans.entries, config.digitalHumans.voices);
  const limits =
    overrides.accounts ?? new AccountLimits(config.accountMaxOpenSessions, config.apiKeys.accounts, config.testMaxOpenSessions);
  const settings = sessionSettingsOf(config);
  const { durations, idempotencyKeyTtlMs } = settings;
  const memories = memoriesOf({ store: stores.memories, digitalHumans: stores.digitalHumans, retentionMs: config.memoryRetentionMs });
  const digitalHumans = digitalHumansOf(
    {
      memories: memories.memories,
      store: stores.digitalHumans,
      catalog,
      limit: () => config.accountMaxDigitalHumans,
      maxSessionDurationS: (principal) => maxDurationSOf(settings, principal.accountId),
      idempotencyKeyTtlMs,
      endpoints: webhookStore,
      documents: stores.knowledge,
    },
    cursors,
  );
  const knowledge = knowledgeOf({
    store: stores.knowledge,
    sessions: store,
    cursors,
    digitalHumans: digitalHumans.digitalHumans,
    webhooks: webhookStore,
    eventRetainMs,
    idempotencyKeyTtlMs,
    intervalMs: config.sweepIntervalMs * 10,
    logger,
    onEventQueued: nudge,
  });
  const accounts = accountsOf({
    store,
    accounts: limits,
    rateLimit: config.rateLimit.enabled ? { perSecond: config.rateLimit.perSecond, burst: config.rateLimit.burst } : undefined,
  });
  const conversationDeps: ConversationServiceDeps = {
    sessions: store,
    store: stores.conversations,
    // A test's own RoomService has no data channel: its jobs pull on their own.
    nudger: livekit,
    limits: config.conversation,
    durations,
    eventRetainMs,
    onEventsQueued: nudge,
    onToolCallSettled: (call) => tools.settled(call),
    onNudgeFailed: (err) =>
      logger.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, "conversation nudge failed"),
  };
  const conversation = conversationOf(conversationDeps);
  const sessions = sessionsOf(
    {
      store,
      participantTurns: conversation.conversation,
      rooms,
      tokens: new LiveKitTokenIssuer(config.livekit.apiKey, config.livekit.apiSecret),
      catalog,
      personas: digitalHumans.digitalHumans,
      memories: memories.memories,
      accounts: limits,
      settings: { ...settings, eventRetainMs },
      onBackgroundError: (err, what) => logger.warn({ err }, `background ${what} failed`),
      onEventsQueued: nudge,
      metrics,
      ...(tracing ? { tracing } : {}),
    },
    { config, cursors, logger, metrics },
  );
  const tools = toolsOf(
    {
      sessions: store,
      store: stores.conversations,
      changes: new ConversationChanges(conversationDeps),
      endpoints: webhookStore,
      sender: hooks.toolCalls,
      history: stores.toolCallHistory,
      endSession: (session) => sessions.sessions.endByDigitalHuman(session.account_id, session.id),
    },
    metrics.registry,
  );
  const transcripts = transcriptsOf(
    {
      sessions: store,
      transcripts: stores.transcripts,
      durations,
      graceMs: config.transcriptGraceS * 1000,
      eventRetainMs,
      onEventsQueued: nudge,
      // What was derived from the transcript, and the recording of the same words.
      derived: {
        erase: async (accountId, sessionId) => {
          await analysis.analysis.erase(accountId, sessionId);
          await recordings.service.erase(accountId, sessionId);
        },
      },
    },
    cursors,
  );
  const analysis = analysisOf(config.analysis, {
    memories: memories.memories,
    sessions: store,
    transcripts: stores.transcripts,
    durations,
    eventRetainMs,
    logger,
    onEventsQueued: nudge,
    registry: metrics.registry,
  });
  const recordings = recordingsOf(config.recordings, config.port, {
    sessions: store,
    transcripts: stores.transcripts,
    expiries: stores.recordingExpiries,
    durations,
    eventRetainMs,
    secret: config.livekit.apiSecret,
    logger,
    ...(overrides.recordingClock ? { now: overrides.recordingClock } : {}),
    onEventsQueued: nudge,
    registry: metrics.registry,
  });
  const history = historyOf(config, stores, logger, metrics);

  // Every feature of the service: what each answers, fires, serves and runs. One the list leaves out
  // does not compile while an operation or a timer has no other feature to answer it.
  const features = assembleFeatures([
    sessions.feature,
    transcripts.feature,
    conversation.feature,
    tools.feature,
    analysis.feature,
    memories.feature,
    recordings.feature,
    hooks.feature,
    accounts.feature,
    digitalHumans.feature,
    knowledge.feature,
    history.feature,
  ]);
  const sweeper = timerSweeperOf(config, store, sessionTimers(sessions.sessions, features.timers), logger, metrics, overrides.timerClock);

  const logError = requestErrorLogger(logger, metrics);
  const app = createApp({
    operations: features.operations,
    digitalHumanOperations: features.digitalHumanOperations,
    routes: features.routes,
    digitalHumanTokens: new DigitalHumanTokens(config.livekit.apiKey, config.livekit.apiSecret),
    // Ready while the store answers (with its layout confirmed) and, once main asked for it, LiveKit
    // accepted our credentials.
    ready: async () => {
      await stores.connection.ready();
      if (!credentials.verified) throw new DependencyUnavailableError("livekit");
    },
    apiKeys,
    rateLimiter: stores.rateLimiter,
    metrics,
    logger,
    logError,
    validateResponses: config.validateResponses,
  });
  // LiveKit's webhooks are answered ahead of Express (http/livekit-webhook.ts); everything else is the app's.
  const livekitWebhook = livekitWebhookHandler({
    receiver: new LiveKitEventReceiver(config.livekit.apiKey, config.livekit.apiSecret),
    sessions: sessions.sessions,
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
    sessions: sessions.sessions,
    sweeper,
    reconciler: sessions.reconciler,
    webhookStore,
    webhookEndpoints: hooks.endpoints,
    accounts: accounts.accounts,
    digitalHumans: digitalHumans.digitalHumans,
    dispatcher: hooks.dispatcher,
    historyWriter: history.writer,
    documentProcessor: knowledge.processor,
    analysis: analysis.analysis,
    recordings,
    waitForStore: (timeoutMs, pollMs = 50) => stores.connection.waitFor(timeoutMs, pollMs),
    verifyLiveKit: () => credentials.verify(),
    reloadOperatorFiles: operatorFilesReloader(
      { apiKeysFile: config.apiKeys.file, digitalHumansFile: config.digitalHumans.file },
      { apiKeys, accounts: limits, catalog },
      logger,
    ),
    start: () => {
      sweeper.start();
      features.start();
    },
    close: async () => {
      credentials.stop();
      await sweeper.stop();
      await features.stop();
      await livekit?.close();
      await stores.connection.close();
    },
  };
}

/** The sweeper that fires every session timer, the machine's and the features', on each replica. */
function timerSweeperOf(
  config: Config,
  store: SessionStore,
  timers: TimerHandler,
  logger: Logger,
  metrics: Metrics,
  now: (() => number) | undefined,
): TimerSweeper {
  return new TimerSweeper(store, timers, {
    intervalMs: config.sweepIntervalMs,
    leaseMs: 30_000,
    batch: 100,
    ...(now ? { now } : {}),
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
